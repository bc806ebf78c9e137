// The fabric as a SimGrid platform (DTD 4.1), so that any rank placement can be
// evaluated in SMPI on the same network: every host, every switch as a router,
// every cable as a SPLITDUPLEX link at its data rate (each direction its own
// resource), and one explicit route per ordered host pair that follows exactly
// the route Canopy finds (forwarding tables hop by hop when loaded, dimension
// order on tori, shortest paths otherwise). See docs/simgrid.md.
#pragma once
#include <string>

#include "topo/topology.h"

namespace canopy::topo {

struct SimgridOptions {
  double link_latency_us = 0.1;  // latency of every link (per hop), microseconds
  double host_speed_gflops = 1;  // per core; SMPI scales computation by it
  int host_cores = 1;
};

struct SimgridPlatformStats {
  size_t hosts = 0, routers = 0, links = 0;
  size_t routes = 0;            // <route> elements written
  size_t symmetric_routes = 0;  // of them, those that also describe the reverse direction
  size_t skipped_hosts = 0;     // hosts without a cabled port (left out)
};

/** The platform XML. Throws Error(ROUTE) when a host pair has no route (an LFT
    hole or loop), Error(INVALID_ARG) for a link without a known rate or bad options. */
std::string simgrid_platform_xml(const Topology &topo, const SimgridOptions &options,
                                 SimgridPlatformStats *stats = nullptr);

/** simgrid_platform_xml() written to @p path atomically (nothing is left on error). */
SimgridPlatformStats write_simgrid_platform(const Topology &topo, const SimgridOptions &options,
                                            const std::string &path);

/** The SimGrid host id of @p host: its name, or name@GUID for a second HCA that
    shares the name of an earlier host (SimGrid ids must be unique). */
std::string simgrid_host_id(const Topology &topo, int host);

}  // namespace canopy::topo
