// Task mapping inside an MPI job (libcanopy-mpi.so): the C API canopy_topomap*
// and the reordering behind the intercepted MPI_Dist_graph_create(_adjacent),
// MPI_Cart_create and MPI_Graph_create (and MPI_Cart_map, MPI_Graph_map).
//
// decide() gathers a distributed-graph communicator's graph (edge weights, 1
// when unweighted) and every rank's host (CANOPY_HOSTMAP, else the processor
// name) on rank 0, which maps the job (map::map_job: the fabric of map_fabric or
// a single-switch model, the node of coll_node_layout or hwloc live) and
// broadcasts one decision: status, message and the new rank of every rank. So
// every rank takes the same branch and an error never leaves a rank waiting.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include <canopy/status.h>

namespace canopy::topomap {

struct Decision {
  canopy_status_t status = CANOPY_SUCCESS;
  std::string message;        // the error, or the mapping's summary
  std::vector<int> new_rank;  // old rank -> new rank (identity unless mapped)
  bool mapped = false;        // some rank changes
  int rank = MPI_UNDEFINED;   // the caller's rank in the communicator, where it has one
};

/** Collective over @p comm, a distributed-graph, Cartesian or graph intra-communicator
    (the last two unweighted: each neighbour 1); @p algorithm
    "" takes map_algorithm. Never throws; the same decision on every rank (an
    argument error found locally, such as MPI_COMM_NULL or MPI not initialized,
    returns at once). A non-empty @p argument_error (this rank's caller passed a
    bad argument) fails the mapping on every rank with CANOPY_ERR_INVALID_ARG. */
Decision decide(MPI_Comm comm, const std::string &algorithm, const std::string &argument_error = {}) noexcept;

/** The neighbours of this rank on a Cartesian (@p topology MPI_CART) or MPI-1 graph
    (MPI_GRAPH) communicator, in the order of its neighbourhood collectives' blocks (MPI-4.1
    section 8.6): along each dimension the neighbour at -1, then at +1 (MPI_PROC_NULL where a
    dimension ends), or MPI_Graph_neighbors. Throws Error when MPI fails. */
std::vector<int> neighbour_order(MPI_Comm comm, int topology);

/** True when a topology constructor on @p comm_old with @p reorder
    should be reordered by Canopy: reorder set, map_reorder on, CANOPY_DISABLE off,
    an intra-communicator (anything else goes to PMPI untouched). */
bool should_reorder(MPI_Comm comm_old, int reorder) noexcept;

/** The rest of MPI_Dist_graph_create(_adjacent), MPI_Cart_create or
    MPI_Graph_create (@p call, for the log) with reorder = 1, after MPI has built
    @p topology without reordering: maps it and returns in *@p out either a
    reordered communicator of the same topology (rank v playing vertex or grid
    position v, with v's adjacency) or, when the mapping fails or gains nothing,
    @p topology itself (a warning / info line says why). Frees @p topology when
    not returned. MPI_COMM_NULL (a rank left out of a grid or graph smaller than
    the communicator) is returned as it is, without taking part. */
int reorder(const char *call, MPI_Comm topology, MPI_Info info, MPI_Comm *out);

/** The rest of MPI_Cart_map or MPI_Graph_map (@p call, for the log), after MPI has built
    @p topology, the grid or graph on the communicator without reordering: the caller's
    place in the mapping in *@p newrank (so that MPI_Comm_split(comm, 0, newrank) gives the
    placement reorder() would), or its rank in @p topology where the mapping fails or gains
    nothing (a warning / info line says why); MPI_UNDEFINED on a rank left out of a grid or
    graph smaller than the communicator (MPI_COMM_NULL), which takes no part. Frees
    @p topology. */
int map_rank(const char *call, MPI_Comm topology, int *newrank);

}  // namespace canopy::topomap
