// Generates an unstructured 3D mesh as a MatrixMarket pattern matrix, for the
// task-mapping benchmark (bench/mapping.sh): `canopy map --graph mesh.mtx
// --parts P` then partitions its rows with METIS into P processes, as the paper
// does with F1, audikw_1 and nlpkkt120.
//
// The points are random in the unit box with a graded density, as a mesh
// refined towards a feature: half of them uniform, a quarter packed towards
// the corner (0,0,0) (coordinates squared), a quarter in a small ball. Each
// point is joined to its k nearest neighbours (a k-nearest-neighbour graph,
// made symmetric), found exactly through a k-d tree (bench/nearest_neighbors.h;
// the uniform bucket grid it replaced gave the same files but degenerated in
// the dense ball at 2^20 points). Same seed, same file.
//
//   bench_gen_mesh --points 524288 --neighbors 10 --seed 1 -o mesh.mtx
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "nearest_neighbors.h"

namespace {

using Point = canopy::bench::Point3;

std::vector<Point> graded_points(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Point> points(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Point p{u(rng), u(rng), u(rng)};
    if (i % 4 == 2) p = {p.x * p.x, p.y * p.y, p.z * p.z};
    if (i % 4 == 3) {  // inside a ball of radius 0.1 around (0.7, 0.6, 0.5), denser at its centre
      double r = 0.1 * u(rng), theta = std::acos(2 * u(rng) - 1), phi = 2 * M_PI * u(rng);
      p = {0.7 + r * std::sin(theta) * std::cos(phi), 0.6 + r * std::sin(theta) * std::sin(phi), 0.5 + r * std::cos(theta)};
    }
    points[static_cast<size_t>(i)] = p;
  }
  return points;
}

std::string matrix_market(const std::vector<Point> &pts, int k) {
  canopy::bench::KdTree tree(pts);
  std::vector<std::pair<int, int>> entries;  // (row, column), row > column, 0-based
  for (int v = 0; v < static_cast<int>(pts.size()); ++v)
    for (int u : tree.nearest(v, k)) entries.emplace_back(std::max(u, v), std::min(u, v));
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  std::string out = "%%MatrixMarket matrix coordinate pattern symmetric\n% canopy bench_gen_mesh: graded random points, k-nearest-neighbour graph\n";
  out += std::to_string(pts.size()) + " " + std::to_string(pts.size()) + " " + std::to_string(entries.size() + pts.size()) + "\n";
  char line[48];
  size_t next = 0;
  for (size_t row = 0; row < pts.size(); ++row) {
    for (; next < entries.size() && static_cast<size_t>(entries[next].first) == row; ++next) {
      std::snprintf(line, sizeof line, "%d %d\n", entries[next].first + 1, entries[next].second + 1);
      out += line;
    }
    std::snprintf(line, sizeof line, "%zu %zu\n", row + 1, row + 1);  // the diagonal, as a real matrix has
    out += line;
  }
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"Unstructured 3D mesh (graded random points, k-nearest-neighbour graph) as a MatrixMarket pattern matrix"};
  int points = 0, neighbors = 10;
  unsigned seed = 1;
  std::string output;
  app.add_option("--points", points, "Mesh points (matrix rows)")->required()->check(CLI::Range(2, 1 << 26));
  app.add_option("--neighbors", neighbors, "Nearest neighbours joined to every point")->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--seed", seed, "Random seed")->capture_default_str();
  app.add_option("-o,--output", output, "MatrixMarket file to write")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    neighbors = std::min(neighbors, points - 1);
    canopy::write_file_atomic(output, matrix_market(graded_points(points, seed), neighbors));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_gen_mesh: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
