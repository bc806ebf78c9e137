// The command line of `canopy bench` (OSU-compatible -m/-i/-x/-f/-c/-k plus Canopy's
// --algorithm, --compare, --method, --json, --plot, --write-tuning). Parsing needs no MPI: every
// rank parses the same arguments and reaches the same verdict; rank 0 reports it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "collectives.h"

namespace canopy::bench {

enum class Method { Osu, SmpPaper };

/** An algorithm to measure: "mpi" (the library's PMPI_*), "auto" (Canopy's selection
    rules) or a catalogue name (forced). */
struct Algorithm {
  std::string name;
  bool is_mpi() const { return name == "mpi"; }
  bool is_auto() const { return name == "auto"; }
  /** What to pass to Canopy's entry point: nullptr for the rules. */
  const char *forced() const { return is_auto() ? nullptr : name.c_str(); }
};

struct Options {
  const CollectiveEntry *collective = nullptr;
  size_t min_bytes = 1, max_bytes = 1 << 20;  // OSU: 1 B .. 1 MiB
  int iterations = 1000, iterations_large = 100;  // OSU: above 8 KiB the large counts apply
  int warmup = 100, warmup_large = 10;
  bool full = false, validate = false, tail = false;
  bool rotate_root = false;
  int root = 0;
  std::vector<Algorithm> algorithms;  // one, or several with --compare
  bool compare = false;
  bool compare_all = false;           // --compare all: those that cannot run are left out, not refused
  int rounds = 10;                    // --compare: interleaved rounds per size
  Method method = Method::Osu;
  size_t purge_bytes = 0;             // smp-paper: 0 = the L2 cache size
  bool json = false;
  std::string plot;
  std::string tuning_file;            // --write-tuning

  /** Sizes to measure: min, 2 min, ... up to max (one 0 for a collective without sizes). */
  std::vector<size_t> sizes() const;
  int iterations_for(size_t bytes) const { return bytes > kLargeMessage ? iterations_large : iterations; }
  int warmup_for(size_t bytes) const { return bytes > kLargeMessage ? warmup_large : warmup; }
  static constexpr size_t kLargeMessage = 8192;  // OSU's LARGE_MESSAGE_SIZE
};

/** Declares the options on @p app; @p raw receives what needs checking after parsing. */
struct RawOptions {
  std::string collective, sizes, root, algorithm = "auto", compare, method = "osu";
  int iterations = -1, warmup = -1;
};
void declare_options(CLI::App &app, RawOptions &raw, Options &opts);

/** Checks and converts what CLI11 cannot (sizes, root, names against the table and the
    catalogue) for a communicator of @p ranks; throws canopy::Error(INVALID_ARG) with a message
    for the user. */
void finish_options(const RawOptions &raw, int ranks, Options &opts);

}  // namespace canopy::bench
