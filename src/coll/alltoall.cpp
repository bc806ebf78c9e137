// Alltoall algorithms. Send and receive buffers never overlap (the entry point copies an
// MPI_IN_PLACE buffer first); every algorithm fills all p receive blocks, the own one included.
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"

namespace canopy::coll {
namespace {

constexpr int kTagPairwise = 601, kTagBruck = 602, kTagBundle = 603;

size_t at(int i, size_t block) { return static_cast<size_t>(i) * block; }

// Step k sends to rank + k and receives from rank - k: every pair meets once, any p.
void alltoall_pairwise(Hierarchy &h, const char *send, char *recv, size_t block) {
  int p = h.size, r = h.rank;
  std::memcpy(recv + at(r, block), send + at(r, block), block);
  for (int k = 1; k < p; ++k) {
    int to = (r + k) % p, from = (r - k + p) % p;
    sendrecv_bytes(send + at(to, block), block, to, recv + at(from, block), block, from, kTagPairwise, h.comm);
  }
}

// Bruck: position i stands for the block rank r sends to rank r + i. In round d every position
// with bit d set moves d ranks on (keeping its position), so after ceil(log2 p) rounds
// position i holds the block rank r - i sent to r. A block is read from the send buffer in its
// first round (the lowest set bit of its position), kept in a temporary between rounds, and
// written to its place in the receive buffer in its last (the highest bit): no rotation before
// or after. A round moving one block sends and receives it in place; larger rounds pack the
// blocks, O(p log p) block copies in all, which is why the rules use Bruck for small blocks only.
void alltoall_bruck(Hierarchy &h, const char *send, char *recv, size_t block) {
  int p = h.size, r = h.rank, half = (p + 1) / 2;
  char *tmp = h.scratch(ScratchUse::Algorithm).get(at(p + 2 * half, block));
  char *out = tmp + at(p, block), *in = out + at(half, block);
  auto source = [&](int i, int d) -> const char * {
    return (i & (d - 1)) ? tmp + at(i, block) : send + at((r + i) % p, block);
  };
  auto target = [&](int i, int d) { return i < 2 * d ? recv + at((r - i + p) % p, block) : tmp + at(i, block); };
  std::memcpy(recv + at(r, block), send + at(r, block), block);
  for (int d = 1; d < p; d <<= 1) {
    int n = 0, first = -1;
    for (int i = d; i < p; ++i)
      if (i & d) {
        if (first < 0) first = i;
        ++n;
      }
    if (n == 1) {
      sendrecv_bytes(source(first, d), block, (r + d) % p, target(first, d), block, (r - d + p) % p, kTagBruck,
                     h.comm);
      continue;
    }
    for (int i = d, k = 0; i < p; ++i)
      if (i & d) std::memcpy(out + at(k++, block), source(i, d), block);
    sendrecv_bytes(out, at(n, block), (r + d) % p, in, at(n, block), (r - d + p) % p, kTagBruck, h.comm);
    for (int i = d, k = 0; i < p; ++i)
      if (i & d) std::memcpy(target(i, d), in + at(k++, block), block);
  }
}

// One node: node ranks follow communicator ranks (the node split keeps their order).
void alltoall_shm(Hierarchy &h, const char *send, char *recv, size_t block) {
  shm::alltoall(h.node_segment(), send, block, recv);
}

// Communicator ranks of each node, in local-rank order.
std::vector<std::vector<int>> node_members(const Hierarchy &h) {
  std::vector<std::vector<int>> members(h.nodes);
  for (int n = 0; n < h.nodes; ++n) members[n].resize(h.node_size_of[n]);
  for (int q = 0; q < h.size; ++q) members[h.node_of[q]][h.local_rank_of[q]] = q;
  return members;
}

// Leaders only. @p rows: each local rank's whole send buffer (p blocks), in local-rank order;
// @p result: each local rank's whole receive buffer. In step k the leader sends node me + k,
// for each local sender, the blocks for that node's ranks, and gets the same from node me - k.
void exchange_node_bundles(Hierarchy &h, const char *rows, char *result, size_t block) {
  std::vector<std::vector<int>> members = node_members(h);
  const std::vector<int> &mine = members[h.node_index];
  size_t row = at(h.size, block), locals = mine.size();
  std::vector<char> out, in;
  for (int k = 0; k < h.nodes; ++k) {
    int to = (h.node_index + k) % h.nodes, from = (h.node_index - k + h.nodes) % h.nodes;
    out.clear();
    for (size_t i = 0; i < locals; ++i)
      for (int q : members[to]) out.insert(out.end(), rows + i * row + at(q, block), rows + i * row + at(q + 1, block));
    in.resize(members[from].size() * locals * block);
    if (k == 0)
      in = out;
    else
      sendrecv_bytes(out.data(), out.size(), to, in.data(), in.size(), from, kTagBundle, h.leaders);
    const char *next = in.data();  // senders of node `from` in local order, each with a block per local rank
    for (int q : members[from])
      for (size_t j = 0; j < locals; ++j, next += block) std::memcpy(result + j * row + at(q, block), next, block);
  }
}

// The node's data meets at its leader, leaders swap node bundles, and the leader hands each
// local rank its receive buffer: message count nodes^2 instead of p^2 across the network, for
// two extra shared-memory copies of everything.
void alltoall_hierarchical(Hierarchy &h, const char *send, char *recv, size_t block) {
  size_t row = at(h.size, block), all = static_cast<size_t>(h.node_size) * row;
  bool leader = h.leads_node();
  char *rows = leader ? h.scratch(ScratchUse::Algorithm).get(2 * all) : nullptr;
  char *result = leader ? rows + all : nullptr;
  leader_gather(h, send, row, rows);
  if (leader) exchange_node_bundles(h, rows, result, block);
  leader_scatter(h, result, row, recv);
}

std::string one_node_shm(const Hierarchy &h) {
  std::string why = needs_one_node(h);
  return why.empty() ? needs_shm_area(h, static_cast<size_t>(h.size) * static_cast<size_t>(h.size)) : why;
}

std::string node_shm(const Hierarchy &h) { return needs_shm_area(h, static_cast<size_t>(h.max_ranks_per_node)); }

const Implementation<AlltoallFn> kAlltoall[] = {
    {"pairwise", alltoall_pairwise, nullptr},
    {"bruck", alltoall_bruck, nullptr},
    {"shm", alltoall_shm, one_node_shm},
    {"hierarchical", alltoall_hierarchical, node_shm},
};

}  // namespace

const Implementation<AlltoallFn> *alltoall_implementation(const std::string &name) {
  for (const auto &impl : kAlltoall)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll
