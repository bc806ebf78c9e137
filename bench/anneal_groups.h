// A probe of where a mapping put its host groups (a benchmark tool, not part of
// the mapper): simulated annealing that moves whole groups (the processes one
// host holds) between hosts of as many slots, starting from the mapping's
// placement. The processes of a group stay together and keep their local slots,
// so each host's off-node bytes stay as they were; only the hops between the
// groups change. What the annealing gains is hop-bytes the mapping lost in
// placing its groups, not in forming them: on the torus meshes rt and Scotch
// place the same groups about equally well, and annealing finds 6-14% less
// (docs/mapping-history.md). Millions of moves: slow by design, deterministic
// for a seed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "map/mapping.h"

namespace canopy::bench {

struct AnnealedGroups {
  std::vector<int> slot_of_process;  // the annealed placement, the best seen
  int64_t moves = 0, accepted = 0;
  double seconds = 0, cpu_seconds = 0;  // wall and CPU time
};

/** Anneals the hosts of the groups of @p slot_of_process for moves_per_host x hosts
    moves: each move swaps a group with the group on, or next to (among the
    kNearHosts hosts of as many slots fewest hops away), the host of one of its
    partner groups, when the two hosts have as many slots (finding the near hosts
    takes hosts^2 hop lookups); the cost is the groups' bytes x hops, the
    hops of a pair averaged over its two directions. The temperature starts at ten
    times the mean bytes between two communicating groups and falls geometrically to
    a thousandth of that. @p progress (if set) is told every tenth of the moves. */
AnnealedGroups anneal_host_groups(const map::Problem &problem, const std::vector<int> &slot_of_process,
                                  int64_t moves_per_host, uint64_t seed,
                                  const std::function<void(const std::string &)> &progress = {});

}  // namespace canopy::bench
