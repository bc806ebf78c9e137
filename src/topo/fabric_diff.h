// What changed between two loads of one fabric, in the terms that matter to
// routing: nodes (by node GUID), their LIDs and descriptions, every link with
// its rate, and the forwarding-table entries of every switch. Used by
// canopy-collect --watch to publish a dump only when the fabric changed; the
// tools' own text (timestamps, node order) plays no part.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo {

struct FabricDiff {
  std::vector<std::string> items;  // the first differences, one sentence each
  size_t total = 0;                // how many differences were found in all

  bool same() const { return total == 0; }
  /** "a; b; c (and N more)", or "no difference". */
  std::string summary() const;
};

/** Compares @p before with @p after: nodes missing or new, type, description,
    port count, LIDs and port GUIDs, each port's peer (node GUID and port) and
    rate, and, for every switch in both, the egress port of every LID from 1 to
    128 above the highest LID in use (so LMC ranges are covered). Keeps the
    first @p max_items descriptions. Both topologies must be finalized. */
FabricDiff diff_fabrics(const Topology &before, const Topology &after, size_t max_items = 5);

}  // namespace canopy::topo
