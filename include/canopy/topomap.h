/**
 * @file canopy/topomap.h  Task mapping of a running MPI job (libcanopy-mpi.so).
 *
 * canopy_topomap() computes, for a distributed-graph communicator (made with
 * MPI_Dist_graph_create or MPI_Dist_graph_create_adjacent), or a Cartesian or
 * graph one (MPI_Cart_create, MPI_Graph_create: each neighbour weighs 1), the rank each
 * process should take so that processes that exchange much sit close together,
 * as MPI_Dist_graph_create with reorder = 1 would (Hoefler and Snir, "Generic
 * topology mapping strategies for large-scale parallel architectures", and
 * Open MPI's treematch follow the same convention):
 *
 *  - graph vertex v is the process of rank v in the communicator; an edge
 *    weighs its MPI weight, 1 when the graph is unweighted (MPI_UNWEIGHTED);
 *  - the machine is where the processes run now: the hosts of the ranks
 *    (CANOPY_HOSTMAP, else MPI_Get_processor_name), each host's ranks as its
 *    slots, the fabric of the parameter map_fabric (a topology source as
 *    `canopy map --fabric` takes it) or, when it is empty, a single switch
 *    joining the hosts, and the node from coll_node_layout or hwloc;
 *  - the mapping puts vertex v on the slot of some process: that process gets
 *    new rank v (*newrank), and should then act as vertex v (split the
 *    communicator with key *newrank and build its graph with v's neighbours).
 *
 * The calls are collective over the communicator: rank 0 gathers the graph,
 * computes the mapping and sends every rank the same outcome, so they all
 * return the same status. On any failure *newrank is the caller's current
 * rank (MPI_UNDEFINED for MPI_COMM_NULL), so the identity order is always
 * usable. Hosts may hold unequal numbers of ranks: each keeps as many. Ranks
 * keep their order (CANOPY_SUCCESS) when the mapping does not lower hop-bytes
 * (then cross-socket bytes) against the current placement; CANOPY_LOG_LEVEL=info
 * shows the decision. See docs/mapping.md.
 *
 * Status codes: CANOPY_ERR_INVALID_ARG (MPI not initialized or already
 * finalized, MPI_COMM_NULL, a communicator without a graph or Cartesian topology, newrank NULL
 * on any rank: every rank fails, an unknown map_algorithm), CANOPY_ERR_UNSUPPORTED
 * (an inter-communicator; bipartitioning on a fabric without coordinates is
 * CANOPY_ERR_INVALID_ARG), CANOPY_ERR_NOT_FOUND (a host missing from the
 * fabric), CANOPY_ERR_PARSE / CANOPY_ERR_IO (the fabric cannot be loaded),
 * CANOPY_ERR_INTERNAL (an MPI call failed). canopy_last_error() has the
 * message on every rank.
 */
#ifndef CANOPY_TOPOMAP_H
#define CANOPY_TOPOMAP_H

#include <mpi.h>

#include <canopy/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The new rank of this process in @p distgraph_comm, with the algorithm of the
    map_algorithm parameter (default rt; identity, block, greedy, rt, rb or scotch).
    The parameters map_analytic_iterations (default 10, on fabrics with
    coordinates) and map_anneal_moves (default 0) move the host groups of greedy,
    rt and rb as `canopy map --analytic-placement` and `--anneal-moves` do (a
    negative value, or more than 1000 iterations: CANOPY_ERR_INVALID_ARG). */
CANOPY_API canopy_status_t canopy_topomap(MPI_Comm distgraph_comm, int *newrank);
/** canopy_topomap with the recursive tree mapping (rt) on the fabric's
    topology tree (its switch hierarchy, or neighbor joining of hop distances). */
CANOPY_API canopy_status_t canopy_topomap_tree(MPI_Comm distgraph_comm, int *newrank);
/** canopy_topomap with recursive bipartitioning on torus coordinates (rb):
    map_fabric must name a source with coordinates (torus:FILE). */
CANOPY_API canopy_status_t canopy_topomap_bipartition(MPI_Comm distgraph_comm, int *newrank);

#ifdef __cplusplus
}
#endif
#endif
