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

std::string html_escaped(const std::string &s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// Where a host's link ends in the drawing: its row in the leaf's host table, the
// whole table when hosts are collapsed, or its own box when it has no switch.
std::string host_end(const Topology &topo, int host, bool collapse) {
  int leaf = topo.leaf_switch(host);
  if (leaf < 0) return node_id(host);
  return "hosts_" + node_id(leaf) + (collapse ? "" : ":" + node_id(host));
}

// The hosts of each leaf switch as one table under it (one row per host, or one
// row for all of them when collapsed), which keeps big fabrics readable.
void draw_hosts(std::ostringstream &dot, const Topology &topo, bool collapse) {
  std::map<int, std::vector<int>> hosts_by_leaf;
  for (int h : topo.hosts()) hosts_by_leaf[topo.leaf_switch(h)].push_back(h);
  for (auto &[leaf, hosts] : hosts_by_leaf) {
    std::sort(hosts.begin(), hosts.end(), [&](int a, int b) { return topo.node(a).name < topo.node(b).name; });
    if (leaf < 0) {
      for (int h : hosts) dot << "  " << node_id(h) << " [shape=box, fontsize=9, label=" << quoted(topo.node(h).name) << "];\n";
      continue;
    }
    dot << "  hosts_" << node_id(leaf) << " [shape=plaintext, fontsize=9, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
        << "CELLSPACING=\"0\" CELLPADDING=\"2\" BGCOLOR=\"#fdfdf5\">";
    if (collapse)
      dot << "<TR><TD>" << html_escaped(topo.node(hosts.front()).name) << " .. " << html_escaped(topo.node(hosts.back()).name)
          << "<BR/>" << hosts.size() << " hosts</TD></TR>";
    else
      for (int h : hosts) dot << "<TR><TD PORT=\"" << node_id(h) << "\">" << html_escaped(topo.node(h).name) << "</TD></TR>";
    dot << "</TABLE>>];\n";
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
    auto end = [&](int node) { return topo.node(node).is_host() ? host_end(topo, node, collapse) : node_id(node); };
    std::string a = end(link.node_a), b = end(link.node_b);
    auto &edge = edges[a < b ? std::make_pair(a, b) : std::make_pair(b, a)];
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
