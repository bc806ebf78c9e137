// One shared-memory segment per node communicator, on an MPI-3 shared window.
//
// Layout (every flag on its own cache-line pair, so a writer never invalidates
// the line another rank polls):
//   line 3r           posted[r]   written only by rank r: "slot sequence numbers below this are filled"
//   line 3r + 1       consumed[r] written only by rank r: "I no longer need slots below this"
//   line 3r + 2       synced[r]   written only by rank r: "I reached this Group_sync round"
//   page-aligned      cells: two per rank, each a flag and `cell_bytes` of data after it
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
// Cells serve small exchanges in which every rank reads every other rank's data (Allgather,
// Allreduce): call c writes the caller's data and then c into its cell c mod 2, and readers
// wait until that cell's flag says c. No slot, consumed flag or Group_sync is involved: a
// rank writes cell c mod 2 again in call c + 2 only after it has read every rank's flag of
// call c + 1, and each rank raises that flag only after reading all of call c's cells.
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
  size_t cell_bytes = 1024;
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

  /** Data bytes a cell holds (0: no cells). */
  size_t cell_bytes() const { return config_.cell_bytes; }
  /** Numbers the next exchange through the cells; every rank calls it for every such exchange. */
  uint64_t next_cell_call() { return ++cell_calls_; }
  /** This rank's cell for @p call, to be filled before publish_cell(@p call). */
  char *my_cell(uint64_t call) const { return cell_data(rank_, call); }
  /** Announces that this rank's cell for @p call is filled (release). */
  void publish_cell(uint64_t call);
  /** Rank @p r's cell for @p call, once @p r has published it (acquire). */
  const char *wait_cell(int r, uint64_t call) const;

 private:
  std::atomic<uint64_t> *line(size_t index) const;
  std::atomic<uint64_t> *posted_flag(int r) const { return line(3 * static_cast<size_t>(r)); }
  std::atomic<uint64_t> *consumed_flag(int r) const { return line(3 * static_cast<size_t>(r) + 1); }
  std::atomic<uint64_t> *synced_flag(int r) const { return line(3 * static_cast<size_t>(r) + 2); }
  char *cell(int r, uint64_t call) const { return cells_ + (2 * static_cast<size_t>(r) + call % 2) * cell_stride_; }
  std::atomic<uint64_t> *cell_flag(int r, uint64_t call) const;
  char *cell_data(int r, uint64_t call) const;

  SegmentConfig config_;
  MPI_Win win_ = MPI_WIN_NULL;
  char *base_ = nullptr, *cells_ = nullptr, *data_ = nullptr;
  size_t cell_stride_ = 0;
  int rank_ = 0, size_ = 1;
  uint64_t next_seq_ = 0, sync_epoch_ = 0, consumed_ = 0, cell_calls_ = 0;
  mutable uint64_t min_consumed_seen_ = 0;  // a lower bound of every other rank's consumed flag
};

}  // namespace canopy::coll::shm
