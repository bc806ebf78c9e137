#include "map/pictures.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"
#include "common/gnuplot.h"
#include "topo/drawing.h"

namespace canopy::map {
namespace {

std::string number_text(double value, const char *format = "%.4g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

const char *extension(PictureFormat format) {
  switch (format) {
    case PictureFormat::Svg: return ".svg";
    case PictureFormat::Png: return ".png";
    case PictureFormat::Dot: return ".dot";
  }
  return "";
}

// ---- heat map ----

// The colour range both panels share: the smallest and largest non-empty cell.
struct CellRange {
  double low = std::numeric_limits<double>::infinity(), high = 0;
  void include(const CommMatrix &m) {
    for (double b : m.bytes)
      if (b > 0) low = std::min(low, b), high = std::max(high, b);
  }
  bool empty() const { return high <= 0; }
  bool logarithmic() const { return !empty() && high / low > 100; }
};

std::string algorithm_text(const MapResult &r) {
  std::string text = r.algorithm;
  if (!r.refined_from.empty() && r.refined_from != r.algorithm) text += " (refined from " + r.refined_from + ")";
  return text;
}

// Each host's diagonal block outlined (its traffic inside the host), when the
// blocks are large enough to see; the full grid of boundaries would hide the cells.
std::string host_blocks(const CommMatrix &m) {
  if (m.host_starts.empty() || m.cells < 3 * static_cast<int>(m.host_starts.size())) return "";
  std::string script;
  for (size_t i = 0; i < m.host_starts.size(); ++i) {
    std::string from = std::to_string(m.host_starts[i]);
    std::string to = std::to_string(i + 1 < m.host_starts.size() ? m.host_starts[i + 1] : m.processes);
    script += "set object rectangle from " + from + "," + from + " to " + to + "," + to +
              " front fillstyle empty border lc rgb '#2a5fd0' lw 0.7\n";
  }
  return script;
}

// One panel: the matrix as an image, each cell centred on its processes.
std::string heatmap_panel(const CommMatrix &m, const std::string &title, double left, bool right) {
  std::string k = std::to_string(m.cell_size);
  std::string extent = std::to_string(static_cast<long long>(m.cells) * m.cell_size);
  std::string script = "set lmargin at screen " + number_text(left) + "\nset rmargin at screen " + number_text(left + 0.38) + "\n";
  script += "set title '" + gnuplot_quoted(title) + "'\nunset object\n" + host_blocks(m);
  script += "set xrange [0:" + extent + "]\nset yrange [" + extent + ":0]\n";
  // The right panel carries the shared colour legend; the left one the y label.
  script += right ? "set colorbox user origin screen 0.905, screen 0.16 size screen 0.015, screen 0.68\nunset ylabel\n"
                  : "unset colorbox\nset ylabel 'processes in slot order'\n";
  script += "plot '-' matrix using (($1 + 0.5) * " + k + "):(($2 + 0.5) * " + k + "):3 with image notitle\n";
  std::string row;
  for (int r = 0; r < m.cells; ++r) {
    row.clear();
    for (int c = 0; c < m.cells; ++c) {
      double b = m.at(r, c);
      row += c ? " " : "";
      row += b > 0 ? number_text(b) : "NaN";  // empty cells stay white
    }
    script += row + "\n";
  }
  return script + "e\n";
}

std::string heatmap_script(const std::string &title, const CommMatrix &before, const std::string &before_title,
                           const CommMatrix &after, const std::string &after_title) {
  CellRange range;
  range.include(before);
  range.include(after);
  std::string script = "set multiplot title '" + gnuplot_quoted(title) + "'\n";
  script += "set tmargin at screen 0.84\nset bmargin at screen 0.12\nset tics out nomirror\n";
  script += "set xlabel 'processes in slot order'\n";
  script += "set palette defined (0 '#fff0a0', 1 '#fecc5c', 2 '#fd8d3c', 3 '#f03b20', 4 '#bd0026', 5 '#4a0014')\n";
  // Linear scales start at 0, so that equal cells are all the hottest colour.
  if (range.logarithmic())
    script += "set cbrange [" + number_text(range.low, "%.17g") + ":" + number_text(range.high, "%.17g") +
              "]\nset logscale cb\nset format cb '%.0e'\n";
  else
    script += "set cbrange [0:" + number_text(range.empty() ? 1 : range.high, "%.17g") + "]\n";
  script += std::string("set cblabel 'bytes per cell") + (range.logarithmic() ? " (log scale)" : "") + ", row sends to column' offset 1.5,0\n";
  script += heatmap_panel(before, before_title, 0.07, false);
  script += heatmap_panel(after, after_title, 0.51, true);
  return script + "unset multiplot\n";
}

// The share of the bytes in the diagonal blocks, which the picture shows.
std::string inside_hosts(const Metrics &m) {
  return m.total_bytes > 0 ? ", " + number_text(100 * m.intra_node_bytes / m.total_bytes, "%.3g") + "% inside hosts" : "";
}

// ---- fabric drawing ----

std::string load_title(const Problem &p, const MapResult &r, const Metrics &mapped, const Metrics &identity) {
  return p.machine.topology().source() + ": " + std::to_string(p.graph.num_vertices()) + " processes on " +
         std::to_string(p.machine.num_hosts()) + " hosts (highlighted), mapped by " + algorithm_text(r) +
         "\nbusiest link " + number_text(mapped.max_link_bytes) + " bytes (identity " + number_text(identity.max_link_bytes) +
         "), hop-bytes " + number_text(mapped.hop_bytes) + " (identity " + number_text(identity.hop_bytes) + "), " +
         std::to_string(mapped.links_used) + " directed links used, routes " + mapped.routes;
}

}  // namespace

double CommMatrix::total() const {
  double sum = 0;
  for (double b : bytes) sum += b;
  return sum;
}

CommMatrix comm_matrix(const Problem &p, const std::vector<int> &slot_of, int max_cells) {
  check_placement(p, slot_of);
  if (max_cells < 1) throw Error(CANOPY_ERR_INVALID_ARG, "a matrix needs at least one cell per axis");
  const Machine &machine = p.machine;
  CommMatrix m;
  m.processes = p.graph.num_vertices();
  m.cell_size = std::max(1, (m.processes + max_cells - 1) / max_cells);
  m.cells = (m.processes + m.cell_size - 1) / m.cell_size;
  m.bytes.assign(static_cast<size_t>(m.cells) * static_cast<size_t>(m.cells), 0);
  // Positions in slot order: walk the slots, numbering the processes found there.
  std::vector<int> process_at(static_cast<size_t>(machine.num_slots()), -1), position(slot_of.size());
  for (size_t v = 0; v < slot_of.size(); ++v) process_at[static_cast<size_t>(slot_of[v])] = static_cast<int>(v);
  int next = 0, last_host = -1;
  for (int slot = 0; slot < machine.num_slots(); ++slot) {
    int v = process_at[static_cast<size_t>(slot)];
    if (v < 0) continue;
    if (machine.host_of_slot(slot) != last_host) m.host_starts.push_back(next), last_host = machine.host_of_slot(slot);
    position[static_cast<size_t>(v)] = next++;
  }
  // Each undirected edge sits in both rows, so each direction gets half of it.
  const CommGraph &g = p.graph;
  for (int v = 0; v < g.num_vertices(); ++v) {
    size_t row = static_cast<size_t>(position[static_cast<size_t>(v)] / m.cell_size) * static_cast<size_t>(m.cells);
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      m.bytes[row + static_cast<size_t>(position[static_cast<size_t>(g.neighbor(i))] / m.cell_size)] += g.weight(i) / 2;
  }
  return m;
}

PictureFormat picture_format(const std::string &path, const std::vector<PictureFormat> &allowed, const std::string &option) {
  std::string choices;
  for (PictureFormat f : allowed) {
    std::string ext = extension(f);
    bool match = path.size() > ext.size() && std::equal(ext.rbegin(), ext.rend(), path.rbegin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
                 });
    if (match) return f;
    choices += (choices.empty() ? "" : " or ") + ext;
  }
  throw Error(CANOPY_ERR_INVALID_ARG, option + " " + path + ": unknown picture format, the file name must end in " + choices);
}

void write_heatmap(const std::string &path, const Problem &p, const MapResult &r, const Metrics &mapped, const Metrics &identity,
                   int max_cells) {
  PictureFormat format = picture_format(path, {PictureFormat::Svg, PictureFormat::Png}, "heat map");
  CommMatrix before = comm_matrix(p, identity_placement(p), max_cells);
  CommMatrix after = comm_matrix(p, r.slot_of_process, max_cells);
  std::string title = "communication matrix: " + std::to_string(p.graph.num_vertices()) + " processes on " +
                      p.machine.slots_text() + ", " + number_text(p.graph.total_bytes()) + " bytes";
  if (after.cell_size > 1) title += "; cells of " + std::to_string(after.cell_size) + " x " + std::to_string(after.cell_size) + " processes";
  std::string before_title = "before: identity, hop-bytes " + number_text(identity.hop_bytes) + inside_hosts(identity);
  std::string after_title = "after: " + algorithm_text(r) + ", hop-bytes " + number_text(mapped.hop_bytes);
  if (identity.hop_bytes > 0) after_title += " (" + number_text(mapped.hop_bytes / identity.hop_bytes, "%.3g") + " x identity)";
  after_title += inside_hosts(mapped);
  std::string terminal = format == PictureFormat::Png ? "pngcairo size 1200,620 noenhanced font 'sans,10' background '#ffffff'"
                                                      : "svg size 1200,620 dynamic noenhanced font 'sans,11' background '#ffffff'";
  render_gnuplot(terminal, heatmap_script(title, before, before_title, after, after_title), path);
}

void write_load_drawing(const std::string &path, const Problem &p, const MapResult &r, const Metrics &mapped,
                        const Metrics &identity) {
  PictureFormat format = picture_format(path, {PictureFormat::Dot, PictureFormat::Svg}, "load drawing");
  const topo::Topology &topo = p.machine.topology();
  topo::DrawingOptions options;
  options.title = load_title(p, r, mapped, identity);
  options.highlighted_hosts = p.machine.host_nodes();
  options.link_bytes.reserve(topo.links().size());
  for (const topo::Link &link : topo.links()) options.link_bytes.push_back(mapped.link_loads.busier_direction(link));
  std::string dot = topo::fabric_dot(topo, options);
  if (format == PictureFormat::Dot)
    write_file_atomic(path, dot);
  else
    topo::render_svg(dot, path);
}

}  // namespace canopy::map
