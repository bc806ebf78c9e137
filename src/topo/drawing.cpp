#include "topo/drawing.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/subprocess.h"

namespace canopy::topo {
namespace {

// Slowest rate first: warm colours mark the slow links people look for.
const char *const kPalette[] = {"#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#17becf", "#1f77b4", "#9467bd", "#7f7f7f"};

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string node_id(int node) { return "n" + std::to_string(node); }

int leaf_of(const Topology &topo, int host) {
  for (const Port &port : topo.node(host).ports)
    if (port.connected() && topo.node(port.peer_node).is_switch()) return port.peer_node;
  return -1;
}

struct Palette {
  std::map<std::string, std::string> colour_of_rate;  // rate_string -> colour
  explicit Palette(const Topology &topo) {
    std::map<double, std::string> by_speed;
    for (const Link &link : topo.links()) by_speed.emplace(link.rate.gbps, rate_string(link.rate));
    size_t i = 0;
    for (const auto &[gbps, name] : by_speed) colour_of_rate.emplace(name, kPalette[std::min<size_t>(i++, 7)]);
  }
  const std::string &operator()(const LinkRate &rate) const { return colour_of_rate.at(rate_string(rate)); }
};

void draw_hosts(std::ostringstream &dot, const Topology &topo, bool collapse) {
  std::map<int, std::vector<int>> hosts_by_leaf;
  for (int h : topo.hosts()) hosts_by_leaf[leaf_of(topo, h)].push_back(h);
  for (const auto &[leaf, hosts] : hosts_by_leaf) {
    std::string label = leaf >= 0 ? topo.node(leaf).name : "no switch";
    dot << "  subgraph cluster_" << (leaf >= 0 ? node_id(leaf) : "none") << " {\n    label=" << quoted(label)
        << "; style=rounded; color=\"#bbbbbb\"; fontsize=10;\n";
    if (collapse && leaf >= 0) {
      dot << "    " << "hosts_" << node_id(leaf) << " [shape=box3d, label="
          << quoted(topo.node(hosts.front()).name + " .. " + topo.node(hosts.back()).name + "\\n" +
                    std::to_string(hosts.size()) + " hosts")
          << "];\n";
    } else {
      for (int h : hosts) dot << "    " << node_id(h) << " [shape=box, fontsize=9, label=" << quoted(topo.node(h).name) << "];\n";
    }
    dot << "  }\n";
  }
}

}  // namespace

std::string fabric_dot(const Topology &topo, const DrawingOptions &options) {
  const bool collapse = static_cast<int>(topo.hosts().size()) > options.max_hosts_drawn;
  const Palette palette(topo);
  std::ostringstream dot;
  dot << "graph fabric {\n  rankdir=BT; splines=true; nodesep=0.15; ranksep=1.2;\n"
      << "  node [fontname=\"Helvetica\"]; edge [penwidth=1.2];\n"
      << "  label=" << quoted(topo.source() + ": " + std::to_string(topo.hosts().size()) + " hosts, " +
                              std::to_string(topo.switches().size()) + " switches")
      << "; labelloc=t;\n";
  std::map<int, std::vector<int>> switches_by_level;
  for (int s : topo.switches()) switches_by_level[topo.node(s).level].push_back(s);
  for (const auto &[level, switches] : switches_by_level) {
    dot << "  { rank=same;";
    for (int s : switches)
      dot << " " << node_id(s) << " [shape=ellipse, style=filled, fillcolor=\"#e8eef7\", label=" << quoted(topo.node(s).name) << "];";
    dot << " }\n";
  }
  draw_hosts(dot, topo, collapse);
  // Parallel cables between the same two nodes become one thicker edge.
  std::map<std::pair<std::string, std::string>, std::pair<int, LinkRate>> edges;
  for (const Link &link : topo.links()) {
    auto end = [&](int node) {
      int leaf = collapse && topo.node(node).is_host() ? leaf_of(topo, node) : -1;
      return leaf >= 0 ? "hosts_" + node_id(leaf) : node_id(node);
    };
    auto key = std::minmax(end(link.node_a), end(link.node_b));
    auto &edge = edges[{key.first, key.second}];
    if (edge.first == 0 || link.rate.gbps < edge.second.gbps) edge.second = link.rate;
    ++edge.first;
  }
  for (const auto &[ends, edge] : edges) {
    dot << "  " << ends.first << " -- " << ends.second << " [color=" << quoted(palette(edge.second));
    if (edge.first > 1) dot << ", penwidth=" << std::min(1.2 + 0.6 * (edge.first - 1), 6.0) << ", label=\"x" << edge.first << "\", fontsize=8";
    dot << "];\n";
  }
  dot << "  subgraph cluster_legend {\n    label=\"link rate\"; fontsize=10; color=\"#bbbbbb\";\n";
  int i = 0;
  for (const auto &[rate, colour] : palette.colour_of_rate)
    dot << "    legend" << i++ << " [shape=plaintext, fontsize=10, fontcolor=" << quoted(colour) << ", label=" << quoted(rate) << "];\n";
  dot << "  }\n}\n";
  return dot.str();
}

void render_svg(const std::string &dot, const std::string &svg_path) {
  std::string tmp = svg_path + ".tmp." + std::to_string(::getpid());
  std::vector<std::string> argv = {"dot", "-Tsvg", "-o", tmp};
  CommandResult result = run_command(argv, dot, "", 300);
  if (result.exit_code != 0 || ::rename(tmp.c_str(), svg_path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(CANOPY_ERR_IO, "cannot draw " + svg_path + ": " + describe_failure("dot", result));
  }
}

}  // namespace canopy::topo
