#include "cut_relaxation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "map/partition.h"

namespace canopy::bench {
namespace {

// The switch hierarchy's levels, when the hop count of every pair of hosts is a
// function F(d) of the depth d at which their paths from the root part
// (hops_by_common_depth): pairs are together at levels 1..d and apart below,
// so level l weighs F(l-1) - F(l), with F(depth) = 0 for a host and itself.
std::optional<std::vector<HostCut>> hierarchy_cuts(const map::Machine &m, std::string &why) {
  std::vector<std::vector<int>> paths = map::hierarchy_paths(m);
  std::vector<int> hops = map::hops_by_common_depth(m, paths);
  if (hops.empty()) {
    why = "hop counts do not follow the switch hierarchy, or hosts sit at different depths of it";
    return std::nullopt;
  }
  hops.push_back(0);
  // A depth no pair parts at splits the hosts as the depth below does: its level weighs nothing.
  for (size_t d = hops.size() - 1; d-- > 0;)
    if (hops[d] < 0) hops[d] = hops[d + 1];
  std::vector<HostCut> cuts;
  for (size_t level = 1; level < hops.size(); ++level) {
    HostCut c{"level " + std::to_string(level), static_cast<double>(hops[level - 1] - hops[level]), {}, 0};
    if (c.weight < 0) {
      why = "hop counts fall towards the root of the switch hierarchy";
      return std::nullopt;
    }
    std::map<std::vector<int>, int> part_of_subtree;  // a subtree: the path from the root to it
    for (const std::vector<int> &path : paths) {
      auto [it, added] = part_of_subtree.emplace(std::vector<int>(path.begin(), path.begin() + level), c.parts);
      c.parts += added;
      c.part_of_host.push_back(it->second);
    }
    cuts.push_back(std::move(c));
  }
  return cuts;
}

// Dimension-order routes on a torus: the host links (a constant for any two
// hosts) plus each dimension's ring or line distance, which counts the
// diametral cuts of a ring (L/2 pairs of opposite links, L even) or the links
// of a line between the two positions.
std::optional<std::vector<HostCut>> torus_cuts(const map::Machine &m, std::string &why) {
  const topo::TorusShape &shape = *m.topology().torus();
  const auto &coords = m.coordinates();
  int hosts = m.num_hosts();
  std::vector<HostCut> cuts{{"hosts", 0, {}, hosts}};
  for (int h = 0; h < hosts; ++h) cuts[0].part_of_host.push_back(h);
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    int length = shape.dims[d];
    if (shape.wrap[d] && length % 2 != 0 && length > 2) {
      why = "dimension " + std::to_string(d) + " is a ring of odd length " + std::to_string(length);
      return std::nullopt;
    }
    int positions = shape.wrap[d] ? length / 2 : length - 1;
    for (int i = 0; i < positions; ++i) {
      HostCut c{"dim " + std::to_string(d) + " at " + std::to_string(i), 1, {}, 2};
      for (int h = 0; h < hosts; ++h) {
        int x = coords[static_cast<size_t>(h)][d];
        c.part_of_host.push_back(shape.wrap[d] ? ((x - i - 1 + length) % length < length / 2) : x > i);
      }
      cuts.push_back(std::move(c));
    }
  }
  auto host_links = [&](int a, int b) {
    return m.hops(a, b) - shape.distance(coords[static_cast<size_t>(a)], coords[static_cast<size_t>(b)]);
  };
  cuts[0].weight = host_links(0, 1);
  for (int a = 0; a < hosts; ++a)
    for (int b = a + 1; b < hosts; ++b)
      if (host_links(a, b) != cuts[0].weight || cuts[0].weight < 0) {
        why = "hop counts are not the torus distance plus a constant (" + m.host_name(a) + " to " + m.host_name(b) + ")";
        return std::nullopt;
      }
  return cuts;
}

}  // namespace

std::optional<std::vector<HostCut>> hop_cuts(const map::Machine &m, std::string &why) {
  if (m.num_hosts() < 2) {
    why = "a single host";
    return std::nullopt;
  }
  if (m.topology().torus() && !m.coordinates().empty()) return torus_cuts(m, why);
  if (!m.topology().switches().empty()) return hierarchy_cuts(m, why);
  why = "neither a switch hierarchy nor torus coordinates";
  return std::nullopt;
}

std::vector<double> bytes_across(const map::CommGraph &g, const std::vector<HostCut> &cuts, const std::vector<int> &host_of) {
  std::vector<double> bytes;
  std::vector<int> part(host_of.size());
  for (const HostCut &c : cuts) {
    for (size_t v = 0; v < host_of.size(); ++v) part[v] = c.part_of_host[static_cast<size_t>(host_of[v])];
    bytes.push_back(map::edge_cut(g, part));
  }
  return bytes;
}

std::vector<double> partition_cuts(const map::CommGraph &g, const map::Machine &m, const std::vector<HostCut> &cuts,
                                   int seeds) {
  std::map<std::vector<int>, double> fewest;  // by the sorted part sizes: hosts are interchangeable here
  std::vector<double> bytes;
  for (const HostCut &c : cuts) {
    std::vector<int> sizes(static_cast<size_t>(c.parts), 0);
    for (size_t h = 0; h < c.part_of_host.size(); ++h) sizes[static_cast<size_t>(c.part_of_host[h])] += m.slots(static_cast<int>(h));
    std::vector<int> key = sizes;
    std::sort(key.begin(), key.end());
    auto [it, added] = fewest.emplace(key, INFINITY);
    if (added)
      for (int seed = 1; seed <= seeds; ++seed)
        it->second = std::min(it->second, map::edge_cut(g, map::partition_exact(g, sizes, seed)));
    bytes.push_back(it->second);
  }
  return bytes;
}

}  // namespace canopy::bench
