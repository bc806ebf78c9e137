#include "options.h"

#include <algorithm>

#include "cli.h"
#include "common/text.h"

namespace canopy::bench {
namespace {

// OSU's -m: "MAX", "MIN:MAX", "MIN:" or ":MAX".
void parse_sizes(const std::string &text, Options &opts) {
  auto number = [&](std::string_view s, size_t &out) {
    uint64_t v = 0;
    if (!parse_uint(s, v, 10) || v > (1ull << 30))
      throw CLI::ValidationError("-m", "invalid message size '" + printable(text) + "' (MIN:MAX, 0 to 1073741824 bytes)");
    out = static_cast<size_t>(v);
  };
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    number(text, opts.max_bytes);
  } else {
    std::string_view lo = std::string_view(text).substr(0, colon), hi = std::string_view(text).substr(colon + 1);
    if (lo.empty() && hi.empty()) throw CLI::ValidationError("-m", "empty message size range ':'");
    if (!lo.empty()) number(lo, opts.min_bytes);
    if (!hi.empty()) number(hi, opts.max_bytes);
  }
  if (opts.min_bytes == 0) throw CLI::ValidationError("-m", "the minimum message size must be at least 1 byte");
  if (opts.min_bytes > opts.max_bytes)
    throw CLI::ValidationError("-m", "minimum " + std::to_string(opts.min_bytes) + " is above maximum " +
                                         std::to_string(opts.max_bytes));
}

// OSU's -k: "fixed:RANK" or "rotate" (the root moves to the next rank at every iteration).
void parse_root(const std::string &text, int ranks, Options &opts) {
  if (text == "rotate") {
    opts.rotate_root = true;
    return;
  }
  uint64_t rank = 0;
  if (!starts_with(text, "fixed:") || !parse_uint(std::string_view(text).substr(6), rank, 10))
    throw CLI::ValidationError("-k", "invalid root '" + printable(text) + "' (fixed:RANK or rotate)");
  if (rank >= static_cast<uint64_t>(ranks))
    throw CLI::ValidationError("-k", "root rank " + std::to_string(rank) + " is not below the " +
                                         std::to_string(ranks) + " ranks");
  opts.root = static_cast<int>(rank);
}

Algorithm parse_algorithm(const std::string &name, const CollectiveEntry &coll) {
  if (name == "auto" || coll::find_algorithm(coll.catalog, name)) return {name};  // the catalogue has "mpi"
  throw CLI::ValidationError("--algorithm", "no " + std::string(coll.name) + " algorithm '" + printable(name) +
                                                "' (auto, " + coll::algorithm_names(coll.catalog) + ")");
}

}  // namespace

std::vector<size_t> Options::sizes() const {
  if (!collective->sized) return {0};
  std::vector<size_t> out;
  for (size_t s = min_bytes; s <= max_bytes; s *= 2) out.push_back(s);
  return out;
}

void declare_options(CLI::App &app, RawOptions &raw, Options &opts) {
  app.add_option("COLLECTIVE", raw.collective, "The collective to measure: " + collective_names())->required();
  app.add_option("-m,--message-size", raw.sizes, "[MIN:]MAX message sizes in bytes, powers of two from MIN "
                                                  "(default 1:1048576; Allgather, Scatter, Gather, "
                                                  "Alltoall: bytes per rank block; Reduce, Allreduce: "
                                                  "whole MPI_FLOATs, from 4)");
  app.add_option("-i,--iterations", raw.iterations, "Timed iterations per size and algorithm (default 1000, "
                                                    "100 above 8 KiB)")->check(cli::at_least(1));
  app.add_option("-x,--warmup", raw.warmup, "Untimed warm-up iterations per size and algorithm (default 100, "
                                            "10 above 8 KiB)")->check(cli::at_least(0));
  app.add_flag("-f,--full", opts.full, "Also print the minimum and maximum latency and the iterations");
  app.add_flag("-z,--tail-lat", opts.tail, "Also print the P50, P90 and P99 latencies (OSU 7's -z): robust "
                                           "where the average is not, on a shared machine");
  app.add_flag("-c,--validation", opts.validate, "Check every timed call's result against the expected "
                                                 "data (Validation column; exit status 1 on a mismatch)");
  app.add_option("-k,--root-rank", raw.root, "Root of rooted collectives: fixed:RANK (default fixed:0) or rotate "
                                            "(next rank at every iteration)");
  CLI::Option *algorithm = app.add_option("--algorithm", raw.algorithm, "mpi (the MPI library's own collective), auto (Canopy's "
                                               "selection rules, the default) or a Canopy algorithm name");
  CLI::Option *compare = app.add_option("--compare", raw.compare, "A,B,...: measure these algorithms interleaved (each size, each "
                                           "algorithm in turn, in rounds); ratios against the first. all: mpi, "
                                           "every Canopy algorithm that can run on this job, and auto");
  compare->excludes(algorithm);
  app.add_option("--rounds", opts.rounds, "--compare: rounds per size (default 10)")->check(cli::at_least(1));
  app.add_option("--method", raw.method, "osu (default: barrier, time each call, average over ranks) or "
                                         "smp-paper (purge caches, barrier, time, maximum over ranks)");
  app.add_option("--purge-bytes", opts.purge_bytes, "smp-paper: bytes written to purge caches before each "
                                                    "call (default: the L2 cache size)")
      ->check(cli::at_least(0, 1 << 30));
  app.add_flag("--json", opts.json, "Write the results as JSON on stdout instead of the OSU table");
  app.add_option("--plot", opts.plot, "Draw latency against size (log-log, one line per algorithm) into "
                                      "this SVG file with gnuplot");
  app.add_option("--write-tuning", opts.tuning_file,
                 "--compare: write rules that choose the fastest compared algorithm at each size (for auto, the "
                 "algorithm its rules ran; by the average, the median with -z) for this run's ranks, nodes, "
                 "ranks per node and MPI into "
                 "this tuning file (coll_tuning_file), in place of its rules for that shape; the file's other "
                 "rules are kept. Not written when a validated call failed");
}

void finish_options(const RawOptions &raw, int ranks, Options &opts) {
  opts.collective = find_collective(raw.collective);
  if (!opts.collective)
    throw CLI::ValidationError("COLLECTIVE", "unknown collective '" + printable(raw.collective) + "' (" +
                                                 collective_names() + ")");
  const CollectiveEntry &coll = *opts.collective;
  if (!raw.sizes.empty()) {
    if (!coll.sized) throw CLI::ValidationError("-m", std::string(coll.name) + " has no message size");
    parse_sizes(raw.sizes, opts);
  }
  if (coll.sized) {
    // Whole elements only: the sizes start at the first multiple of the datatype's size, as
    // osu_reduce's start at 4 bytes, and doubling keeps them multiples.
    size_t element = coll.element_bytes;
    opts.min_bytes = (opts.min_bytes + element - 1) / element * element;
    if (opts.min_bytes > opts.max_bytes)
      throw CLI::ValidationError("-m", std::string(coll.name) + " needs at least " + std::to_string(element) +
                                           " bytes (one " + coll.datatype + ")");
  }
  if (raw.iterations > 0) opts.iterations = opts.iterations_large = raw.iterations;
  if (raw.warmup >= 0) opts.warmup = opts.warmup_large = raw.warmup;
  if (opts.validate && !coll.fill)
    throw CLI::ValidationError("-c", std::string(coll.name) + " has no data to validate");
  if (!raw.root.empty()) {
    if (!coll.rooted) throw CLI::ValidationError("-k", std::string(coll.name) + " has no root");
    parse_root(raw.root, ranks, opts);
  }

  opts.compare = !raw.compare.empty();
  opts.algorithms.clear();
  opts.compare_all = raw.compare == "all";
  if (opts.compare_all) {
    opts.algorithms.push_back({coll::kLibraryAlgorithm});
    for (const coll::AlgorithmInfo &info : coll::algorithm_catalog())
      if (info.coll == coll.catalog && info.name != std::string(coll::kLibraryAlgorithm))
        opts.algorithms.push_back({info.name});
    opts.algorithms.push_back({"auto"});
  } else if (opts.compare) {
    for (std::string_view name : split(raw.compare, ',')) {
      Algorithm alg = parse_algorithm(std::string(trim(name)), coll);
      for (const Algorithm &seen : opts.algorithms)
        if (seen.name == alg.name) throw CLI::ValidationError("--compare", "'" + alg.name + "' is listed twice");
      opts.algorithms.push_back(alg);
    }
    if (opts.algorithms.size() < 2) throw CLI::ValidationError("--compare", "needs at least two algorithms (A,B)");
  } else {
    opts.algorithms.push_back(parse_algorithm(raw.algorithm, coll));
  }
  opts.rounds = opts.compare ? opts.rounds : 1;

  if (raw.method == "osu") opts.method = Method::Osu;
  else if (raw.method == "smp-paper") opts.method = Method::SmpPaper;
  else throw CLI::ValidationError("--method", "unknown method '" + printable(raw.method) + "' (osu, smp-paper)");
  if (opts.purge_bytes && opts.method != Method::SmpPaper)
    throw CLI::ValidationError("--purge-bytes", "applies to --method smp-paper only");
  if (!opts.plot.empty() && !coll.sized)
    throw CLI::ValidationError("--plot", std::string(coll.name) + " has no message sizes to plot against");
  if (!opts.tuning_file.empty() && !opts.compare)
    throw CLI::ValidationError("--write-tuning", "needs --compare (the algorithms to choose from)");
  if (!opts.plot.empty() && (opts.plot.size() < 5 || opts.plot.substr(opts.plot.size() - 4) != ".svg"))
    throw CLI::ValidationError("--plot", "'" + printable(opts.plot) + "' is not a FILE.svg");
}

}  // namespace canopy::bench
