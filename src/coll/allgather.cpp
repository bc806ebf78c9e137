// Allgather algorithms. The receive buffer already holds this rank's block.
#include <cstring>
#include <vector>

#include "coll/algorithms.h"
#include "coll/allgather.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

constexpr int kTagBruck = 301;

void allgather_rd(Hierarchy &h, char *recv, size_t block) {
  allgather_blocks_rd(recv, Blocks::uniform(block, h.size), h.comm, {h.size, 0}, h.rank);
}

void allgather_ring(Hierarchy &h, char *recv, size_t block) {
  allgather_blocks_ring(recv, Blocks::uniform(block, h.size), h.comm, {h.size, 0}, h.rank);
}

// Bruck: after round k, tmp holds the blocks of ranks rank .. rank + 2^(k+1) - 1; a final
// rotation puts them in rank order. Works for any p in ceil(log2 p) rounds.
void allgather_bruck(Hierarchy &h, char *recv, size_t block) {
  int p = h.size, r = h.rank;
  std::vector<char> tmp(static_cast<size_t>(p) * block);
  std::memcpy(tmp.data(), recv + static_cast<size_t>(r) * block, block);
  for (int d = 1; d < p; d <<= 1) {
    size_t count = static_cast<size_t>(std::min(d, p - d));
    sendrecv_bytes(tmp.data(), count * block, (r - d + p) % p, tmp.data() + static_cast<size_t>(d) * block,
                   count * block, (r + d) % p, kTagBruck, h.comm);
  }
  for (int i = 0; i < p; ++i)
    std::memcpy(recv + static_cast<size_t>((r + i) % p) * block, tmp.data() + static_cast<size_t>(i) * block, block);
}

// Single leader per node (multi-leader paper, section 3.2): shared-memory gather on the
// leader, allgather of the node bundles between leaders, node bcast of the whole result.
void allgather_leader(Hierarchy &h, char *recv, size_t block) {
  BlockAllgatherFn inter = inter_leader_allgather(h.config.allgather_inter_algorithm);  // on every rank, before any traffic
  Blocks bundles;
  for (int n = 0, off = 0; n < h.nodes; off += h.node_size_of[n++]) {
    bundles.offset.push_back(static_cast<size_t>(off) * block);
    bundles.length.push_back(static_cast<size_t>(h.node_size_of[n]) * block);
  }
  bool leader = h.leaders != MPI_COMM_NULL;
  std::vector<char> tmp(leader ? static_cast<size_t>(h.size) * block : 0);
  char *mine = leader ? tmp.data() + bundles.offset[h.node_index] : nullptr;
  shm::gather(h.node_segment(), recv + static_cast<size_t>(h.rank) * block, block, mine, 0);
  if (leader) {
    inter(tmp.data(), bundles, h.leaders, {h.nodes, 0}, h.node_index);
    // Bundles are in (node, local rank) order; the result is in communicator rank order.
    for (int q = 0; q < h.size; ++q)
      std::memcpy(recv + static_cast<size_t>(q) * block,
                  tmp.data() + bundles.offset[h.node_of[q]] + static_cast<size_t>(h.local_rank_of[q]) * block, block);
  }
  intra_node_bcast(h, recv, static_cast<size_t>(h.size) * block, 0);
}

const Implementation<AllgatherFn> kAllgather[] = {
    {"recursive_doubling", allgather_rd, nullptr},
    {"ring", allgather_ring, nullptr},
    {"bruck", allgather_bruck, nullptr},
    {"leader", allgather_leader, nullptr},
    {"multi_leader_p2p", allgather_multi_leader_p2p, nullptr},
    {"multi_leader_shm", allgather_multi_leader_shm, multi_leader_shm_applicable},
};

}  // namespace

BlockAllgatherFn inter_leader_allgather(const std::string &name) {
  if (name == "recursive_doubling") return allgather_blocks_rd;
  if (name == "ring") return allgather_blocks_ring;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_allgather_inter_algorithm") + ": '" + name + "' is not recursive_doubling or ring");
}


const Implementation<AllgatherFn> *allgather_implementation(const std::string &name) {
  for (const auto &impl : kAllgather)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll
