// Graphviz drawings of a fabric: switches ranked by level, hosts grouped in a
// box under their leaf switch, links coloured by data rate with a legend.
// Large fabrics draw one box per leaf switch instead of every host.
// With link loads (canopy map --draw-load), links are coloured and sized by
// the bytes they carry instead, and a job's hosts are highlighted.
#pragma once
#include <string>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo {

struct DrawingOptions {
  int max_hosts_drawn = 256;  // above this, each leaf's hosts become one table row
  std::string title;          // empty: the source, its hosts and switches
  /** Bytes each link of Topology::links() carries (the busier of its two
      directions): when given, links are coloured and sized by load, from the
      coldest colour (no traffic) to the hottest (the busiest link), instead of by rate. */
  std::vector<double> link_bytes;
  std::vector<int> highlighted_hosts;  // hosts (node indexes) drawn highlighted: a job's allocation
};

std::string fabric_dot(const Topology &topo, const DrawingOptions &options = {});

/** The colours of the load scale, coldest (links without traffic) first, hottest last. */
const std::vector<std::string> &load_colours();

/** Renders @p dot to @p svg_path with Graphviz `dot` (atomically); throws Error(IO). */
void render_svg(const std::string &dot, const std::string &svg_path);

}  // namespace canopy::topo
