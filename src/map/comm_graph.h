// The application's communication graph: one vertex per process, one undirected
// edge per communicating pair weighted by the bytes exchanged (both directions
// summed), stored as compressed sparse rows (CSR) so that memory stays linear in
// the number of edges at 65,536 processes and beyond.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace canopy::map {

class CommGraph {
 public:
  /** The most bytes a graph may carry in all: hop-bytes, link loads and every
      sum the mappers form stay finite below it (times at most 65,535 links). */
  static constexpr double kMaxTotalBytes = 1e300;

  CommGraph() = default;

  int num_vertices() const { return static_cast<int>(offsets_.size()) - 1; }
  /** Undirected edges (each stored twice in the rows). */
  int64_t num_edges() const { return static_cast<int64_t>(neighbors_.size()) / 2; }
  /** Sum of the edge weights (each undirected edge once). */
  double total_bytes() const { return total_bytes_; }

  int64_t row_begin(int v) const { return offsets_[static_cast<size_t>(v)]; }
  int64_t row_end(int v) const { return offsets_[static_cast<size_t>(v) + 1]; }
  int degree(int v) const { return static_cast<int>(row_end(v) - row_begin(v)); }
  int neighbor(int64_t i) const { return neighbors_[static_cast<size_t>(i)]; }
  double weight(int64_t i) const { return weights_[static_cast<size_t>(i)]; }
  /** Bytes @p v exchanges with all its neighbours. */
  double vertex_bytes(int v) const;
  /** Bytes of the edge @p u - @p v, 0 without one; scans the shorter row. */
  double bytes_between(int u, int v) const;

  const std::vector<int64_t> &offsets() const { return offsets_; }
  const std::vector<int> &neighbors() const { return neighbors_; }
  const std::vector<double> &weights() const { return weights_; }

  /** The graph induced by @p vertices: vertex i of the result is vertices[i]. */
  CommGraph subgraph(const std::vector<int> &vertices) const;
  /** The same with a caller's scratch array (num_vertices() entries of -1, left
      so), for many small subgraphs of one big graph. */
  CommGraph subgraph(const std::vector<int> &vertices, std::vector<int> &scratch) const;
  /** The graph between parts: vertex p is part p (0..num_parts-1), edge weights
      are the bytes crossing between two parts. */
  CommGraph quotient(const std::vector<int> &part, int num_parts) const;
  /** The same graph with isolated vertices appended up to @p n vertices. */
  CommGraph padded(int n) const;

 private:
  friend class CommGraphBuilder;
  std::vector<int64_t> offsets_{0};
  std::vector<int> neighbors_;
  std::vector<double> weights_;
  double total_bytes_ = 0;
};

/** Collects (u, v, bytes) volumes in any order and direction; build() merges
    duplicates and both directions of a pair, and drops self-loops and pairs
    whose total is zero (they cost nothing wherever they are placed). build()
    throws Error(INVALID_ARG), prefixed with @p source (a file) when given, when
    the volumes add up to more than CommGraph::kMaxTotalBytes. */
class CommGraphBuilder {
 public:
  explicit CommGraphBuilder(int num_vertices);
  /** Throws Error(INVALID_ARG) for a vertex out of range or a negative or non-finite volume. */
  void add(int u, int v, double bytes);
  CommGraph build(const std::string &source = {});

 private:
  friend class CommGraph;  // quotient() hands over its pairs already merged and sorted
  struct Entry {
    int u, v;
    double bytes;
  };
  /** The graph of entries_ merged and sorted by (u, v), u < v. */
  CommGraph assemble();
  int n_;
  std::vector<Entry> entries_;
};

}  // namespace canopy::map
