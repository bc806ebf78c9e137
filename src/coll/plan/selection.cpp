#include "coll/plan/selection.h"

#include <map>

#include "common/error.h"

namespace canopy::coll {
namespace {

constexpr long long kAny = -1;
const char *const kOpenMpi = "open_mpi";

// Rules marked "2 ranks" and "16 ranks" come from measurements on one node with 2 ranks (a
// 2-core VM) and 16 ranks (a 16-core single-socket Xeon) against Open MPI 4.1.4
// (docs/benchmarks.md, "Collectives on one node"), so they hold under Open MPI only: where its
// own collective was faster, they hand the call to it ("mpi"), so that Canopy is never the
// slower choice there. The 16-rank rules serve 3 to 16 ranks and more on one node, measured at
// 16 only. Other MPIs, and several nodes, keep the papers' choices until measured. The rules
// that take Allgather (multi_leader_shm) and Allreduce (shm) up to 1 KiB to Canopy were
// measured with the default coll_shm_cell_bytes (1 KiB), which serves those sizes through the
// segment's cells; with smaller cells they would choose slower stages.

// Starting points from the papers and MPICH/MVAPICH practice, not yet tuned on
// real clusters: shared memory inside a node, hierarchical across nodes when
// nodes hold several ranks, and by size between nodes (k-nomial for latency,
// scatter+allgather for bandwidth).
const std::vector<Rule> kBcastRules = {
    {{}, {1, 1}, {2, 2}, {0, 16383}, "shm", kOpenMpi},  // 2 ranks: 0.5-0.9x the library's time
    {{}, {1, 1}, {2, 2}, {}, "mpi", kOpenMpi},           // 2 ranks: single-copy transfers beat two copies
    {{1, 1}, {}, {}, {}, "binomial"},
    {{}, {1, 1}, {}, {}, "shm"},
    {{}, {2, kAny}, {2, kAny}, {}, "two_level"},
    {{}, {}, {}, {0, 12287}, "knomial"},
    {{}, {}, {}, {12288, 524287}, "scatter_rd_allgather"},
    {{}, {}, {}, {}, "scatter_ring_allgather"},
};
// Allgather across nodes with several ranks per node follows Table 1 of the multi-leader
// paper (measured there on 4 nodes x 16 cores, 4 sockets): multi-leader with point-to-point
// aggregation for small blocks, with shared memory for medium ones, and the conventional ring
// for large ones (the hierarchy's extra copies cost about 5% there). The 1 KiB and 16 KiB
// borders are reasoned (16 KiB x 8 ranks of a socket fit the default 256 KiB segment in
// one stage), not yet measured across nodes. A single node under Open MPI takes the node's
// shared segment (one leader group per socket) up to 32 KiB, as measured at 16 ranks on one
// socket; under other MPIs it keeps the flat algorithms, which the paper used there.
const std::vector<Rule> kAllgatherRules = {
    {{}, {1, 1}, {2, 2}, {0, 1024}, "multi_leader_shm", kOpenMpi},  // 2 ranks: 0.64-0.92x (cells)
    {{}, {1, 1}, {2, 2}, {}, "mpi", kOpenMpi},  // 2 ranks: one exchange; the library's was faster from 8 KiB
    {{}, {1, 1}, {3, kAny}, {0, 32768}, "multi_leader_shm", kOpenMpi},  // 16 ranks: 0.27-0.76x
    {{}, {1, 1}, {3, kAny}, {}, "mpi", kOpenMpi},  // 16 ranks: multi_leader_shm 1.0-1.09x, recursive doubling 1.0-1.05x
    {{}, {2, kAny}, {2, kAny}, {0, 1023}, "multi_leader_p2p"},
    {{}, {2, kAny}, {2, kAny}, {1024, 16383}, "multi_leader_shm"},
    {{}, {}, {}, {0, 8191}, "recursive_doubling"},
    {{}, {}, {}, {}, "ring"},
};
// Barrier: one Group_sync on one node, 0.62x the library's at 2 ranks and 0.57-0.60x at 16.
const std::vector<Rule> kBarrierRules = {
    {{1, 1}, {}, {}, {}, "dissemination"},
    {{}, {}, {2, kAny}, {}, "shm"},
    {{}, {}, {}, {}, "dissemination"},
};
// Reductions: shared memory inside a node up to 64 KiB (above, the staged shared-memory
// reduction needs two Group_syncs per area-full, and Rabenseifner over MPI's own transport
// won in a 4-rank run on 2 cores), hierarchical when nodes hold several ranks, else by size
// as in MPICH (2 KiB): a whole-message tree or recursive doubling for latency, Rabenseifner's
// reduce-scatter + gather/allgather for bandwidth.
const std::vector<Rule> kReduceRules = {
    {{}, {1, 1}, {2, 2}, {}, "mpi", kOpenMpi},  // 2 ranks: one send and one combine; the library's was faster
    {{}, {1, 1}, {3, kAny}, {0, 32768}, "mpi", kOpenMpi},  // 16 ranks: binomial 0.95-1.38x, shm 1.4-5.3x
    {{}, {1, 1}, {3, kAny}, {}, "binomial", kOpenMpi},     // 16 ranks: 0.49-0.79x from 64 KiB
    {{1, 1}, {}, {}, {}, "binomial"},
    {{}, {1, 1}, {}, {0, 65535}, "shm"},
    {{}, {2, kAny}, {2, kAny}, {}, "two_level"},
    {{}, {}, {}, {0, 2047}, "binomial"},
    {{}, {}, {}, {}, "reduce_scatter_gather"},
};
const std::vector<Rule> kAllreduceRules = {
    {{}, {1, 1}, {2, 2}, {0, 8191}, "shm", kOpenMpi},                    // 2 ranks: 0.40-0.88x (cells to 1 KiB)
    {{}, {1, 1}, {2, 2}, {8192, 524287}, "recursive_doubling", kOpenMpi},  // 2 ranks: 0.34-0.66x
    {{}, {1, 1}, {2, 2}, {}, "ring", kOpenMpi},                         // 2 ranks: 0.66-0.70x
    {{}, {1, 1}, {3, kAny}, {0, 1024}, "shm", kOpenMpi},      // 16 ranks: 0.45-0.93x (cells)
    {{}, {1, 1}, {3, kAny}, {1025, 2048}, "mpi", kOpenMpi},   // 16 ranks: shm 1.3-1.6x, recursive doubling 0.98-1.04x
    {{}, {1, 1}, {3, kAny}, {2049, 32768}, "shm", kOpenMpi},  // 16 ranks: 0.48-0.70x
    {{}, {1, 1}, {3, kAny}, {}, "mpi", kOpenMpi},             // 16 ranks: reduce_scatter_allgather 1.01-1.17x
    {{1, 1}, {}, {}, {}, "recursive_doubling"},
    {{}, {1, 1}, {}, {0, 65535}, "shm"},
    {{}, {2, kAny}, {2, kAny}, {}, "two_level"},
    {{}, {}, {}, {0, 2047}, "recursive_doubling"},
    {{}, {}, {}, {}, "reduce_scatter_allgather"},
};

// Scatter and Gather (bytes: one rank's block). One node: the paper's group access up to
// 128 KiB in all (8 KiB blocks at 16 ranks), then a flat tree over MPI's own shared-memory
// transport; several ranks per node: through the node leaders; otherwise binomial while
// latency dominates, linear (no forwarding, so each byte crosses the network once) above.
const std::vector<Rule> kRootedRules = {
    {{}, {1, 1}, {2, 2}, {0, 8191}, "shm", kOpenMpi},  // 2 ranks: 0.66-0.86x up to 8 KiB blocks (Scatter)
    {{}, {1, 1}, {2, 2}, {}, "mpi", kOpenMpi},
    {{}, {1, 1}, {}, {0, 8191}, "shm"},
    {{}, {1, 1}, {}, {}, "linear"},
    {{}, {2, kAny}, {2, kAny}, {0, 65535}, "two_level"},
    {{}, {}, {}, {0, 16383}, "binomial"},
    {{}, {}, {}, {}, "linear"},
};
std::vector<Rule> before_rooted(std::vector<Rule> rules) {
  rules.insert(rules.end(), kRootedRules.begin(), kRootedRules.end());
  return rules;
}
const std::vector<Rule> kScatterRules = before_rooted({
    {{}, {1, 1}, {3, kAny}, {0, 256}, "shm", kOpenMpi},         // 16 ranks: 0.52-0.90x
    {{}, {1, 1}, {3, kAny}, {257, 16384}, "linear", kOpenMpi},  // 16 ranks: 0.46-0.73x
    {{}, {1, 1}, {3, kAny}, {}, "mpi", kOpenMpi},               // 16 ranks: linear 1.01-1.03x
});
const std::vector<Rule> kGatherRules = before_rooted({
    {{}, {1, 1}, {3, kAny}, {0, 256}, "linear", kOpenMpi},    // 16 ranks: 0.41-0.72x (512 B: 1.61x)
    {{}, {1, 1}, {3, kAny}, {257, 16384}, "shm", kOpenMpi},   // 16 ranks: 0.40-0.73x
    {{}, {1, 1}, {3, kAny}, {}, "mpi", kOpenMpi},             // 16 ranks: binomial 1.17-1.23x, shm 1.5-3.7x
});
// Alltoall (bytes: one block, i.e. what one rank sends one other). The paper keeps shared
// memory to one node and measured pairwise exchange as better across nodes even for small
// blocks; MPICH/MVAPICH aggregate per node (message count nodes^2, not p^2) and use Bruck
// (log p rounds) while per-message latency dominates, pairwise for large blocks.
const std::vector<Rule> kAlltoallRules = {
    {{}, {1, 1}, {2, 2}, {0, 8191}, "shm", kOpenMpi},  // 2 ranks: 0.6-1.0x up to 8 KiB blocks
    {{}, {1, 1}, {2, 2}, {}, "mpi", kOpenMpi},
    {{}, {1, 1}, {3, kAny}, {0, 1024}, "shm", kOpenMpi},  // 16 ranks: 0.27-0.59x
    {{}, {1, 1}, {3, kAny}, {}, "mpi", kOpenMpi},         // 16 ranks: shm 0.92-2.2x, pairwise 0.9-1.7x
    {{}, {1, 1}, {}, {0, 4095}, "shm"},
    {{}, {2, kAny}, {2, kAny}, {0, 256}, "hierarchical"},
    {{8, kAny}, {}, {}, {0, 256}, "bruck"},
    {{}, {}, {}, {}, "pairwise"},
};

Range parse_range(const nlohmann::json &value, const std::string &where) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() ||
      !(value[1].is_number_integer() || value[1].is_null()))
    throw Error(CANOPY_ERR_PARSE, where + ": expected [min, max] with integers (max may be null)");
  Range r{value[0].get<long long>(), value[1].is_null() ? kAny : value[1].get<long long>()};
  if (r.min < 0 || (r.max >= 0 && r.max < r.min)) throw Error(CANOPY_ERR_PARSE, where + ": empty or negative range");
  return r;
}

Rule parse_rule(const nlohmann::json &item, Collective coll, const std::string &where) {
  if (!item.is_object()) throw Error(CANOPY_ERR_PARSE, where + ": a rule must be an object");
  Rule rule;
  for (auto &[key, value] : item.items()) {
    if (key == "comm_size") rule.comm_size = parse_range(value, where + " comm_size");
    else if (key == "nodes") rule.nodes = parse_range(value, where + " nodes");
    else if (key == "ranks_per_node") rule.ranks_per_node = parse_range(value, where + " ranks_per_node");
    else if (key == "bytes") rule.bytes = parse_range(value, where + " bytes");
    else if (key == "algorithm" && value.is_string()) rule.algorithm = value.get<std::string>();
    else if (key == "library" && value.is_string()) rule.library = value.get<std::string>();
    else throw Error(CANOPY_ERR_PARSE, where + ": unknown or mistyped key '" + key + "'");
  }
  if (!find_algorithm(coll, rule.algorithm))
    throw Error(CANOPY_ERR_PARSE, where + ": '" + rule.algorithm + "' is not a " + collective_name(coll) +
                                      " algorithm (" + algorithm_names(coll) + ")");
  return rule;
}

}  // namespace

bool Rule::matches(const SelectionInput &in) const {
  return (library.empty() || library == in.library) && comm_size.contains(in.comm_size) && nodes.contains(in.nodes) &&
         ranks_per_node.contains(in.max_ranks_per_node) && bytes.contains(static_cast<long long>(in.bytes));
}

const std::vector<Rule> &builtin_rules(Collective coll) {
  switch (coll) {
    case Collective::Bcast: return kBcastRules;
    case Collective::Allgather: return kAllgatherRules;
    case Collective::Barrier: return kBarrierRules;
    case Collective::Scatter: return kScatterRules;
    case Collective::Gather: return kGatherRules;
    case Collective::Alltoall: return kAlltoallRules;
    case Collective::Reduce: return kReduceRules;
    case Collective::Allreduce: return kAllreduceRules;
  }
  return kBarrierRules;
}

std::vector<Rule> parse_tuning_rules(const nlohmann::json &doc, Collective coll, const std::string &path) {
  std::vector<Rule> rules;
  auto it = doc.find(collective_name(coll));
  if (it == doc.end()) return rules;
  if (!it->is_array()) throw Error(CANOPY_ERR_PARSE, path + ": \"" + collective_name(coll) + "\" must be a list of rules");
  for (size_t i = 0; i < it->size(); ++i)
    rules.push_back(parse_rule((*it)[i], coll, path + ": " + collective_name(coll) + " rule " + std::to_string(i + 1)));
  return rules;
}

namespace {

nlohmann::ordered_json range_json(const Range &r) {
  return {r.min, r.max < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(r.max)};
}

bool same_shape(const Rule &a, const Rule &b) {
  return a.comm_size == b.comm_size && a.nodes == b.nodes && a.ranks_per_node == b.ranks_per_node &&
         a.library == b.library;
}

}  // namespace

nlohmann::ordered_json rule_json(const Rule &rule) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (auto [key, range] : {std::pair{"comm_size", &rule.comm_size}, std::pair{"nodes", &rule.nodes},
                            std::pair{"ranks_per_node", &rule.ranks_per_node}, std::pair{"bytes", &rule.bytes}})
    if (!(*range == Range{})) out[key] = range_json(*range);
  if (!rule.library.empty()) out["library"] = rule.library;
  out["algorithm"] = rule.algorithm;
  return out;
}

std::vector<Rule> measured_rules(const SelectionInput &shape, const std::vector<Fastest> &measured, bool sized) {
  Rule base;
  base.comm_size = {shape.comm_size, shape.comm_size};
  base.nodes = {shape.nodes, shape.nodes};
  base.ranks_per_node = {shape.max_ranks_per_node, shape.max_ranks_per_node};
  base.library = shape.library;
  std::vector<Rule> rules;
  for (size_t i = 0; i < measured.size(); ++i) {
    long long end = i + 1 < measured.size() ? measured[i + 1].bytes - 1 : measured[i].bytes;
    if (!rules.empty() && rules.back().algorithm == measured[i].algorithm) {
      rules.back().bytes.max = end;
      continue;
    }
    Rule &rule = rules.emplace_back(base);
    rule.algorithm = measured[i].algorithm;
    if (sized) rule.bytes = {measured[i].bytes, end};
  }
  return rules;
}

std::string merge_tuning_rules(const nlohmann::json &doc, Collective coll, const std::vector<Rule> &rules,
                               const std::string &path) {
  std::map<std::string, std::string> rule_lines;  // each collective's rules, one per line
  for (Collective c : all_collectives()) {
    std::vector<Rule> kept = c == coll ? rules : std::vector<Rule>{};
    for (const Rule &rule : parse_tuning_rules(doc, c, path))
      if (c != coll || rules.empty() || !same_shape(rule, rules.front())) kept.push_back(rule);
    std::string &text = rule_lines[collective_name(c)] = "[";
    for (size_t i = 0; i < kept.size(); ++i) text += (i ? ",\n    " : "\n    ") + rule_json(kept[i]).dump();
    text += kept.empty() ? "]" : "\n  ]";
  }
  nlohmann::json merged = doc;
  merged[collective_name(coll)] = nullptr;  // the key in its place, for a new file
  std::string out;
  for (auto &[key, value] : merged.items()) {
    auto lines = rule_lines.find(key);
    out += (out.empty() ? "{\n  " : ",\n  ") + nlohmann::json(key).dump() + ": " +
           (lines != rule_lines.end() ? lines->second : value.dump());
  }
  return out + "\n}\n";
}

Selection select_builtin(Collective coll, const SelectionInput &in) {
  const std::vector<Rule> &rules = builtin_rules(coll);
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i].matches(in)) return {rules[i].algorithm, "built-in rule " + std::to_string(i + 1)};
  throw Error(CANOPY_ERR_INTERNAL, std::string("no built-in ") + collective_name(coll) + " rule matched");
}

}  // namespace canopy::coll
