#include "topo/drawing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
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

const char *const kHighlight = "#ffd966";  // a job's hosts

// The hosts of each leaf switch as one table under it (one row per host, or one
// row for all of them when collapsed), which keeps big fabrics readable.
void draw_hosts(std::ostringstream &dot, const Topology &topo, bool collapse, const std::set<int> &highlighted) {
  std::map<int, std::vector<int>> hosts_by_leaf;
  for (int h : topo.hosts()) hosts_by_leaf[topo.leaf_switch(h)].push_back(h);
  for (auto &[leaf, hosts] : hosts_by_leaf) {
    std::sort(hosts.begin(), hosts.end(), [&](int a, int b) { return topo.node(a).name < topo.node(b).name; });
    if (leaf < 0) {
      for (int h : hosts) {
        dot << "  " << node_id(h) << " [shape=box, fontsize=9, label=" << quoted(topo.node(h).name);
        if (highlighted.count(h)) dot << ", style=filled, fillcolor=" << quoted(kHighlight);
        dot << "];\n";
      }
      continue;
    }
    dot << "  hosts_" << node_id(leaf) << " [shape=plaintext, fontsize=9, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
        << "CELLSPACING=\"0\" CELLPADDING=\"2\" BGCOLOR=\"#fdfdf5\">";
    if (collapse) {
      size_t in_job = std::count_if(hosts.begin(), hosts.end(), [&](int h) { return highlighted.count(h) > 0; });
      dot << "<TR><TD" << (in_job ? std::string(" BGCOLOR=\"") + kHighlight + "\"" : "") << ">"
          << html_escaped(topo.node(hosts.front()).name) << " .. " << html_escaped(topo.node(hosts.back()).name)
          << "<BR/>" << hosts.size() << " hosts";
      if (in_job) dot << ", " << in_job << " in the job";
      dot << "</TD></TR>";
    } else {
      for (int h : hosts)
        dot << "<TR><TD PORT=\"" << node_id(h) << "\"" << (highlighted.count(h) ? std::string(" BGCOLOR=\"") + kHighlight + "\"" : "")
            << ">" << html_escaped(topo.node(h).name) << "</TD></TR>";
    }
    dot << "</TABLE>>];\n";
  }
}

void draw_switches(std::ostringstream &dot, const Topology &topo) {
  std::map<int, std::vector<int>> switches_by_level;
  for (int s : topo.switches()) switches_by_level[topo.node(s).level].push_back(s);
  for (const auto &[level, switches] : switches_by_level) {
    dot << "  { rank=same;";
    for (int s : switches)
      dot << " " << node_id(s) << " [shape=ellipse, style=filled, fillcolor=\"#e8eef7\", label=" << quoted(topo.node(s).name) << "];";
    dot << " }\n";
  }
}

// One drawn edge: parallel cables between the same two ends become one, drawn
// with the slowest rate among them and the busiest cable's load. It runs from
// the lower level to the higher one, so that dot ranks leaves below spines.
struct DrawnEdge {
  std::string lower, upper;
  int cables = 0;
  LinkRate rate;
  double bytes = 0;
};

std::map<std::pair<std::string, std::string>, DrawnEdge> drawn_edges(const Topology &topo, bool collapse,
                                                                       const std::vector<double> &link_bytes) {
  std::map<std::pair<std::string, std::string>, DrawnEdge> edges;
  for (size_t i = 0; i < topo.links().size(); ++i) {
    const Link &link = topo.links()[i];
    auto end = [&](int node) { return topo.node(node).is_host() ? host_end(topo, node, collapse) : node_id(node); };
    std::string a = end(link.node_a), b = end(link.node_b);
    DrawnEdge &edge = edges[a < b ? std::make_pair(a, b) : std::make_pair(b, a)];
    if (edge.cables == 0) {
      bool a_lower = topo.node(link.node_a).level <= topo.node(link.node_b).level;
      edge.lower = a_lower ? a : b;
      edge.upper = a_lower ? b : a;
    }
    if (edge.cables == 0 || link.rate.gbps < edge.rate.gbps) edge.rate = link.rate;
    if (!link_bytes.empty()) edge.bytes = std::max(edge.bytes, link_bytes[i]);
    ++edge.cables;
  }
  return edges;
}

// "1.5 MB": loads in the legend and tooltips, in SI units like the metrics' bytes.
std::string bytes_text(double bytes) {
  const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[u]);
  return text;
}

// Links without traffic take the coldest colour; the others one of the hotter
// classes, of equal width up to the busiest link (linear: the busiest links are
// the bottleneck, and a log scale would make a link with 1% of its load look hot).
class LoadScale {
 public:
  explicit LoadScale(double max_bytes) : max_(max_bytes) {}
  size_t colour_index(double bytes) const {
    if (bytes <= 0 || max_ <= 0) return 0;
    size_t used = load_colours().size() - 1;
    return 1 + std::min(used - 1, static_cast<size_t>(std::ceil(bytes / max_ * static_cast<double>(used))) - 1);
  }
  double penwidth(double bytes) const { return bytes <= 0 || max_ <= 0 ? 0.8 : 1.2 + 4.8 * bytes / max_; }
  std::string legend_label(size_t colour_index) const {
    if (colour_index == 0) return "no traffic";
    size_t used = load_colours().size() - 1;
    return "up to " + bytes_text(max_ * static_cast<double>(colour_index) / static_cast<double>(used));
  }

 private:
  double max_;
};

void draw_edges(std::ostringstream &dot, const std::map<std::pair<std::string, std::string>, DrawnEdge> &edges,
                const Palette &palette, const std::optional<LoadScale> &load) {
  for (const auto &entry : edges) {
    const DrawnEdge &edge = entry.second;
    dot << "  " << edge.lower << " -- " << edge.upper;
    if (load) {
      dot << " [color=" << quoted(load_colours()[load->colour_index(edge.bytes)]) << ", penwidth=" << load->penwidth(edge.bytes)
          << ", tooltip=" << quoted(std::to_string(static_cast<long long>(std::llround(edge.bytes))) + " bytes")
          << (edge.bytes > 0 ? "" : ", style=dashed");
    } else {
      dot << " [color=" << quoted(palette(edge.rate));
      if (edge.cables > 1) dot << ", penwidth=" << std::min(1.2 + 0.6 * (edge.cables - 1), 6.0);
    }
    if (edge.cables > 1) dot << ", label=\"x" << edge.cables << "\", fontsize=8";
    dot << "];\n";
  }
}

void draw_legend(std::ostringstream &dot, const Palette &palette, const std::optional<LoadScale> &load, bool highlight) {
  dot << "  subgraph cluster_legend {\n    label=" << quoted(load ? "bytes per link (busier direction)" : "link rate")
      << "; fontsize=10; color=\"#bbbbbb\";\n";
  int i = 0;
  auto entry = [&](const std::string &colour, const std::string &label) {
    dot << "    legend" << i++ << " [shape=plaintext, fontsize=10, fontcolor=" << quoted(colour) << ", label=" << quoted(label) << "];\n";
  };
  if (load)
    for (size_t c = load_colours().size(); c-- > 0;) entry(load_colours()[c], load->legend_label(c));
  else
    for (const auto &[rate, colour] : palette.colour_of_rate) entry(colour, rate);
  if (highlight)
    dot << "    legend" << i++ << " [shape=box, style=filled, fontsize=10, fillcolor=" << quoted(kHighlight)
        << ", label=\"the job's hosts\"];\n";
  dot << "  }\n";
}

}  // namespace

const std::vector<std::string> &load_colours() {
  static const std::vector<std::string> colours = {"#c8c8c8", "#4575b4", "#74add1", "#fdae61", "#f46d43", "#d73027", "#7f0000"};
  return colours;
}

std::string fabric_dot(const Topology &topo, const DrawingOptions &options) {
  const bool collapse = static_cast<int>(topo.hosts().size()) > options.max_hosts_drawn;
  const Palette palette(topo);
  std::optional<LoadScale> load;
  if (!options.link_bytes.empty()) {
    if (options.link_bytes.size() != topo.links().size())
      throw Error(CANOPY_ERR_INVALID_ARG, "link loads for " + std::to_string(options.link_bytes.size()) + " links, the fabric has " +
                                              std::to_string(topo.links().size()));
    load.emplace(*std::max_element(options.link_bytes.begin(), options.link_bytes.end()));
  }
  std::string title = !options.title.empty() ? options.title
                                             : topo.source() + ": " + std::to_string(topo.hosts().size()) + " hosts, " +
                                                   std::to_string(topo.switches().size()) + " switches";
  std::ostringstream dot;
  dot << "graph fabric {\n  rankdir=BT; splines=true; nodesep=0.15; ranksep=1.2;\n"
      << "  node [fontname=\"Helvetica\"]; edge [penwidth=1.2];\n"
      << "  label=" << quoted(title) << "; labelloc=t;\n";
  // Large fabrics: dot's crossing minimisation and network simplex grow faster than
  // the links (a 4,096-host fat tree took 20 s, 8,192 hosts 84 s); a few rounds of each
  // draw them in a few seconds, and nobody reads crossings among thousands of links.
  if (collapse) dot << "  nslimit=2; mclimit=0.2;\n";
  draw_switches(dot, topo);
  const std::set<int> highlighted(options.highlighted_hosts.begin(), options.highlighted_hosts.end());
  draw_hosts(dot, topo, collapse, highlighted);
  draw_edges(dot, drawn_edges(topo, collapse, options.link_bytes), palette, load);
  draw_legend(dot, palette, load, !highlighted.empty());
  dot << "}\n";
  return dot.str();
}

void render_svg(const std::string &dot, const std::string &svg_path) {
  write_via_temporary(svg_path, [&](const std::string &tmp) {
    CommandResult result = run_command({"dot", "-Tsvg", "-o", tmp}, dot, "", 300);
    if (result.exit_code != 0) throw Error(CANOPY_ERR_IO, "cannot draw " + svg_path + ": " + describe_failure("dot", result));
  });
}

}  // namespace canopy::topo
