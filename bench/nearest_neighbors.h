// Exact k-nearest-neighbour search in 3D through a k-d tree, for bench_gen_mesh
// (bench/gen_mesh.cpp). A k-d tree adapts to any density: the graded point
// sets of the mapping benchmark pack a quarter of the points into a small ball,
// where a uniform grid of buckets degenerates (tens of thousands of candidates
// per point at 2^20 points).
#pragma once
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace canopy::bench {

struct Point3 {
  double x, y, z;
  double operator[](int axis) const { return axis == 0 ? x : axis == 1 ? y : z; }
};

inline double squared_distance(const Point3 &a, const Point3 &b) {
  return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z);
}

class KdTree {
 public:
  explicit KdTree(const std::vector<Point3> &points) : points_(points), order_(points.size()) {
    std::iota(order_.begin(), order_.end(), 0);
    if (!points.empty()) build(0, static_cast<int>(points.size()));
  }

  /** The k points nearest to point v (v itself left out), nearest first; equal
      distances in index order. Exact: a subtree is skipped only when the plane
      that bounds it is farther than the k-th candidate. */
  std::vector<int> nearest(int v, int k) const {
    Search s{points_[static_cast<size_t>(v)], v, k, {}};
    if (k > 0 && !nodes_.empty()) search(0, s);
    std::vector<int> out;
    for (const auto &entry : s.best) out.push_back(entry.second);
    return out;
  }

 private:
  static constexpr int kLeafSize = 8;

  struct Node {
    int begin, end;     // the node's points: order_[begin, end)
    int axis = -1;      // -1: a leaf
    double split = 0;   // left child: coordinate <= split, right child: >= split
    int left = -1, right = -1;
  };

  struct Search {
    Point3 p;
    int self, k;
    std::vector<std::pair<double, int>> best;  // (squared distance, point), the k best so far, sorted
  };

  // Builds the subtree of order_[begin, end); returns its node. Median split along the widest extent.
  int build(int begin, int end) {
    int id = static_cast<int>(nodes_.size());
    nodes_.push_back({begin, end});
    if (end - begin <= kLeafSize) return id;
    Point3 lo = points_[static_cast<size_t>(order_[static_cast<size_t>(begin)])], hi = lo;
    for (int t = begin; t < end; ++t) {
      const Point3 &q = points_[static_cast<size_t>(order_[static_cast<size_t>(t)])];
      lo = {std::min(lo.x, q.x), std::min(lo.y, q.y), std::min(lo.z, q.z)};
      hi = {std::max(hi.x, q.x), std::max(hi.y, q.y), std::max(hi.z, q.z)};
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
      if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    int mid = begin + (end - begin) / 2;
    std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                     [&](int a, int b) { return points_[static_cast<size_t>(a)][axis] < points_[static_cast<size_t>(b)][axis]; });
    double split = points_[static_cast<size_t>(order_[static_cast<size_t>(mid)])][axis];
    int left = build(begin, mid), right = build(mid, end);
    nodes_[static_cast<size_t>(id)].axis = axis;
    nodes_[static_cast<size_t>(id)].split = split;
    nodes_[static_cast<size_t>(id)].left = left;
    nodes_[static_cast<size_t>(id)].right = right;
    return id;
  }

  void consider(int u, Search &s) const {
    if (u == s.self) return;
    std::pair<double, int> entry{squared_distance(s.p, points_[static_cast<size_t>(u)]), u};
    if (static_cast<int>(s.best.size()) == s.k && !(entry < s.best.back())) return;
    s.best.insert(std::upper_bound(s.best.begin(), s.best.end(), entry), entry);
    if (static_cast<int>(s.best.size()) > s.k) s.best.pop_back();
  }

  void search(int id, Search &s) const {
    const Node &node = nodes_[static_cast<size_t>(id)];
    if (node.axis < 0) {
      for (int t = node.begin; t < node.end; ++t) consider(order_[static_cast<size_t>(t)], s);
      return;
    }
    double diff = s.p[node.axis] - node.split;
    search(diff < 0 ? node.left : node.right, s);
    // Every point beyond the plane is at least |diff| away; an equal distance may still win on its index.
    if (static_cast<int>(s.best.size()) < s.k || diff * diff <= s.best.back().first) search(diff < 0 ? node.right : node.left, s);
  }

  const std::vector<Point3> &points_;
  std::vector<int> order_;
  std::vector<Node> nodes_;
};

}  // namespace canopy::bench
