// What `canopy bench` prints and writes (rank 0 only): the OSU table, row by row as sizes
// finish (osu_bcast's header and columns, so scripts that read OSU output read this too; a
// --compare run has one latency column per algorithm and ratios against the first), the
// JSON document, the gnuplot latency plot, and the tuning file's rules.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure.h"
#include "options.h"

namespace canopy::bench {

/** Where the run happened, for the headers. */
struct RunInfo {
  int ranks = 1, nodes = 1, max_ranks_per_node = 1;
  size_t purge_bytes = 0;  // smp-paper only
  std::string library;     // the MPI behind PMPI_*, as the selection rules name it
};

class TextReport {
 public:
  TextReport(const Options &opts, const RunInfo &info);
  /** The "# ..." lines: title, algorithms, method, ranks, datatype, column names. */
  void header(std::ostream &out) const;
  void row(std::ostream &out, const Row &row) const;

 private:
  struct Column {
    std::string title;
    std::function<std::string(const Row &)> value;
  };
  size_t width(size_t column) const;

  const Options &opts_;
  RunInfo info_;
  std::vector<Column> columns_;
};

nlohmann::json json_report(const Options &opts, const RunInfo &info, const std::vector<Row> &rows);

/** Fails early (before minutes of measuring) when gnuplot cannot run or @p path's folder is missing. */
void check_plot_prerequisites(const std::string &path);
/** Average latency (the median with -z) against size, log-log, one line per algorithm, written
    atomically to @p path. */
void plot_svg(const Options &opts, const RunInfo &info, const std::vector<Row> &rows, const std::string &path);

/** Fails early when @p path cannot be written or holds a tuning file that does not parse (its
    rules would be lost). */
void check_tuning_prerequisites(const std::string &path);
/** Merges the rules choosing the fastest compared algorithm at each size ("auto": the algorithm
    its selection ran; the latency the plot draws) for this run's shape into the tuning file opts.tuning_file
    (coll::merge_tuning_rules), written atomically; returns how many rules. */
size_t write_tuning(const Options &opts, const RunInfo &info, const std::vector<Row> &rows);

/** "osu", "smp-paper". */
const char *method_name(Method method);

}  // namespace canopy::bench
