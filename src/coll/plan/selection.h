// Selection rules: the built-in table and the JSON tuning file's rules
// (CollConfig::select applies them after the CANOPY_<COLL>_ALGORITHM override).
// Pure logic, unit-tested.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/plan/catalog.h"

namespace canopy::coll {

/** What the rules look at. bytes: the Bcast, Reduce or Allreduce message; one rank's block for
    Allgather, Scatter and Gather; one sender-receiver block for Alltoall; 0 for Barrier. */
struct SelectionInput {
  int comm_size = 1;
  int nodes = 1;
  int max_ranks_per_node = 1;
  size_t bytes = 0;
  std::string library = {};  // the MPI serving PMPI_*: "open_mpi", "mpich" or "other"
};

/** Inclusive ranges; a max of -1 means unbounded. */
struct Range {
  long long min = 0, max = -1;
  bool contains(long long v) const { return v >= min && (max < 0 || v <= max); }
};

struct Rule {
  Range comm_size, nodes, ranks_per_node, bytes;
  std::string algorithm;
  std::string library = {};  // "": any MPI; else the rule holds under this one only (it was measured there)
  bool matches(const SelectionInput &in) const;
};

struct Selection {
  std::string algorithm;
  std::string reason;  // "environment CANOPY_BCAST_ALGORITHM", "tuning file F rule 2", "built-in rule 3"
};

const std::vector<Rule> &builtin_rules(Collective coll);

/** Rules for @p coll from a tuning file's JSON ({"bcast": [{"comm_size": [1, 64], "bytes": [0, 65536],
    "algorithm": "knomial"}, ...]}). Throws Error(PARSE) naming @p path and the rule on bad input. */
std::vector<Rule> parse_tuning_rules(const nlohmann::json &doc, Collective coll, const std::string &path);

/** The built-in table (CollConfig::select puts the overrides first; also used when a forced or
    tuned algorithm cannot run on the hierarchy). */
Selection select_builtin(Collective coll, const SelectionInput &in);

}  // namespace canopy::coll
