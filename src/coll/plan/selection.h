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
  bool operator==(const Range &other) const { return min == other.min && max == other.max; }
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

/** @p rule as a tuning file holds it, keys in the order of the docs (parse_tuning_rules reads
    it back unchanged). */
nlohmann::ordered_json rule_json(const Rule &rule);

/** A measured message size and the algorithm that was fastest there. */
struct Fastest {
  long long bytes = 0;
  std::string algorithm;
};

/** Rules for one communicator shape (@p shape's comm size, nodes, ranks per node and library, each
    matched exactly) that choose at every measured size its fastest algorithm: a size's choice
    holds up to the next measured size, neighbouring sizes with the same choice share a rule, and
    the largest measured size ends the last rule (larger messages are left to the rules after).
    @p measured: ascending sizes; @p sized false (Barrier): one entry, a rule for any bytes. */
std::vector<Rule> measured_rules(const SelectionInput &shape, const std::vector<Fastest> &measured, bool sized);

/** The text of the tuning file @p doc (its JSON; an empty object for a new file) with @p rules
    first among @p coll's rules, in place of those it had for the same shape (equal comm size,
    nodes, ranks per node and library): measuring a shape again replaces its rules; other shapes'
    rules, other collectives and other keys stay. One rule per line. Throws Error(PARSE) naming
    @p path when @p doc's rules do not parse (parse_tuning_rules). */
std::string merge_tuning_rules(const nlohmann::json &doc, Collective coll, const std::vector<Rule> &rules,
                               const std::string &path);

/** The built-in table (CollConfig::select puts the overrides first; also used when a forced or
    tuned algorithm cannot run on the hierarchy). */
Selection select_builtin(Collective coll, const SelectionInput &in);

}  // namespace canopy::coll
