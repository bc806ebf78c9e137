#include "map/comm_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "common/error.h"

namespace canopy::map {

double CommGraph::vertex_bytes(int v) const {
  double sum = 0;
  for (int64_t i = row_begin(v); i < row_end(v); ++i) sum += weight(i);
  return sum;
}

double CommGraph::bytes_between(int u, int v) const {
  if (degree(u) > degree(v)) std::swap(u, v);
  for (int64_t i = row_begin(u); i < row_end(u); ++i)
    if (neighbor(i) == v) return weight(i);
  return 0;
}

CommGraph CommGraph::subgraph(const std::vector<int> &vertices) const {
  std::vector<int> scratch(static_cast<size_t>(num_vertices()), -1);
  return subgraph(vertices, scratch);
}

CommGraph CommGraph::subgraph(const std::vector<int> &vertices, std::vector<int> &local) const {
  for (size_t i = 0; i < vertices.size(); ++i) local[static_cast<size_t>(vertices[i])] = static_cast<int>(i);
  CommGraph g;
  g.offsets_.reserve(vertices.size() + 1);
  int64_t most = 0;  // the rows' lengths: an upper bound, so that the arrays never grow by copying
  for (int v : vertices) most += row_end(v) - row_begin(v);
  g.neighbors_.reserve(static_cast<size_t>(most));
  g.weights_.reserve(static_cast<size_t>(most));
  for (int v : vertices) {
    for (int64_t i = row_begin(v); i < row_end(v); ++i) {
      int u = local[static_cast<size_t>(neighbor(i))];
      if (u < 0) continue;
      g.neighbors_.push_back(u);
      g.weights_.push_back(weight(i));
      g.total_bytes_ += weight(i);
    }
    g.offsets_.push_back(static_cast<int64_t>(g.neighbors_.size()));
  }
  g.total_bytes_ /= 2;
  for (int v : vertices) local[static_cast<size_t>(v)] = -1;
  return g;
}

CommGraph CommGraph::quotient(const std::vector<int> &part, int num_parts) const {
  // Vertices grouped by part (counting sort), then each part's bytes to the
  // higher parts summed in a dense array: the builder's merged pairs, in its
  // order, in time linear in the edges (sorting every edge took a tenth of a
  // coarse tree walk).
  std::vector<int64_t> first(static_cast<size_t>(num_parts) + 1, 0);
  for (int p : part) {
    if (p < 0 || p >= num_parts) throw Error(CANOPY_ERR_INVALID_ARG, "quotient: part " + std::to_string(p) + " is out of range");
    ++first[static_cast<size_t>(p) + 1];
  }
  for (size_t p = 0; p < static_cast<size_t>(num_parts); ++p) first[p + 1] += first[p];
  std::vector<int> members(static_cast<size_t>(num_vertices()));
  std::vector<int64_t> fill(first.begin(), first.end() - 1);
  for (int v = 0; v < num_vertices(); ++v) members[static_cast<size_t>(fill[static_cast<size_t>(part[static_cast<size_t>(v)])]++)] = v;
  CommGraphBuilder builder(num_parts);
  std::vector<double> bytes_to(static_cast<size_t>(num_parts), 0);
  std::vector<int> higher;
  for (size_t p = 0; p < static_cast<size_t>(num_parts); ++p) {
    for (int64_t m = first[p]; m < first[p + 1]; ++m) {
      int v = members[static_cast<size_t>(m)];
      for (int64_t i = row_begin(v); i < row_end(v); ++i) {
        size_t q = static_cast<size_t>(part[static_cast<size_t>(neighbor(i))]);
        if (q <= p) continue;
        if (bytes_to[q] == 0) higher.push_back(static_cast<int>(q));  // weights are > 0
        bytes_to[q] += weight(i);
      }
    }
    std::sort(higher.begin(), higher.end());
    for (int q : higher) builder.entries_.push_back({static_cast<int>(p), q, std::exchange(bytes_to[static_cast<size_t>(q)], 0.0)});
    higher.clear();
  }
  return builder.assemble();
}

CommGraph CommGraph::padded(int n) const {
  CommGraph g = *this;
  while (g.num_vertices() < n) g.offsets_.push_back(g.offsets_.back());
  return g;
}

CommGraphBuilder::CommGraphBuilder(int num_vertices) : n_(num_vertices) {
  if (num_vertices < 0) throw Error(CANOPY_ERR_INVALID_ARG, "negative number of processes");
}

void CommGraphBuilder::add(int u, int v, double bytes) {
  if (u < 0 || v < 0 || u >= n_ || v >= n_)
    throw Error(CANOPY_ERR_INVALID_ARG, "process " + std::to_string(u < 0 || u >= n_ ? u : v) +
                                            " is out of range (0.." + std::to_string(n_ - 1) + ")");
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw Error(CANOPY_ERR_INVALID_ARG, "communication volume must be a finite number >= 0");
  if (u == v || bytes == 0) return;
  entries_.push_back({std::min(u, v), std::max(u, v), bytes});
}

CommGraph CommGraphBuilder::build(const std::string &source) {
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry &a, const Entry &b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
  // Merge duplicates in place, then count both directions per vertex.
  size_t merged = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (merged && entries_[merged - 1].u == entries_[i].u && entries_[merged - 1].v == entries_[i].v)
      entries_[merged - 1].bytes += entries_[i].bytes;
    else
      entries_[merged++] = entries_[i];
  }
  entries_.resize(merged);
  CommGraph g = assemble();
  if (!(g.total_bytes() <= CommGraph::kMaxTotalBytes)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", g.total_bytes());
    throw Error(CANOPY_ERR_INVALID_ARG, (source.empty() ? "" : source + ": ") + "the communication volumes add up to " +
                                            text + " bytes, more than 1e300 (hop-bytes would overflow)");
  }
  return g;
}

CommGraph CommGraphBuilder::assemble() {
  size_t merged = entries_.size();
  CommGraph g;
  g.offsets_.assign(static_cast<size_t>(n_) + 1, 0);
  for (const Entry &e : entries_) {
    ++g.offsets_[static_cast<size_t>(e.u) + 1];
    ++g.offsets_[static_cast<size_t>(e.v) + 1];
  }
  for (size_t v = 0; v < static_cast<size_t>(n_); ++v) g.offsets_[v + 1] += g.offsets_[v];
  g.neighbors_.resize(2 * merged);
  g.weights_.resize(2 * merged);
  std::vector<int64_t> fill(g.offsets_.begin(), g.offsets_.end() - 1);
  // Entries are sorted by (u, v) with u < v: the first pass gives every row its
  // lower neighbours in order, the second its higher ones, so rows come out sorted.
  for (int pass = 0; pass < 2; ++pass)
    for (const Entry &e : entries_) {
      int from = pass == 0 ? e.v : e.u, to = pass == 0 ? e.u : e.v;
      size_t at = static_cast<size_t>(fill[static_cast<size_t>(from)]++);
      g.neighbors_[at] = to;
      g.weights_[at] = e.bytes;
    }
  for (const Entry &e : entries_) g.total_bytes_ += e.bytes;
  entries_.clear();
  entries_.shrink_to_fit();
  return g;
}

}  // namespace canopy::map
