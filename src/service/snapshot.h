// What canopyd answers from: an immutable Snapshot of one loaded fabric, and
// the SnapshotStore that swaps in a new one atomically. A request takes the
// current snapshot once and answers from it to the end, so a reload never
// changes a fabric under a request and the old one lives until its last reader
// lets go (shared_ptr). See docs/protocol.md, "Snapshots and reloads".
#pragma once
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>

#include "topo/topology.h"
#include "topo/views.h"

namespace canopy::service {

struct Snapshot {
  topo::Topology topology;  // finalized: immutable and safe to query from many threads
  uint64_t generation = 0;  // 1 for the first fabric loaded, +1 per reload
  std::time_t loaded = 0;   // when it was published (UTC seconds)
  // The routes matrix answers found, kept for the next (service_route_cache_bytes; thread-safe).
  std::unique_ptr<topo::RouteTails> route_tails;

  const std::string &source() const { return topology.source(); }
};

/** Whether the snapshot being served is the newest dump. */
struct Freshness {
  bool stale = false;  // the newest dump could not be loaded; the last good one is served
  std::string reason;  // why (the loader's error), when stale
};

class SnapshotStore {
 public:
  SnapshotStore();

  /** The snapshot to answer from; null until the first fabric is published. */
  std::shared_ptr<const Snapshot> snapshot() const;
  std::shared_ptr<const Freshness> freshness() const;

  /** Makes @p topology the current snapshot (generation + 1) and the state fresh. */
  std::shared_ptr<const Snapshot> publish(topo::Topology topology);
  /** Keeps the current snapshot but reports it stale because of @p reason. */
  void mark_stale(std::string reason);

 private:
  // Written only by publish()/mark_stale() (the reloader, one thread); read by
  // every connection with std::atomic_load, so readers never take a lock of ours.
  std::shared_ptr<const Snapshot> snapshot_;
  std::shared_ptr<const Freshness> freshness_;
};

}  // namespace canopy::service
