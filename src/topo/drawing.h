// Graphviz drawings of a fabric: switches ranked by level, hosts grouped in a
// box under their leaf switch, links coloured by data rate with a legend.
// Large fabrics draw one box per leaf switch instead of every host.
#pragma once
#include <string>

#include "topo/topology.h"

namespace canopy::topo {

struct DrawingOptions {
  int max_hosts_drawn = 256;  // above this, each leaf's hosts become one table row
};

std::string fabric_dot(const Topology &topo, const DrawingOptions &options = {});

/** Renders @p dot to @p svg_path with Graphviz `dot` (atomically); throws Error(IO). */
void render_svg(const std::string &dot, const std::string &svg_path);

}  // namespace canopy::topo
