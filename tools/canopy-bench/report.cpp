#include "report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "coll/plan/config.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/gnuplot.h"
#include "common/subprocess.h"

namespace canopy::bench {
namespace {

// OSU's layout: "%-10s" size, "%20.2f" latencies (FIELD_WIDTH, FLOAT_PRECISION), "%12d" iterations;
// a collective without sizes starts with "# Avg Latency(us)" and "%17.2f".
constexpr int kSizeWidth = 10, kFieldWidth = 20, kIterationsWidth = 12, kUnsizedWidth = 17;

std::string fixed2(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

std::string pad_left(const std::string &s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

const char *pass_fail(const Stats &s) { return s.errors == 0 ? "Pass" : "Fail"; }

// The latency the plot draws and the tuning compares: the median with -z (on a shared machine a
// few preempted calls can bend the average), else the average.
double Stats::*shown_latency(const Options &o) { return o.tail ? &Stats::p50_us : &Stats::avg_us; }

std::string root_text(const Options &o) { return o.rotate_root ? "rotate" : "fixed:" + std::to_string(o.root); }

std::string algorithm_list(const Options &o) {
  std::string names;
  for (const Algorithm &a : o.algorithms) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

// "1", "4", ..., "1K", "4K", ..., "1M" for the plot's size axis.
std::string size_label(size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

}  // namespace

const char *method_name(Method method) { return method == Method::Osu ? "osu" : "smp-paper"; }

TextReport::TextReport(const Options &opts, const RunInfo &info) : opts_(opts), info_(info) {
  const std::vector<Algorithm> &algs = opts.algorithms;
  auto latency = [](size_t a, double Stats::*field) {
    return [a, field](const Row &r) { return fixed2(r.stats[a].*field); };
  };
  for (size_t a = 0; a < algs.size(); ++a) {
    // One algorithm: OSU's titles. Several: the algorithm's name on each of its columns.
    std::string prefix = opts.compare ? algs[a].name + " " : "";
    columns_.push_back({opts.compare ? prefix + "Avg(us)" : "Avg Latency(us)", latency(a, &Stats::avg_us)});
    if (opts.full) {
      columns_.push_back({opts.compare ? prefix + "Min(us)" : "Min Latency(us)", latency(a, &Stats::min_us)});
      columns_.push_back({opts.compare ? prefix + "Max(us)" : "Max Latency(us)", latency(a, &Stats::max_us)});
    }
  }
  if (opts.full) columns_.push_back({"Iterations", [](const Row &r) { return std::to_string(r.iterations); }});
  for (size_t a = 0; opts.tail && a < algs.size(); ++a) {
    // OSU's "P50 Tail Lat(us)"; with --compare, the algorithm's name instead.
    std::string prefix = opts.compare ? algs[a].name + " " : "";
    std::string suffix = opts.compare ? "(us)" : " Tail Lat(us)";
    columns_.push_back({prefix + "P50" + suffix, latency(a, &Stats::p50_us)});
    columns_.push_back({prefix + "P90" + suffix, latency(a, &Stats::p90_us)});
    columns_.push_back({prefix + "P99" + suffix, latency(a, &Stats::p99_us)});
  }
  if (opts.validate)
    for (size_t a = 0; a < algs.size(); ++a)
      columns_.push_back({opts.compare ? algs[a].name + " Validation" : "Validation",
                          [a](const Row &r) { return std::string(pass_fail(r.stats[a])); }});
  for (size_t a = 1; opts.compare && a < algs.size(); ++a)
    columns_.push_back({algs[a].name + "/" + algs[0].name, [a](const Row &r) {
                          return fixed2(r.stats[a].avg_us / r.stats[0].avg_us);
                        }});
}

// A column is wide enough for its title (OSU's widths for OSU's titles); the first one of a
// collective without sizes is OSU's "# Avg Latency(us)" over "%17.2f".
size_t TextReport::width(size_t c) const {
  if (c == 0 && !opts_.collective->sized) return kUnsizedWidth;
  if (columns_[c].title == "Iterations") return kIterationsWidth;
  return std::max<size_t>(kFieldWidth, columns_[c].title.size() + 2);
}

void TextReport::header(std::ostream &out) const {
  const Options &o = opts_;
  out << "# Canopy MPI " << o.collective->title << " Latency Test v" << CANOPY_VERSION_STRING << '\n';
  if (o.compare)
    out << "# Algorithms: " << algorithm_list(o) << " (interleaved: " << o.rounds
        << " rounds per size; ratios are average latencies against " << o.algorithms[0].name << ")\n";
  else
    out << "# Algorithm: " << o.algorithms[0].name << '\n';
  out << "# Method: " << method_name(o.method);
  if (o.method == Method::SmpPaper)
    out << " (purge " << info_.purge_bytes << " bytes, barrier, time each call, maximum over ranks)";
  else
    out << " (barrier, time each call, average over ranks)";
  out << "\n# Ranks: " << info_.ranks << " on " << info_.nodes << (info_.nodes == 1 ? " node" : " nodes") << " (at most "
      << info_.max_ranks_per_node << " per node)";
  if (o.collective->rooted) out << ", root " << root_text(o);
  out << "\n# Datatype: " << o.collective->datatype << ".\n";
  std::string line = o.collective->sized ? "# Size" + std::string(kSizeWidth - 6, ' ') : "# ";
  for (size_t c = 0; c < columns_.size(); ++c)
    line += c == 0 && !o.collective->sized ? columns_[c].title : pad_left(columns_[c].title, width(c));
  out << line << '\n';
}

void TextReport::row(std::ostream &out, const Row &row) const {
  std::string line;
  if (opts_.collective->sized) {
    std::string size = std::to_string(row.bytes);
    line += size + std::string(size.size() < kSizeWidth ? kSizeWidth - size.size() : 1, ' ');
  }
  for (size_t c = 0; c < columns_.size(); ++c) line += pad_left(columns_[c].value(row), width(c));
  out << line << '\n' << std::flush;
}

nlohmann::json json_report(const Options &o, const RunInfo &info, const std::vector<Row> &rows) {
  nlohmann::json algorithms = nlohmann::json::array(), results = nlohmann::json::array();
  for (const Algorithm &a : o.algorithms) algorithms.push_back(a.name);
  for (const Row &r : rows) {
    nlohmann::json latency, validation, ratio;
    for (size_t a = 0; a < o.algorithms.size(); ++a) {
      const Stats &s = r.stats[a];
      latency[o.algorithms[a].name] = {{"avg", s.avg_us}, {"min", s.min_us}, {"max", s.max_us},
                                       {"p50", s.p50_us}, {"p90", s.p90_us}, {"p99", s.p99_us}};
      if (o.validate) validation[o.algorithms[a].name] = {{"passed", s.errors == 0}, {"wrong_bytes", s.errors}};
      if (o.compare && a > 0) ratio[o.algorithms[a].name] = s.avg_us / r.stats[0].avg_us;
    }
    nlohmann::json row = {{"size", r.bytes}, {"iterations", r.iterations}, {"warmup", r.warmup}, {"latency_us", latency}};
    if (o.validate) row["validation"] = validation;
    if (o.compare) row["ratio_to_first"] = ratio;
    if (!r.auto_choice.empty()) row["auto_algorithm"] = r.auto_choice;
    results.push_back(row);
  }
  nlohmann::json doc = {{"tool", "canopy bench"},
                        {"version", CANOPY_VERSION_STRING},
                        {"collective", o.collective->name},
                        {"ranks", info.ranks},
                        {"nodes", info.nodes},
                        {"max_ranks_per_node", info.max_ranks_per_node},
                        {"method", method_name(o.method)},
                        {"algorithms", algorithms},
                        {"compare", o.compare},
                        {"rounds", o.rounds},
                        {"validation", o.validate},
                        {"results", results}};
  if (o.collective->rooted) doc["root"] = root_text(o);
  if (o.method == Method::SmpPaper) doc["purge_bytes"] = info.purge_bytes;
  return doc;
}

void check_plot_prerequisites(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (!is_directory(folder)) throw Error(CANOPY_ERR_IO, "cannot write " + path + ": no folder " + folder);
  CommandResult probe = run_command({"gnuplot", "--version"}, "", "", 30);
  if (probe.exit_code != 0) throw Error(CANOPY_ERR_IO, "--plot needs gnuplot: " + describe_failure("gnuplot", probe));
}

void plot_svg(const Options &o, const RunInfo &info, const std::vector<Row> &rows, const std::string &path) {
  std::string script = "set title 'canopy bench " + std::string(o.collective->name) + ": " + std::to_string(info.ranks) +
            " ranks on " + std::to_string(info.nodes) + (info.nodes == 1 ? " node" : " nodes") + ", method " +
            method_name(o.method) + "'\n";
  script += "set xrange [" + std::to_string(rows.front().bytes) + ":" + std::to_string(rows.back().bytes) + "]\n";
  script += "set xlabel 'message size (bytes" + std::string(o.collective->rooted ? "" : " per rank") + ")'\n";
  double Stats::*field = shown_latency(o);
  script += std::string("set ylabel '") + (o.tail ? "median" : "average") + " latency (us)'\nset logscale xy\nset grid\nset key top left\nset xtics (";
  for (size_t s = rows.front().bytes, n = 0; s <= rows.back().bytes; s *= 4, ++n)
    script += (n ? ", '" : "'") + size_label(s) + "' " + std::to_string(s);
  script += ")\nplot ";
  for (size_t a = 0; a < o.algorithms.size(); ++a)
    script += (a ? ", " : "") + std::string("'-' using 1:2 with linespoints lw 2 pt 7 ps 0.7 title '") + o.algorithms[a].name + "'";
  script += "\n";
  for (size_t a = 0; a < o.algorithms.size(); ++a) {
    for (const Row &r : rows) script += std::to_string(r.bytes) + " " + std::to_string(r.stats[a].*field) + "\n";
    script += "e\n";
  }
  render_gnuplot("svg size 800,500 dynamic noenhanced font 'sans,12' background '#ffffff'", script, path);
}

void check_tuning_prerequisites(const std::string &path) {
  check_output_paths({{"--write-tuning", path}});
  if (std::filesystem::exists(path)) coll::load_tuning_file(path);
}

size_t write_tuning(const Options &o, const RunInfo &info, const std::vector<Row> &rows) {
  double Stats::*field = shown_latency(o);
  std::vector<coll::Fastest> fastest;
  for (const Row &r : rows) {
    coll::Fastest best{static_cast<long long>(r.bytes), ""};
    double best_us = 0;
    for (size_t a = 0; a < o.algorithms.size(); ++a) {
      const std::string &name = o.algorithms[a].is_auto() ? r.auto_choice : o.algorithms[a].name;
      if (!name.empty() && (best.algorithm.empty() || r.stats[a].*field < best_us))
        best.algorithm = name, best_us = r.stats[a].*field;
    }
    fastest.push_back(best);
  }
  coll::SelectionInput shape{info.ranks, info.nodes, info.max_ranks_per_node, 0, info.library};
  std::vector<coll::Rule> rules = coll::measured_rules(shape, fastest, o.collective->sized);
  const std::string &path = o.tuning_file;
  nlohmann::json doc = std::filesystem::exists(path) ? coll::read_tuning_file(path) : nlohmann::json::object();
  write_file_atomic(path, coll::merge_tuning_rules(doc, o.collective->catalog, rules, path));
  return rules.size();
}

}  // namespace canopy::bench
