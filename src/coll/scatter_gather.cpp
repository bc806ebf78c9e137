// Scatter and Gather algorithms. The entry points have placed the root's own block, so the
// algorithms move the other p - 1: a scatter never writes the root's receive buffer (it may be
// MPI_IN_PLACE), a gather's root finds its block in recv already. Trees run on virtual ranks
// v = (rank - root) mod p, whose blocks are the root's rotated by root.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"

namespace canopy::coll {
namespace {

constexpr int kTagLinear = 501, kTagRootNode = 502;

char *block_at(char *buf, int i, size_t block) { return buf + static_cast<size_t>(i) * block; }
const char *block_at(const char *buf, int i, size_t block) { return buf + static_cast<size_t>(i) * block; }

// to[v] = from[(v + shift) mod p] for every block v.
void copy_rotated(const char *from, char *to, size_t block, int p, int shift) {
  for (int v = 0; v < p; ++v) std::memcpy(block_at(to, v, block), block_at(from, (v + shift) % p, block), block);
}

void scatter_binomial(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  int p = h.size, v = (h.rank - root + p) % p, sub = binomial_subtree(v, p);
  std::vector<char> tmp;
  char *span = recv;  // a leaf receives its one block in place
  if (v == 0 && root == 0) {
    span = const_cast<char *>(send);  // the tree's root only sends from its span
  } else if (v == 0) {
    tmp.resize(static_cast<size_t>(p) * block);
    copy_rotated(send, tmp.data(), block, p, root);
    span = tmp.data();
  } else if (sub > 1) {
    tmp.resize(static_cast<size_t>(sub) * block);
    span = tmp.data();
  }
  scatter_span_binomial(span, Blocks::uniform(block, p), h.comm, {p, root}, v);
  if (v > 0 && sub > 1) std::memcpy(recv, span, block);
}

void gather_binomial(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  int p = h.size, v = (h.rank - root + p) % p, sub = binomial_subtree(v, p);
  std::vector<char> tmp;
  char *span = recv;  // root 0: blocks land in place, its own is there already
  if (v > 0 && sub == 1) {
    span = const_cast<char *>(send);  // a leaf only sends its block
  } else if (v > 0 || root != 0) {
    tmp.resize(static_cast<size_t>(sub) * block);
    std::memcpy(tmp.data(), send, block);
    span = tmp.data();
  }
  gather_span_binomial(span, Blocks::uniform(block, p), h.comm, {p, root}, v);
  if (v == 0 && root != 0) copy_rotated(tmp.data(), recv, block, p, p - root);
}

// All transfers in flight at once, in rank order after the root (as MPICH's linear schedule).
void scatter_linear(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  if (h.rank != root) return recv_bytes(recv, block, root, kTagLinear, h.comm);
  std::vector<MPI_Request> requests;
  for (int k = 1; k < h.size; ++k) {
    int r = (root + k) % h.size;
    isend_bytes(block_at(send, r, block), block, r, kTagLinear, h.comm, requests);
  }
  wait_all(requests);
}

void gather_linear(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  if (h.rank != root) return send_bytes(send, block, root, kTagLinear, h.comm);
  std::vector<MPI_Request> requests;
  for (int k = 1; k < h.size; ++k) {
    int r = (root + k) % h.size;
    irecv_bytes(block_at(recv, r, block), block, r, kTagLinear, h.comm, requests);
  }
  wait_all(requests);
}

// One node: node ranks follow communicator ranks (the node split keeps their order).
void scatter_shm(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  shm::scatter(h.node_segment(), send, block, recv, h.local_rank_of[root]);
}

void gather_shm(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  shm::gather(h.node_segment(), send, block, recv, h.local_rank_of[root]);
}

// Node bundles in the order of a binomial tree over the node leaders rooted at node `first`:
// bundle u belongs to node (u + first) mod nodes and holds its ranks' blocks in local-rank
// order. Nodes may hold non-consecutive ranks, so a bundle is not a slice of the user's buffer.
struct NodeBundles {
  Blocks blocks;
  std::vector<size_t> position;  // communicator rank -> offset of its block among the bundles

  NodeBundles(const Hierarchy &h, size_t block, int first) {
    for (int u = 0, off = 0; u < h.nodes; ++u) {
      int n = (u + first) % h.nodes;
      blocks.offset.push_back(static_cast<size_t>(off) * block);
      blocks.length.push_back(static_cast<size_t>(h.node_size_of[n]) * block);
      off += h.node_size_of[n];
    }
    for (int q = 0; q < h.size; ++q) {
      int u = (h.node_of[q] - first + h.nodes) % h.nodes;
      position.push_back(blocks.offset[u] + static_cast<size_t>(h.local_rank_of[q]) * block);
    }
  }
};

struct TwoLevel {
  int root_node, u, subtree;  // the root's node; this node's place in the leaders' tree
  bool leader, root_leads;    // this rank leads its node; the root leads its node
  NodeBundles bundles;

  TwoLevel(const Hierarchy &h, size_t block, int root)
      : root_node(h.node_of[root]),
        u((h.node_index - root_node + h.nodes) % h.nodes),
        subtree(binomial_subtree(u, h.nodes)),
        leader(h.leads_node()),
        root_leads(h.node_leader[root_node] == root),
        bundles(h, block, root_node) {}
  /** Bytes of the bundles this leader handles in the tree (all of them at the root's node). */
  size_t span_bytes() const { return bundles.blocks.span_bytes(u, u + subtree); }
  /** True on the root and its node leader when they differ: they hand the whole data over. */
  bool hands_over(const Hierarchy &h, int root) const {
    return !root_leads && u == 0 && (leader || h.rank == root);
  }
};

// Root's node leader, binomial scatter of node bundles between leaders, leader_scatter in
// each node (the topology-aware bcast paper's scheme, with blocks instead of the whole message).
void scatter_two_level(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  TwoLevel t(h, block, root);
  size_t total = static_cast<size_t>(h.size) * block;
  std::vector<char> span(h.rank == root ? total : (t.leader ? t.span_bytes() : 0));
  if (h.rank == root)
    for (int q = 0; q < h.size; ++q) std::memcpy(span.data() + t.bundles.position[q], block_at(send, q, block), block);
  if (t.hands_over(h, root)) {
    if (h.rank == root)
      send_bytes(span.data(), total, 0, kTagRootNode, h.node);
    else
      recv_bytes(span.data(), total, h.local_rank_of[root], kTagRootNode, h.node);
  }
  if (h.leaders != MPI_COMM_NULL) scatter_span_binomial(span.data(), t.bundles.blocks, h.leaders, {h.nodes, t.root_node}, t.u);
  leader_scatter(h, span.data(), block, h.rank == root ? nullptr : recv);
}

// The inverse: leader_gather in each node, binomial gather of the bundles, then the root's
// node leader hands everything to the root, which puts the blocks in rank order.
void gather_two_level(Hierarchy &h, const char *send, char *recv, size_t block, int root) {
  TwoLevel t(h, block, root);
  size_t total = static_cast<size_t>(h.size) * block;
  std::vector<char> span(t.leader || h.rank == root ? std::max(t.span_bytes(), t.u == 0 ? total : 0) : 0);
  leader_gather(h, send, block, span.data());
  if (h.leaders != MPI_COMM_NULL) gather_span_binomial(span.data(), t.bundles.blocks, h.leaders, {h.nodes, t.root_node}, t.u);
  if (t.hands_over(h, root)) {
    if (h.rank == root)
      recv_bytes(span.data(), total, 0, kTagRootNode, h.node);
    else
      send_bytes(span.data(), total, h.local_rank_of[root], kTagRootNode, h.node);
  }
  if (h.rank == root)
    for (int q = 0; q < h.size; ++q) std::memcpy(block_at(recv, q, block), span.data() + t.bundles.position[q], block);
}

std::string one_node_shm(const Hierarchy &h) {
  std::string why = needs_one_node(h);
  return why.empty() ? needs_shm_area(h, static_cast<size_t>(h.size)) : why;
}

std::string node_shm(const Hierarchy &h) { return needs_shm_area(h, static_cast<size_t>(h.max_ranks_per_node)); }

const Implementation<ScatterFn> kScatter[] = {
    {"binomial", scatter_binomial, nullptr},
    {"linear", scatter_linear, nullptr},
    {"shm", scatter_shm, one_node_shm},
    {"two_level", scatter_two_level, node_shm},
};

const Implementation<GatherFn> kGather[] = {
    {"binomial", gather_binomial, nullptr},
    {"linear", gather_linear, nullptr},
    {"shm", gather_shm, one_node_shm},
    {"two_level", gather_two_level, node_shm},
};

}  // namespace

std::string needs_shm_area(const Hierarchy &h, size_t bytes) {
  size_t area = h.config.shm_buffer_bytes * static_cast<size_t>(h.config.shm_buffers);
  if (area >= bytes) return "";
  return "needs a shared-memory area of " + std::to_string(bytes) + " bytes (coll_shm_buffer_bytes * coll_shm_buffers = " +
         std::to_string(area) + ")";
}

void leader_scatter(Hierarchy &h, const char *send, size_t block, char *recv) {
  if (h.node_rank == 0 && recv) std::memcpy(recv, send, block);
  if (h.node_size > 1) shm::scatter(h.node_segment(), send, block, recv, 0);
}

void leader_gather(Hierarchy &h, const char *send, size_t block, char *recv) {
  if (h.node_size == 1)
    std::memcpy(recv, send, block);
  else
    shm::gather(h.node_segment(), send, block, recv, 0);
}

const Implementation<ScatterFn> *scatter_implementation(const std::string &name) {
  for (const auto &impl : kScatter)
    if (name == impl.name) return &impl;
  return nullptr;
}

const Implementation<GatherFn> *gather_implementation(const std::string &name) {
  for (const auto &impl : kGather)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll
