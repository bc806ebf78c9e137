#include "map/hop_table.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "topo/routes.h"

namespace canopy::map {
namespace {

// Links from @p source to every node: breadth-first search in which hosts other
// than the source are never transit nodes, as shortest-path routes are found.
std::vector<int> shortest_links(const topo::Topology &topo, int source) {
  std::vector<int> dist(topo.nodes().size(), -1);
  std::deque<int> queue{source};
  dist[static_cast<size_t>(source)] = 0;
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    if (node != source && !topo.node(node).is_switch()) continue;
    for (const topo::Port &port : topo.node(node).ports)
      if (port.connected() && dist[static_cast<size_t>(port.peer_node)] < 0) {
        dist[static_cast<size_t>(port.peer_node)] = dist[static_cast<size_t>(node)] + 1;
        queue.push_back(port.peer_node);
      }
  }
  return dist;
}

uint16_t checked_links(int links, const topo::Topology &topo, int a, int b) {
  if (links < 0)
    throw Error(CANOPY_ERR_ROUTE, "no path from " + topo.node(a).name + " to " + topo.node(b).name);
  if (links > std::numeric_limits<uint16_t>::max()) throw Error(CANOPY_ERR_ROUTE, "route longer than 65535 links");
  return static_cast<uint16_t>(links);
}

// Links from host @p from to every host, by forwarding tables or shortest paths.
std::vector<uint16_t> links_from(const topo::Topology &topo, const std::vector<int> &hosts, int from, bool lft) {
  std::vector<uint16_t> row(hosts.size());
  if (lft) {
    topo::RouteFinder finder(topo, from);
    for (size_t j = 0; j < hosts.size(); ++j) row[j] = checked_links(finder.to(hosts[j]).links(), topo, from, hosts[j]);
  } else {
    std::vector<int> dist = shortest_links(topo, from);
    for (size_t j = 0; j < hosts.size(); ++j) row[j] = checked_links(dist[static_cast<size_t>(hosts[j])], topo, from, hosts[j]);
  }
  return row;
}

}  // namespace

HopTable::HopTable(const topo::Topology &topo, const std::vector<int> &hosts, size_t dense_hosts) : n_(hosts.size()) {
  compact(topo, hosts);
  if (n_ > dense_hosts) return;
  std::vector<uint16_t> matrix(n_ * n_);
  for (size_t a = 0; a < n_; ++a)
    for (size_t b = 0; b < n_; ++b) matrix[a * n_ + b] = static_cast<uint16_t>((*this)(static_cast<int>(a), static_cast<int>(b)));
  *this = from_matrix(std::move(matrix), n_);
}

void HopTable::compact(const topo::Topology &topo, const std::vector<int> &hosts) {
  if (topo::route_method(topo) == topo::RouteMethod::DimensionOrder) {
    const topo::TorusShape &shape = *topo.torus();
    dims_ = shape.dims.size();
    for (int host : hosts) {
      int router = topo.leaf_switch(host);
      if (router < 0) throw Error(CANOPY_ERR_ROUTE, topo.node(host).name + " has no router");
      const std::vector<int> &c = topo.node(router).coords;
      for (size_t d = 0; d < dims_; ++d) coords_.push_back(d < c.size() ? c[d] : 0);
    }
    ring_stride_ = static_cast<size_t>(*std::max_element(shape.dims.begin(), shape.dims.end()));
    ring_.assign(dims_ * ring_stride_, 0);
    int longest = 2;
    for (size_t d = 0; d < dims_; ++d) {
      int length = shape.dims[d], farthest = 0;
      for (int delta = 0; delta < length; ++delta) {
        int links = shape.wrap[d] ? std::min(delta, length - delta) : delta;
        ring_[d * ring_stride_ + static_cast<size_t>(delta)] = static_cast<uint16_t>(links);  // checked below
        farthest = std::max(farthest, links);
      }
      longest += farthest;
    }
    if (longest > std::numeric_limits<uint16_t>::max()) throw Error(CANOPY_ERR_ROUTE, "route longer than 65535 links");
    fewest_links_ = n_ > 1 ? 2 : 0;  // two hosts on one router
    return;
  }
  // One row per leaf switch (a host with none has its own), from the switch's first host.
  bool lft = topo::route_method(topo) == topo::RouteMethod::Lft;
  std::unordered_map<int, uint32_t> row_of_switch;
  std::vector<size_t> first_host;  // per row: the host it was computed from
  row_of_.resize(n_);
  for (size_t i = 0; i < n_; ++i) {
    int leaf = topo.leaf_switch(hosts[i]);
    auto [it, added] = row_of_switch.emplace(leaf >= 0 ? leaf : -1 - static_cast<int>(i), static_cast<uint32_t>(first_host.size()));
    size_t row = row_of_[i] = it->second;
    if (added) {
      first_host.push_back(i);
      std::vector<uint16_t> links = links_from(topo, hosts, hosts[i], lft);
      rows_.insert(rows_.end(), links.begin(), links.end());
    } else if (uint16_t &to_first = rows_[row * n_ + first_host[row]]; to_first == 0) {
      // The row says 0 links to its own host; the other hosts of the switch need their links to it.
      int from = hosts[i], to = hosts[first_host[row]];
      to_first = lft ? checked_links(topo::find_route(topo, from, to).links(), topo, from, to) : 2;
    }
  }
  // A 0 in a row is its own host's (two different hosts are at least a link apart).
  uint16_t fewest = std::numeric_limits<uint16_t>::max();
  for (uint16_t links : rows_)
    if (links > 0) fewest = std::min(fewest, links);
  fewest_links_ = n_ > 1 ? fewest : 0;
}

HopTable HopTable::from_matrix(std::vector<uint16_t> matrix, size_t n) {
  if (matrix.size() != n * n)
    throw Error(CANOPY_ERR_INVALID_ARG, "a distance matrix of " + std::to_string(matrix.size()) + " entries is not " +
                                            std::to_string(n) + " x " + std::to_string(n));
  HopTable table;
  table.n_ = n;
  table.rows_ = std::move(matrix);
  table.fewest_links_ = n > 1 ? std::numeric_limits<uint16_t>::max() : 0;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (a != b) table.fewest_links_ = std::min<int>(table.fewest_links_, table.rows_[a * n + b]);
  return table;
}

size_t HopTable::bytes() const {
  return row_of_.size() * sizeof(uint32_t) + rows_.size() * sizeof(uint16_t) + coords_.size() * sizeof(int) +
         ring_.size() * sizeof(uint16_t);
}

}  // namespace canopy::map
