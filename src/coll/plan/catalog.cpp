#include "coll/plan/catalog.h"

namespace canopy::coll {
namespace {

std::vector<AlgorithmInfo> with_library(std::vector<AlgorithmInfo> catalog) {
  for (Collective coll : all_collectives())
    catalog.push_back({coll, kLibraryAlgorithm, "the MPI library's own collective (PMPI_*): the rules choose it where it is faster", {}});
  return catalog;
}

const std::vector<AlgorithmInfo> kCatalog = with_library({
    {Collective::Bcast, "binomial", "binomial tree rooted at the root (log p steps, whole message each)", {}},
    {Collective::Bcast, "knomial", "k-nomial tree: each node feeds k-1 children per round", {"coll_bcast_knomial_radix"}},
    {Collective::Bcast, "scatter_rd_allgather", "binomial scatter of p blocks, then recursive-doubling allgather", {}},
    {Collective::Bcast, "scatter_ring_allgather", "binomial scatter of p blocks, then ring allgather", {}},
    {Collective::Bcast, "chain", "pipelined chain root -> root+1 -> ... in segments", {"coll_bcast_chain_segment_bytes"}},
    {Collective::Bcast, "shm", "one node only: shared-memory Sender_put/Group_sync/Group_get, one-stage or pipelined",
     {"coll_shm_mode", "coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Bcast, "two_level",
     "inside the root's node, between node leaders (optionally in a topology-aware order), then inside the other nodes",
     {"coll_bcast_inter_algorithm", "coll_bcast_intra_algorithm", "coll_bcast_leader_order", "topo_server", "coll_hca_port"}},
    {Collective::Allgather, "recursive_doubling", "log p exchanges of doubling size; extra ranks beyond 2^k fold in", {}},
    {Collective::Allgather, "ring", "p-1 neighbour exchanges of one block", {}},
    {Collective::Allgather, "bruck", "ceil(log p) exchanges with distance 2^k, then a local rotation", {}},
    {Collective::Allgather, "leader", "single leader per node: gather on the node, allgather between leaders, node Bcast",
     {"coll_allgather_inter_algorithm", "coll_bcast_intra_algorithm", "coll_shm_buffer_bytes", "coll_shm_buffers"}},
    {Collective::Allgather, "multi_leader_p2p",
     "leader per group (socket, or NUMA node with coll_leader_domain=numa): p2p aggregation, allgather between group leaders, each group gets only what it lacks",
     {"coll_leaders_per_node", "coll_leader_domain", "coll_node_layout", "coll_allgather_intra_algorithm", "coll_allgather_inter_algorithm"}},
    {Collective::Allgather, "multi_leader_shm",
     "leader per group (socket, or NUMA node with coll_leader_domain=numa): aggregation (small blocks through per-rank cells) and distribution through the group's "
     "shared segment, leaders exchange",
     {"coll_leaders_per_node", "coll_leader_domain", "coll_node_layout", "coll_allgather_inter_algorithm", "coll_shm_mode",
      "coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins", "coll_shm_cell_bytes"}},
    {Collective::Barrier, "dissemination", "ceil(log p) rounds of zero-byte messages at distance 2^k", {}},
    {Collective::Barrier, "shm",
     "shared-memory Group_sync in each node, dissemination between node leaders, Group_sync (one node: one Group_sync)",
     {"coll_shm_spins"}},
    {Collective::Scatter, "binomial", "binomial tree from the root; each rank forwards its subtree's blocks", {}},
    {Collective::Scatter, "linear", "the root sends every rank its block (all sends in flight at once)", {}},
    {Collective::Scatter, "shm", "one node only: Sender_put, Group_sync, Group_seg_get, staged when the data exceed the area",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Scatter, "two_level",
     "root's node leader, binomial scatter of node bundles between leaders, shm scatter inside each node",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Gather, "binomial", "binomial tree to the root; each rank forwards its subtree's blocks", {}},
    {Collective::Gather, "linear", "the root receives every rank's block (all receives posted at once)", {}},
    {Collective::Gather, "shm", "one node only: Group_seg_put, Group_sync, Receiver_get, staged when the data exceed the area",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Gather, "two_level",
     "shm gather inside each node, binomial gather of node bundles between leaders, root's node leader to the root",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Alltoall, "pairwise", "p-1 steps: send to rank+k, receive from rank-k", {}},
    {Collective::Alltoall, "bruck", "ceil(log p) exchanges of the blocks whose index has bit k set, with local rotations",
     {}},
    {Collective::Alltoall, "shm", "one node only: Group_seg_put, Group_sync, Group_seg_get, staged when the data exceed the area",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Alltoall, "hierarchical",
     "shm gather of each node's data on its leader, pairwise exchange of node bundles between leaders, shm scatter",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Reduce, "binomial", "binomial tree towards the root, combining at every inner node, pipelined in pieces (log p steps)",
     {"coll_reduce_segment_bytes"}},
    {Collective::Reduce, "reduce_scatter_gather",
     "Rabenseifner: recursive-halving reduce-scatter (pipelined in pieces), binomial gather to the root; extra ranks "
     "beyond 2^k fold in",
     {"coll_reduce_segment_bytes"}},
    {Collective::Reduce, "shm", "one node only: each rank combines a slice of everybody's data in shared memory, root reads",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins"}},
    {Collective::Reduce, "two_level", "shared-memory reduction in each node, reduce between node leaders, hop to the root",
     {"coll_reduce_inter_algorithm", "coll_reduce_segment_bytes", "coll_shm_buffer_bytes", "coll_shm_buffers"}},
    {Collective::Allreduce, "recursive_doubling", "log p exchanges of the whole message; extra ranks beyond 2^k fold in", {}},
    {Collective::Allreduce, "reduce_scatter_allgather",
     "Rabenseifner: recursive-halving reduce-scatter (pipelined in pieces), recursive-doubling allgather; extra ranks "
     "fold in",
     {"coll_reduce_segment_bytes"}},
    {Collective::Allreduce, "ring", "ring reduce-scatter, then ring allgather: 2(p-1) steps of 1/p of the message", {}},
    {Collective::Allreduce, "shm",
     "one node only: each rank combines a slice of everybody's data in shared memory, all read (small messages: "
     "every rank combines all ranks' cells)",
     {"coll_shm_buffer_bytes", "coll_shm_buffers", "coll_shm_spins", "coll_shm_cell_bytes"}},
    {Collective::Allreduce, "two_level", "shared-memory reduction in each node, allreduce between node leaders, node Bcast",
     {"coll_allreduce_inter_algorithm", "coll_bcast_intra_algorithm", "coll_reduce_segment_bytes", "coll_shm_buffer_bytes",
      "coll_shm_buffers"}},
});

}  // namespace

const char *collective_name(Collective coll) {
  switch (coll) {
    case Collective::Bcast: return "bcast";
    case Collective::Allgather: return "allgather";
    case Collective::Barrier: return "barrier";
    case Collective::Scatter: return "scatter";
    case Collective::Gather: return "gather";
    case Collective::Alltoall: return "alltoall";
    case Collective::Reduce: return "reduce";
    case Collective::Allreduce: return "allreduce";
  }
  return "?";
}

const std::vector<Collective> &all_collectives() {
  // In enum order: CollConfig indexes its per-collective lists by the enum value.
  static const std::vector<Collective> all = {
      Collective::Bcast,   Collective::Allgather, Collective::Barrier, Collective::Scatter,
      Collective::Gather,  Collective::Alltoall,  Collective::Reduce,  Collective::Allreduce,
  };
  return all;
}

const std::vector<AlgorithmInfo> &algorithm_catalog() { return kCatalog; }

const AlgorithmInfo *find_algorithm(Collective coll, const std::string &name) {
  for (const AlgorithmInfo &info : kCatalog)
    if (info.coll == coll && name == info.name) return &info;
  return nullptr;
}

std::string algorithm_names(Collective coll) {
  std::string names;
  for (const AlgorithmInfo &info : kCatalog)
    if (info.coll == coll) names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

}  // namespace canopy::coll
