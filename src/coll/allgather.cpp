// Allgather algorithms. The receive buffer already holds this rank's block.
#include <algorithm>
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

void allgather_rd(Hierarchy &h, const char *mine, char *recv, size_t block) {
  allgather_blocks_rd_from(mine, recv, h.uniform_blocks(block), h.comm, {h.size, 0}, h.rank);
}

void allgather_ring(Hierarchy &h, const char *mine, char *recv, size_t block) {
  allgather_blocks_ring_from(mine, recv, h.uniform_blocks(block), h.comm, {h.size, 0}, h.rank);
}

// Blocks first .. first + count - 1 (mod p) as at most two runs of consecutive blocks.
template <class Fn>
void for_each_run(int first, int count, int p, Fn fn) {
  int head = std::min(count, p - first);
  fn(first, head);
  if (count > head) fn(0, count - head);
}

// Bruck: before round d rank r holds the blocks of ranks r .. r + d - 1 (mod p); it sends them
// to r - d and receives those of r + d .. r + 2d - 1 from r + d (at most p - d of them). Both
// ranges are circular runs of the receive buffer, so the data moves straight from receive
// buffer to receive buffer: no temporary, no final rotation. Any p, ceil(log2 p) rounds. The
// first round sends the own block from @p mine and copies it into place meanwhile (p2p.h).
void allgather_bruck(Hierarchy &h, const char *mine, char *recv, size_t block) {
  int p = h.size, r = h.rank;
  for (int d = 1; d < p; d <<= 1) {
    int count = std::min(d, p - d);
    MPI_Request requests[4];
    int n = 0;
    for_each_run((r + d) % p, count, p, [&](int first, int blocks) {
      requests[n++] = start_recv(recv + static_cast<size_t>(first) * block, static_cast<size_t>(blocks) * block,
                                 (r + d) % p, kTagBruck, h.comm);
    });
    for_each_run(r, count, p, [&](int first, int blocks) {
      const char *from = d == 1 ? mine : recv + static_cast<size_t>(first) * block;
      requests[n++] = start_send(from, static_cast<size_t>(blocks) * block, (r - d + p) % p, kTagBruck, h.comm);
    });
    if (d == 1) place_own_block(h, mine, recv, block);
    wait(n, requests);
  }
  if (p == 1) place_own_block(h, mine, recv, block);
}

// Single leader per node (multi-leader paper, section 3.2): shared-memory gather on the
// leader, allgather of the node bundles between leaders, node bcast of the whole result.
void allgather_leader(Hierarchy &h, const char *mine, char *recv, size_t block) {
  BlockAllgatherFn inter = inter_leader_allgather(h.config.allgather_inter_algorithm);  // on every rank, before any traffic
  Blocks bundles;
  for (int n = 0, off = 0; n < h.nodes; off += h.node_size_of[n++]) {
    bundles.offset.push_back(static_cast<size_t>(off) * block);
    bundles.length.push_back(static_cast<size_t>(h.node_size_of[n]) * block);
  }
  bool leader = h.leads_node();
  char *tmp = leader ? h.scratch(ScratchUse::Algorithm).get(static_cast<size_t>(h.size) * block) : nullptr;
  char *node_bundle = leader ? tmp + bundles.offset[h.node_index] : nullptr;
  // The own block reaches recv with everything else (leaders copy all, the node Bcast brings all).
  shm::gather(h.node_segment(), mine, block, node_bundle, 0);
  if (leader) {
    if (h.leaders != MPI_COMM_NULL) inter(tmp, bundles, h.leaders, {h.nodes, 0}, h.node_index);
    // Bundles are in (node, local rank) order; the result is in communicator rank order.
    for (int q = 0; q < h.size; ++q)
      std::memcpy(recv + static_cast<size_t>(q) * block,
                  tmp + bundles.offset[h.node_of[q]] + static_cast<size_t>(h.local_rank_of[q]) * block, block);
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

void place_own_block(const Hierarchy &h, const char *mine, char *recv, size_t block) {
  char *place = recv + static_cast<size_t>(h.rank) * block;
  if (place != mine) std::memcpy(place, mine, block);
}

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
