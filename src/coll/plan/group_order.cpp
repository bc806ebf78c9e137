#include "coll/plan/group_order.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace canopy::coll {

GroupOrder::GroupOrder(std::vector<int> group_of, std::vector<int> group_rank_of)
    : group_of_(std::move(group_of)), group_rank_of_(std::move(group_rank_of)) {
  size_t n = group_of_.size();
  if (group_rank_of_.size() != n) throw Error(CANOPY_ERR_INTERNAL, "group order: rank maps differ in length");
  int groups = n ? *std::max_element(group_of_.begin(), group_of_.end()) + 1 : 0;
  size_.assign(static_cast<size_t>(std::max(groups, 0)), 0);
  for (int g : group_of_) {
    if (g < 0) throw Error(CANOPY_ERR_INTERNAL, "group order: negative group");
    ++size_[g];
  }
  // Each group must hold group ranks 0..size-1 exactly once.
  std::vector<std::vector<bool>> seen(size_.size());
  for (size_t g = 0; g < size_.size(); ++g) {
    if (size_[g] == 0) throw Error(CANOPY_ERR_INTERNAL, "group order: group " + std::to_string(g) + " is empty");
    seen[g].assign(static_cast<size_t>(size_[g]), false);
  }
  for (size_t r = 0; r < n; ++r) {
    int g = group_of_[r], k = group_rank_of_[r];
    if (k < 0 || k >= size_[g] || seen[g][k])
      throw Error(CANOPY_ERR_INTERNAL, "group order: rank " + std::to_string(r) + " has a bad group rank");
    seen[g][k] = true;
  }
  start_.assign(size_.size(), 0);
  for (size_t g = 1; g < size_.size(); ++g) start_[g] = start_[g - 1] + size_[g - 1];
}

int GroupOrder::lack_first_index(int g, int rank) const {
  int h = group_of_[rank];
  if (h == g) return ranks() - size_[g] + group_rank_of_[rank];
  int index = group_major_index(rank);
  return h < g ? index : index - size_[g];
}

std::vector<std::pair<int, int>> GroupOrder::lacking(int g) const {
  std::vector<std::pair<int, int>> spans;
  if (start_[g] > 0) spans.emplace_back(0, start_[g]);
  if (start_[g] + size_[g] < ranks()) spans.emplace_back(start_[g] + size_[g], ranks());
  return spans;
}

std::vector<int> GroupOrder::positions(int lack_first_group) const {
  std::vector<int> pos(group_of_.size());
  for (int r = 0; r < ranks(); ++r)
    pos[r] = lack_first_group >= 0 ? lack_first_index(lack_first_group, r) : group_major_index(r);
  return pos;
}

bool is_rank_order(const std::vector<int> &positions) {
  for (size_t r = 0; r < positions.size(); ++r)
    if (positions[r] != static_cast<int>(r)) return false;
  return true;
}

}  // namespace canopy::coll
