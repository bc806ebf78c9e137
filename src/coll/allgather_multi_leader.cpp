// Multi-leader hierarchical Allgather (Kandalla, Subramoni, Santhanaraman, Koop and Panda,
// "Designing Multi-Leader-Based Allgather Algorithms for Multi-Core Clusters", section 4).
// Each node is cut into leader groups (Hierarchy::group: coll_leaders_per_node per node, or
// one per socket), and every call runs three phases:
//   1. aggregation    each group collects its members' blocks: recursive doubling or ring
//                     (every member ends with them), a binomial gather to the leader, or the
//                     group's shared segment (Group_seg_put, Group_sync, Group_get)
//   2. exchange       the group leaders allgather the group bundles (recursive doubling or
//                     ring, coll_allgather_inter_algorithm)
//   3. distribution   each leader sends its group only the blocks it lacks (the other groups'
//                     bundles; everything after a gather): binomial Bcast, or Sender_put,
//                     Group_sync, Group_get on the group's segment
// Buffer orders (group-major for the exchange, lack-first for members): plan/group_order.h.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "coll/allgather.h"
#include "coll/shm/node_collectives.h"

namespace canopy::coll {
namespace {

enum class Transport { P2P, Shm };

// The buffer a rank works in: the receive buffer itself when its layout is already rank
// order, else scratch space that finish() copies out in rank order.
class WorkBuffer {
 public:
  WorkBuffer(char *recv, size_t block, std::vector<int> positions, int rank)
      : recv_(recv), block_(block), positions_(std::move(positions)) {
    if (is_rank_order(positions_)) {
      data_ = recv;
      return;
    }
    scratch_.resize(positions_.size() * block);
    data_ = scratch_.data();
    std::memcpy(at(positions_[rank]), recv + static_cast<size_t>(rank) * block, block);
  }
  char *data() const { return data_; }
  char *at(int index) const { return data_ + static_cast<size_t>(index) * block_; }
  void finish() const {
    if (data_ == recv_) return;
    for (size_t r = 0; r < positions_.size(); ++r) std::memcpy(recv_ + r * block_, at(positions_[r]), block_);
  }

 private:
  char *recv_, *data_ = nullptr;
  size_t block_;
  std::vector<int> positions_;
  std::vector<char> scratch_;
};

// Phase 1 on the group's bundle (its members' blocks in group-rank order).
void aggregate(Hierarchy &h, char *bundle, size_t block, Transport transport) {
  int members = h.group_order.size(h.group_id);
  if (members == 1) return;
  if (transport == Transport::Shm)
    return shm::allgather(h.group_segment(), bundle + static_cast<size_t>(h.group_rank) * block, block, bundle);
  Blocks blocks = Blocks::uniform(block, members);
  VirtualRanks vr{members, 0};
  switch (h.config.allgather_intra) {
    case GroupAggregation::RecursiveDoubling: return allgather_blocks_rd(bundle, blocks, h.group, vr, h.group_rank);
    case GroupAggregation::Ring: return allgather_blocks_ring(bundle, blocks, h.group, vr, h.group_rank);
    case GroupAggregation::Gather: return gather_blocks_binomial(bundle, blocks, h.group, vr, h.group_rank);
  }
}

// Phase 2 on the leader's group-major buffer.
void exchange(Hierarchy &h, BlockAllgatherFn inter, char *work, size_t block) {
  const GroupOrder &order = h.group_order;
  Blocks bundles;
  for (int g = 0; g < order.groups(); ++g) {
    bundles.offset.push_back(static_cast<size_t>(order.start(g)) * block);
    bundles.length.push_back(static_cast<size_t>(order.size(g)) * block);
  }
  inter(work, bundles, h.group_leaders, {order.groups(), 0}, h.group_id);
}

// The leader's phase-3 message: the group-major spans its group lacks, as one contiguous
// buffer (in place when they already are one span, else packed into @p staging).
char *lacking_message(const GroupOrder &order, int g, char *work, size_t block, std::vector<char> &staging) {
  std::vector<std::pair<int, int>> spans = order.lacking(g);
  if (spans.size() == 1) return work + static_cast<size_t>(spans[0].first) * block;
  staging.resize(static_cast<size_t>(order.ranks() - order.size(g)) * block);
  size_t at = 0;
  for (auto [lo, hi] : spans) {
    size_t bytes = static_cast<size_t>(hi - lo) * block;
    std::memcpy(staging.data() + at, work + static_cast<size_t>(lo) * block, bytes);
    at += bytes;
  }
  return staging.data();
}

// Phase 3: group rank 0 sends @p bytes at @p msg to the rest of its group.
void distribute(Hierarchy &h, char *msg, size_t bytes, Transport transport) {
  if (bytes == 0 || h.group_order.size(h.group_id) == 1) return;
  if (transport == Transport::Shm)
    shm::bcast(h.group_segment(), msg, bytes, 0, h.config.shm_mode);
  else
    flat_bcast(h.config, "binomial", h.group, msg, bytes, 0);
}

void multi_leader(Hierarchy &h, char *recv, size_t block, Transport transport) {
  BlockAllgatherFn inter = inter_leader_allgather(h.config.allgather_inter_algorithm);  // every rank, before traffic
  h.split_groups();
  const GroupOrder &order = h.group_order;
  int g = h.group_id;
  bool leader = h.leads_group();
  // After a gather only the leader holds the group's blocks, so it sends everything.
  bool members_hold_bundle = transport == Transport::Shm || h.config.allgather_intra != GroupAggregation::Gather;
  // Leaders exchange in group-major order; members holding the bundle receive the rest in front
  // of it (lack-first), the others receive the whole group-major buffer.
  std::vector<int> positions = order.positions(leader || !members_hold_bundle ? -1 : g);
  int bundle_index = positions[h.rank] - h.group_rank;  // both orders keep a group's members together
  WorkBuffer work(recv, block, std::move(positions), h.rank);
  aggregate(h, work.at(bundle_index), block, transport);
  std::vector<char> staging;
  char *msg = work.data();
  if (leader) {
    if (h.group_leaders != MPI_COMM_NULL) exchange(h, inter, work.data(), block);
    if (members_hold_bundle && order.size(g) > 1) msg = lacking_message(order, g, work.data(), block, staging);
  }
  size_t lacking = static_cast<size_t>(members_hold_bundle ? order.ranks() - order.size(g) : order.ranks()) * block;
  distribute(h, msg, lacking, transport);
  work.finish();
}

}  // namespace

void allgather_multi_leader_p2p(Hierarchy &h, const char *mine, char *recv, size_t block) {
  place_own_block(h, mine, recv, block);
  multi_leader(h, recv, block, Transport::P2P);
}
void allgather_multi_leader_shm(Hierarchy &h, const char *mine, char *recv, size_t block) {
  place_own_block(h, mine, recv, block);
  multi_leader(h, recv, block, Transport::Shm);
}

std::string multi_leader_shm_applicable(const Hierarchy &h) {
  int largest = 0;
  for (int g = 0; g < h.group_order.groups(); ++g) largest = std::max(largest, h.group_order.size(g));
  size_t area = h.config.shm_buffer_bytes * static_cast<size_t>(h.config.shm_buffers);
  if (area < static_cast<size_t>(largest))
    return "needs coll_shm_buffer_bytes * coll_shm_buffers >= " + std::to_string(largest) + " (ranks in a group)";
  return "";
}

}  // namespace canopy::coll
