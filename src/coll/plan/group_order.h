// Where each rank's block sits in the buffers of the multi-leader Allgather
// (Kandalla et al.), without MPI so it is unit-tested.
//
// Leader groups are numbered 0..G-1 across the communicator (the rank of the
// group's leader among all group leaders). The inter-leader exchange works on
// "group-major" order: group 0's bundle (its members in group-rank order), then
// group 1's, ... After aggregation every member of group g already holds g's
// bundle, so the distribution sends only the blocks g lacks: every other group's
// bundle. Members receive those into a "lack-first" buffer (the lacking blocks
// in group-major order, then g's own bundle), so the lacking part is one
// contiguous message. A final copy puts blocks in communicator-rank order.
#pragma once
#include <utility>
#include <vector>

namespace canopy::coll {

class GroupOrder {
 public:
  GroupOrder() = default;
  /** @p group_of and @p group_rank_of: per communicator rank, its group and its rank in it.
      Throws Error(INTERNAL) unless every group holds ranks 0..n-1 exactly once and groups are 0..G-1. */
  GroupOrder(std::vector<int> group_of, std::vector<int> group_rank_of);

  int ranks() const { return static_cast<int>(group_of_.size()); }
  int groups() const { return static_cast<int>(start_.size()); }
  int group_of(int rank) const { return group_of_[rank]; }
  /** First group-major index of group @p g's bundle, and its member count. */
  int start(int g) const { return start_[g]; }
  int size(int g) const { return size_[g]; }

  /** Index of @p rank's block in group-major order. */
  int group_major_index(int rank) const { return start_[group_of_[rank]] + group_rank_of_[rank]; }
  /** Index of @p rank's block in group @p g's lack-first order. */
  int lack_first_index(int g, int rank) const;
  /** Group-major index ranges [lo, hi) that group @p g lacks once it holds its own bundle: at most
      two (before and after its bundle), empty ranges left out. */
  std::vector<std::pair<int, int>> lacking(int g) const;

  /** Index of every rank's block, in group-major order or (g >= 0) in group g's lack-first order. */
  std::vector<int> positions(int lack_first_group = -1) const;

 private:
  std::vector<int> group_of_, group_rank_of_, start_, size_;
};

/** True when positions[r] == r for every r (the buffer is already in rank order). */
bool is_rank_order(const std::vector<int> &positions);

}  // namespace canopy::coll
