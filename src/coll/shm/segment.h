// One shared-memory segment per node communicator, on an MPI-3 shared window.
//
// Layout (every flag on its own cache-line pair, so a writer never invalidates
// the line another rank polls):
//   line 3r           posted[r]   written only by rank r: "slot sequence numbers below this are filled"
//   line 3r + 1       consumed[r] written only by rank r: "I no longer need slots below this"
//   line 3r + 2       synced[r]   written only by rank r: "I reached this Group_sync round"
//   page-aligned      data area: `buffers` slots of `buffer_bytes` each
//
// Slots are addressed by a sequence number g that every rank advances the same
// way (every operation on the segment is called by all its ranks, in the same
// order); slot g lives at g mod buffers. Counters only grow, so they never need
// resetting and a stale value from an earlier operation is always too small to
// be mistaken for a new one. A writer may fill slot g once every other rank's
// consumed >= g + 1 - buffers. Flags are std::atomic<uint64_t> with release
// stores and acquire loads: the data copied before a release store is visible
// to the rank whose acquire load sees the stored value.
//
// The whole segment is allocated by node rank 0 and the others query rank 0's
// base: SimGrid's MPI_Win_shared_query returns the block start for every rank.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace canopy::coll::shm {

struct SegmentConfig {
  size_t buffer_bytes = 16384;
  int buffers = 16;
  int spins = 64;
};

class Segment {
 public:
  /** Collective over @p node, whose ranks must share memory. */
  Segment(MPI_Comm node, const SegmentConfig &config);
  ~Segment();  // collective too (MPI_Win_free)
  Segment(const Segment &) = delete;
  Segment &operator=(const Segment &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  size_t buffer_bytes() const { return config_.buffer_bytes; }
  int buffers() const { return config_.buffers; }
  size_t capacity() const { return config_.buffer_bytes * static_cast<size_t>(config_.buffers); }

  /** Reserves @p slots consecutive slot sequence numbers; returns the first. */
  uint64_t reserve(int slots);
  char *slot(uint64_t seq) const { return data_ + (seq % static_cast<uint64_t>(config_.buffers)) * config_.buffer_bytes; }
  char *area() const { return data_; }

  /** Waits until slot @p seq may be overwritten: every other rank consumed >= seq + 1 - buffers. */
  void wait_slot_free(uint64_t seq) const;
  /** Publishes posted[me] = @p value (release). */
  void post(uint64_t value);
  /** Waits until posted[@p peer] >= @p value (acquire). */
  void wait_posted(int peer, uint64_t value) const;
  /** consumed[me] = @p value (release); values never go down. */
  void consume(uint64_t value);
  /** Full barrier of the node's ranks: dissemination over the synced flags. */
  void group_sync();

 private:
  std::atomic<uint64_t> *line(size_t index) const;
  std::atomic<uint64_t> *posted_flag(int r) const { return line(3 * static_cast<size_t>(r)); }
  std::atomic<uint64_t> *consumed_flag(int r) const { return line(3 * static_cast<size_t>(r) + 1); }
  std::atomic<uint64_t> *synced_flag(int r) const { return line(3 * static_cast<size_t>(r) + 2); }

  SegmentConfig config_;
  MPI_Win win_ = MPI_WIN_NULL;
  char *base_ = nullptr, *data_ = nullptr;
  int rank_ = 0, size_ = 1;
  uint64_t next_seq_ = 0, sync_epoch_ = 0, consumed_ = 0;
  mutable uint64_t min_consumed_seen_ = 0;  // a lower bound of every other rank's consumed flag
};

}  // namespace canopy::coll::shm
