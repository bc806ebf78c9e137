// libFuzzer target: load_torus on arbitrary bytes, checking links, coordinates
// and, on small grids, that host-to-host hops are the torus distance + 2, and
// that task mapping's hop table (computed from the coordinates) says the same.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../support/topology_bfs.h"
#include "loader_fuzz_checks.h"
#include "map/hop_table.h"
#include "topo/loaders/torus_limit.h"

namespace {
// Small grids exercise every path; legal grids near the real limit
// (detail::kMaxTorusRouters) take a minute each under ASan (see torus_limit.h).
constexpr uint64_t kMaxRouters = 4096;

// On small grids, hops between hosts must be the torus distance plus the two host
// links, in the hop table's coordinate form too.
void expect_torus_hops(const canopy::topo::Topology &topo) {
  if (topo.switches().size() > 512) return;
  const canopy::topo::TorusShape &shape = *topo.torus();
  const std::vector<int> &hosts = topo.hosts();
  canopy::map::HopTable table(topo, hosts, 0);
  for (size_t i = 0; i < hosts.size() && i < 4; ++i) {
    std::vector<int> hops = canopy::test::bfs_hops(topo, hosts[i]);
    for (size_t j = 0; j < hosts.size(); ++j) {
      int b = hosts[j], expected = b == hosts[i] ? 0 : shape.distance(topo.node(hosts[i]).coords, topo.node(b).coords) + 2;
      if (b != hosts[i] && hops[static_cast<size_t>(b)] != expected) canopy::fuzz::finding("hops differ from torus distance + 2");
      if (table(static_cast<int>(i), static_cast<int>(j)) != expected) canopy::fuzz::finding("hop table differs from torus distance + 2");
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    canopy::topo::Topology topo = canopy::topo::detail::load_torus_limited(text, "fuzz.torus", kMaxRouters);
    canopy::fuzz::expect_consistent_links(topo);
    if (!topo.torus() || topo.torus()->dims.size() != topo.torus()->wrap.size())
      canopy::fuzz::finding("torus shape missing or inconsistent");
    for (int h : topo.hosts())
      if (topo.node(h).coords.size() != topo.torus()->dims.size()) canopy::fuzz::finding("host without coordinates");
    expect_torus_hops(topo);
  });
  canopy::fuzz::expect_success_or_parse_error(status, "fuzz.torus:");
  return 0;
}
