/**
 * @file canopy/topology.h  The cluster topology model.
 *
 * A topology is loaded from a SOURCE: a path, optionally prefixed by its
 * format (`ibnetdiscover:FILE`, `ibnetdiscover-ports:FILE`, `subnet-lst:FILE`,
 * `slurm:FILE`, `torus:FILE`, `dump:DIR`); without a prefix the format is
 * detected from the content. See docs/topology-sources.md.
 */
#ifndef CANOPY_TOPOLOGY_H
#define CANOPY_TOPOLOGY_H

#include <stdint.h>
#include <canopy/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque, immutable topology (safe to query from many threads). */
typedef struct canopy_topology *canopy_topology_t;

/** One node on a route, in path order from the source host to the destination host. */
typedef struct canopy_hop {
  uint64_t guid;    /**< Node GUID (host: its HCA node GUID). */
  int in_port;      /**< Port the route enters by (0 at the source host). */
  int out_port;     /**< Port the route leaves by (0 at the destination host). */
  double out_gbps;  /**< Data rate of the link leaving by out_port (0 at the destination). */
} canopy_hop_t;

/** How a route was obtained. */
typedef enum canopy_route_method {
  CANOPY_ROUTE_LFT = 0,          /**< Followed the switches' forwarding tables (what the fabric uses). */
  CANOPY_ROUTE_SHORTEST_PATH,    /**< No forwarding tables: a shortest path. */
  CANOPY_ROUTE_DIMENSION_ORDER   /**< Torus/mesh coordinates: dimension-order routing. */
} canopy_route_method_t;

/** Loads @p source (see the file comment) into @p topo. */
CANOPY_API canopy_status_t canopy_topology_load(const char *source, canopy_topology_t *topo);

/** Frees a topology; NULL is accepted. */
CANOPY_API void canopy_topology_free(canopy_topology_t topo);

/** Number of hosts (HCAs / end nodes). */
CANOPY_API canopy_status_t canopy_topology_num_hosts(canopy_topology_t topo, int *num_hosts);

/** Name of host @p index (0 <= index < num_hosts); valid as long as @p topo. */
CANOPY_API canopy_status_t canopy_topology_host_name(canopy_topology_t topo, int index, const char **name);

/**
 * The route from host @p host_a to host @p host_b (names or GUIDs as `0x...`).
 * Writes at most @p max_hops entries into @p hops and the full count into
 * @p num_hops (call with max_hops = 0 to size the array). CANOPY_ERR_ROUTE when
 * the forwarding tables have a hole or a loop for this pair.
 */
CANOPY_API canopy_status_t canopy_topology_route(canopy_topology_t topo, const char *host_a,
                                                 const char *host_b, canopy_hop_t *hops,
                                                 int max_hops, int *num_hops,
                                                 canopy_route_method_t *method);

/**
 * Matrices for the @p n hosts in @p hosts, row-major n x n; any output may be NULL.
 * @p hops: links on the route (0 on the diagonal); @p gbps: rate of the slowest
 * link on the route (the host's own link rate on the diagonal); @p delay_us: the
 * modelled time to send topo_delay_bytes over the route (hops x topo_hop_latency_us
 * + bytes / slowest rate; 0 on the diagonal).
 */
CANOPY_API canopy_status_t canopy_topology_matrices(canopy_topology_t topo, const char *const *hosts,
                                                    int n, int *hops, double *gbps, double *delay_us);

#ifdef __cplusplus
}
#endif
#endif
