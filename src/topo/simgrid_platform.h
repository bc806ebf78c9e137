// The fabric as a SimGrid platform (DTD 4.1), so that any rank placement can be
// evaluated in SMPI on the same network: every host, every switch as a router,
// every cable as a SPLITDUPLEX link at its data rate (each direction its own
// resource), and one explicit route per ordered host pair that follows exactly
// the route Canopy finds (forwarding tables hop by hop when loaded, dimension
// order on tori, shortest paths otherwise). An allocation's platform holds only
// the cables its routes cross and the switches at their ends. See docs/simgrid.md.
//
// With a node model the inside of each node is modelled too: one SimGrid host
// per core in a zone per node (core links, a shared link per socket, links
// between sockets, the NIC on package 0), and the fabric routes become
// zoneRoutes between the nodes' NIC gateways -- exact, because every message
// that leaves a node leaves through its NIC -- so intra-node placement becomes
// visible to SMPI and the platform grows with nodes^2, not cores^2.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "topo/topology.h"

namespace canopy::topo {

/** The inside of every node (see docs/simgrid.md, "Per-core platforms"). The
    defaults are the simgrid_* parameters' defaults. */
struct SimgridNodeModel {
  std::vector<int> core_package;  // package of each core (logical index); -1: no packages
  std::string spec;               // where the node topology came from (a zone property)
  double core_bandwidth_gbps = 80;          // each core's own link (each direction)
  double core_latency_us = 0.11;            // a core's own link (a message crosses two)
  double socket_bandwidth_gbps = 400;       // a socket's memory link, shared by all its traffic
  double intersocket_bandwidth_gbps = 256;  // between two sockets (each direction)
  double intersocket_latency_us = 0.08;
};

struct SimgridOptions {
  double link_latency_us = 0.1;  // latency of every link (per hop), microseconds
  double host_speed_gflops = 1;  // per core; SMPI scales computation by it
  int host_cores = 1;            // flat platform only: cores per SimGrid host
  std::vector<int> hosts;        // topology nodes to export (an allocation, with only the cables its
                                 // routes cross); empty: every cabled host and every cable
  std::optional<SimgridNodeModel> node;  // set: one SimGrid host per core, nested zones
  ProgressFn progress{};                 // told the stages of a long export (routes, every tenth of the hosts)
};

struct SimgridPlatformStats {
  size_t hosts = 0;             // SimGrid hosts (cores with a node model)
  size_t routers = 0, links = 0;  // fabric switches and cables exported (no routers with a node model)
  size_t nodes = 0;             // fabric hosts exported (= hosts on a flat platform)
  size_t routes = 0;            // <route> (flat) or <zoneRoute> (per-core) elements between nodes
  size_t symmetric_routes = 0;  // of them, those that also describe the reverse direction
  size_t skipped_hosts = 0;     // hosts without a cabled port (left out)
};

/** The platform XML. Throws Error(ROUTE) when a host pair has no route (an LFT
    hole or loop), Error(INVALID_ARG) for a link without a known rate or bad options. */
std::string simgrid_platform_xml(const Topology &topo, const SimgridOptions &options,
                                 SimgridPlatformStats *stats = nullptr);

/** simgrid_platform_xml() written to @p path atomically (nothing is left on
    error), streamed: the text is never whole in memory. */
SimgridPlatformStats write_simgrid_platform(const Topology &topo, const SimgridOptions &options,
                                            const std::string &path);

/** The SimGrid host id of core @p core of node @p host on a per-core platform:
    "<simgrid_host_id>.c<core>" (core: hwloc logical index, as in rankfiles). */
std::string simgrid_core_host_id(const Topology &topo, int host, int core);

/** The SimGrid host id of @p host: its name, or name@GUID for a second HCA that
    shares the name of an earlier host (SimGrid ids must be unique). */
std::string simgrid_host_id(const Topology &topo, int host);

}  // namespace canopy::topo
