// The mapping benchmark's mesh generator (bench/gen_mesh.cpp): its k-d tree
// finds exactly the nearest neighbours that a brute-force search finds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "../../bench/nearest_neighbors.h"

namespace canopy {
namespace {

std::vector<int> brute_force_nearest(const std::vector<bench::Point3> &points, int v, int k) {
  std::vector<std::pair<double, int>> all;
  for (int u = 0; u < static_cast<int>(points.size()); ++u)
    if (u != v) all.emplace_back(bench::squared_distance(points[static_cast<size_t>(v)], points[static_cast<size_t>(u)]), u);
  std::sort(all.begin(), all.end());
  std::vector<int> out;
  for (int i = 0; i < k && i < static_cast<int>(all.size()); ++i) out.push_back(all[static_cast<size_t>(i)].second);
  return out;
}

TEST(MapBenchMesh, KdTreeNeighboursEqualBruteForce) {
  // Graded like bench_gen_mesh's points: uniform, squeezed into a corner, a dense ball; and duplicates.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<bench::Point3> points;
  for (int i = 0; i < 1500; ++i) {
    bench::Point3 p{u(rng), u(rng), u(rng)};
    if (i % 3 == 1) p = {p.x * p.x * p.x, p.y * p.y * p.y, p.z * p.z * p.z};
    if (i % 3 == 2) p = {0.5 + 0.001 * p.x, 0.5 + 0.001 * p.y, 0.5 + 0.001 * p.z};
    points.push_back(p);
  }
  for (int i = 0; i < 20; ++i) points.push_back(points[static_cast<size_t>(i * 7)]);
  bench::KdTree tree(points);
  for (int k : {1, 10, 40})
    for (int v = 0; v < static_cast<int>(points.size()); ++v) ASSERT_EQ(tree.nearest(v, k), brute_force_nearest(points, v, k)) << v << " " << k;
  EXPECT_TRUE(bench::KdTree(std::vector<bench::Point3>{{0, 0, 0}}).nearest(0, 3).empty());
}

}  // namespace
}  // namespace canopy
