#include "service/snapshot.h"

#include <atomic>

#include "common/params.h"

namespace canopy::service {

SnapshotStore::SnapshotStore() : freshness_(std::make_shared<const Freshness>()) {}

std::shared_ptr<const Snapshot> SnapshotStore::snapshot() const { return std::atomic_load(&snapshot_); }

std::shared_ptr<const Freshness> SnapshotStore::freshness() const { return std::atomic_load(&freshness_); }

std::shared_ptr<const Snapshot> SnapshotStore::publish(topo::Topology topology) {
  auto next = std::make_shared<Snapshot>();
  next->topology = std::move(topology);
  next->route_tails = std::make_unique<topo::RouteTails>(
      next->topology, static_cast<size_t>(param_int("service_route_cache_bytes")));
  std::shared_ptr<const Snapshot> previous = snapshot();
  next->generation = previous ? previous->generation + 1 : 1;
  next->loaded = std::time(nullptr);
  // Fresh first, then the snapshot: whoever sees the new generation also sees
  // that it is fresh.
  std::atomic_store(&freshness_, std::make_shared<const Freshness>());
  std::shared_ptr<const Snapshot> published = std::move(next);
  std::atomic_store(&snapshot_, published);
  return published;
}

void SnapshotStore::mark_stale(std::string reason) {
  std::atomic_store(&freshness_, std::make_shared<const Freshness>(Freshness{true, std::move(reason)}));
}

}  // namespace canopy::service
