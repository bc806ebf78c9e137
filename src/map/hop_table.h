// Network links between every two hosts of an allocation, along the routes the
// fabric really uses. A hosts x hosts matrix is the fastest to read but grows
// with the square (8 GiB at 65,536 hosts), so it is kept only up to kDenseHosts
// hosts. Above, hosts hanging from one switch reach every other host along the
// same path after their first link (forwarding tables route by destination,
// shortest paths share the switch): a switched fabric keeps one row per leaf
// switch, hosts x leaf switches. Dimension-order routes on a torus are the ring
// distances between the routers plus the two host links, computed from the
// routers' coordinates: hosts x dimensions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "topo/topology.h"

namespace canopy::map {

class HopTable {
 public:
  // 8 MiB of matrix. At 4,096 hosts (65,536 processes of the benchmark) rt ran
  // up to 28% faster on the rows per leaf switch than on the matrix, and up to
  // 25% slower on the torus coordinates (docs/benchmarks.md).
  static constexpr size_t kDenseHosts = 2048;

  /** The links between @p hosts (topology nodes, in allocation order) along the
      fabric's routes, as a matrix up to @p dense_hosts hosts. Throws Error(ROUTE)
      where a route is broken or longer than 65,535 links. */
  HopTable(const topo::Topology &topo, const std::vector<int> &hosts, size_t dense_hosts = kDenseHosts);
  /** Explicit distances: @p matrix is n x n, row a for host a. Error(INVALID_ARG)
      if it is not square. */
  static HopTable from_matrix(std::vector<uint16_t> matrix, size_t n);

  /** Links on the route from host @p a to host @p b (allocation indexes). */
  int operator()(int a, int b) const {
    if (row_of_.empty() && dims_ == 0) return rows_[static_cast<size_t>(a) * n_ + static_cast<size_t>(b)];  // the matrix
    return from(a)(b);
  }
  /** The links from host a: from(a)(b) == (*this)(a, b), a's row (or its
      router's coordinates) found once for many lookups. */
  class From {
   public:
    int operator()(int b) const {
      if (b == own_) return 0;
      if (row_) return row_[b];
      const int *cb = &table_->coords_[static_cast<size_t>(b) * table_->dims_];
      const uint16_t *ring = table_->ring_.data();
      int links = 2;  // host to router, router to host
      for (size_t d = 0; d < table_->dims_; ++d, ring += table_->ring_stride_) links += ring[std::abs(coords_[d] - cb[d])];
      return links;
    }

   private:
    friend class HopTable;
    From(const HopTable *table, const uint16_t *row, const int *coords, int own)
        : table_(table), row_(row), coords_(coords), own_(own) {}
    const HopTable *table_;
    const uint16_t *row_;  // the matrix's row or the leaf switch's; null on a torus
    const int *coords_;    // on a torus: the host's router coordinates
    int own_;              // the host itself (0 links); -1 in the matrix, whose row says so
  };
  From from(int a) const {
    size_t ua = static_cast<size_t>(a);
    if (dims_ > 0) return {this, nullptr, &coords_[ua * dims_], a};
    if (row_of_.empty()) return {this, &rows_[ua * n_], nullptr, -1};
    return {this, &rows_[row_of_[ua] * n_], nullptr, a};
  }
  size_t size() const { return n_; }
  /** The fewest links between two different hosts (0 with fewer than two hosts). */
  int fewest_links() const { return fewest_links_; }
  /** Memory the table holds. */
  size_t bytes() const;

 private:
  HopTable() = default;
  // Rows per leaf switch or torus coordinates.
  void compact(const topo::Topology &topo, const std::vector<int> &hosts);

  size_t n_ = 0;
  int fewest_links_ = 0;
  // The matrix (row_of_ empty, dims_ 0), or one row per leaf switch: row row_of_[a]
  // holds the links from host a's switch to every host (a == b aside).
  std::vector<uint32_t> row_of_;
  std::vector<uint16_t> rows_;
  // Tori with dimension-order routes (dims_ > 0): each host's router coordinates
  // (n x dims_), and per dimension the links by coordinate difference (ring_stride_ apart).
  size_t dims_ = 0, ring_stride_ = 0;
  std::vector<int> coords_;
  std::vector<uint16_t> ring_;
};

}  // namespace canopy::map
