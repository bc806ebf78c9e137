// The C API over the topology model: handles, routes and matrices.
#include "canopy/topology.h"

#include "common/error.h"
#include "topo/routes.h"
#include "topo/source.h"
#include "topo/views.h"

struct canopy_topology {
  canopy::topo::Topology model;
};

namespace {
using canopy::Error;

const canopy::topo::Topology &model_of(canopy_topology_t topo) {
  if (!topo) throw Error(CANOPY_ERR_INVALID_ARG, "null topology handle");
  return topo->model;
}

int host_index(const canopy::topo::Topology &topo, const char *name) {
  if (!name) throw Error(CANOPY_ERR_INVALID_ARG, "null host name");
  int host = topo.find_host(name);
  if (host < 0) throw Error(CANOPY_ERR_NOT_FOUND, std::string("unknown host '") + name + "'");
  return host;
}

canopy_route_method_t to_c(canopy::topo::RouteMethod method) {
  switch (method) {
    case canopy::topo::RouteMethod::Lft: return CANOPY_ROUTE_LFT;
    case canopy::topo::RouteMethod::DimensionOrder: return CANOPY_ROUTE_DIMENSION_ORDER;
    case canopy::topo::RouteMethod::ShortestPath: break;
  }
  return CANOPY_ROUTE_SHORTEST_PATH;
}
}  // namespace

extern "C" {

canopy_status_t canopy_topology_load(const char *source, canopy_topology_t *topo) {
  return canopy::guard([&] {
    if (!source || !topo) throw Error(CANOPY_ERR_INVALID_ARG, "canopy_topology_load: null argument");
    *topo = nullptr;
    *topo = new canopy_topology{canopy::topo::load_topology(source)};
  });
}

void canopy_topology_free(canopy_topology_t topo) { delete topo; }

canopy_status_t canopy_topology_num_hosts(canopy_topology_t topo, int *num_hosts) {
  return canopy::guard([&] {
    if (!num_hosts) throw Error(CANOPY_ERR_INVALID_ARG, "null output");
    *num_hosts = static_cast<int>(model_of(topo).hosts().size());
  });
}

canopy_status_t canopy_topology_host_name(canopy_topology_t topo, int index, const char **name) {
  return canopy::guard([&] {
    const auto &model = model_of(topo);
    if (!name) throw Error(CANOPY_ERR_INVALID_ARG, "null output");
    if (index < 0 || index >= static_cast<int>(model.hosts().size()))
      throw Error(CANOPY_ERR_INVALID_ARG, "host index " + std::to_string(index) + " out of range: the fabric has " +
                                              std::to_string(model.hosts().size()) + " hosts");
    *name = model.node(model.hosts()[index]).name.c_str();
  });
}

canopy_status_t canopy_topology_route(canopy_topology_t topo, const char *host_a, const char *host_b,
                                      canopy_hop_t *hops, int max_hops, int *num_hops,
                                      canopy_route_method_t *method) {
  return canopy::guard([&] {
    const auto &model = model_of(topo);
    if (!num_hops || max_hops < 0 || (max_hops > 0 && !hops)) throw Error(CANOPY_ERR_INVALID_ARG, "bad output array");
    canopy::topo::Route route = canopy::topo::find_route(model, host_index(model, host_a), host_index(model, host_b));
    *num_hops = static_cast<int>(route.hops.size());
    if (method) *method = to_c(route.method);
    for (int i = 0; i < max_hops && i < *num_hops; ++i) {
      const auto &hop = route.hops[i];
      hops[i] = {model.node(hop.node).guid, hop.in_port, hop.out_port, canopy::topo::hop_gbps(model, hop)};
    }
  });
}

canopy_status_t canopy_topology_matrices(canopy_topology_t topo, const char *const *hosts, int n, int *hops,
                                         double *gbps, double *delay_us) {
  return canopy::guard([&] {
    const auto &model = model_of(topo);
    if (n < 0 || (n > 0 && !hosts)) throw Error(CANOPY_ERR_INVALID_ARG, "bad host list");
    std::vector<int> indexes;
    for (int i = 0; i < n; ++i) indexes.push_back(host_index(model, hosts[i]));
    canopy::topo::HostMatrices m = canopy::topo::host_matrices(model, indexes);
    for (size_t k = 0; k < m.hops.size(); ++k) {
      if (hops) hops[k] = m.hops[k];
      if (gbps) gbps[k] = m.gbps[k];
      if (delay_us) delay_us[k] = m.delay_us[k];
    }
  });
}

}  // extern "C"
