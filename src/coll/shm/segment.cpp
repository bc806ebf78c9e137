#include "coll/shm/segment.h"

#include <algorithm>
#include <cstdint>
#include <new>

#include "coll/p2p.h"
#include "coll/shm/poll.h"
#include "common/error.h"

namespace canopy::coll::shm {
namespace {

// 128 bytes: two 64-byte lines, because x86 prefetches line pairs and some ARM cores use
// 128-byte lines; a flag sharing a pair with another rank's flag would ping-pong.
constexpr size_t kLine = 128;
constexpr size_t kPage = 4096;

// A lock-free 64-bit atomic is address-free, which is what makes it usable across processes.
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared-memory flags need lock-free 64-bit atomics");

// A cell's flag, then its data 16-byte aligned: data up to 112 bytes shares the flag's line pair.
constexpr size_t kCellHeader = 16;

size_t round_up(size_t bytes, size_t unit) { return (bytes + unit - 1) / unit * unit; }
size_t control_bytes(int ranks) { return round_up(kLine * 3 * static_cast<size_t>(ranks), kPage); }

}  // namespace

Segment::Segment(MPI_Comm node, const SegmentConfig &config) : config_(config) {
  check_mpi(PMPI_Comm_rank(node, &rank_), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(node, &size_), "MPI_Comm_size");
  cell_stride_ = config_.cell_bytes ? round_up(kCellHeader + config_.cell_bytes, kLine) : 0;
  size_t control = control_bytes(size_), cells = round_up(2 * static_cast<size_t>(size_) * cell_stride_, kPage);
  size_t total = control + cells + capacity();
  void *mine = nullptr;
  check_mpi(PMPI_Win_allocate_shared(static_cast<MPI_Aint>(rank_ == 0 ? total : 0), 1, MPI_INFO_NULL, node, &mine,
                                     &win_),
            "MPI_Win_allocate_shared");
  MPI_Aint size = 0;
  int disp = 0;
  check_mpi(PMPI_Win_shared_query(win_, 0, &size, &disp, &base_), "MPI_Win_shared_query");
  cells_ = base_ + control;
  data_ = cells_ + cells;
  if (rank_ == 0) {
    for (size_t i = 0; i < control / kLine; ++i) new (base_ + i * kLine) std::atomic<uint64_t>(0);
    for (size_t i = 0; cell_stride_ && i < 2 * static_cast<size_t>(size_); ++i)
      new (cells_ + i * cell_stride_) std::atomic<uint64_t>(0);
  }
  // Passive-target epoch for the window's lifetime (the MPI-3 unified-model idiom for
  // load/store access); the barrier publishes rank 0's initialised flags to everyone.
  check_mpi(PMPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  check_mpi(PMPI_Barrier(node), "MPI_Barrier");
}

Segment::~Segment() {
  if (win_ == MPI_WIN_NULL) return;
  PMPI_Win_unlock_all(win_);
  PMPI_Win_free(&win_);
}

std::atomic<uint64_t> *Segment::line(size_t index) const {
  return std::launder(reinterpret_cast<std::atomic<uint64_t> *>(base_ + index * kLine));
}

std::atomic<uint64_t> *Segment::cell_flag(int r, uint64_t call) const {
  return std::launder(reinterpret_cast<std::atomic<uint64_t> *>(cell(r, call)));
}

char *Segment::cell_data(int r, uint64_t call) const { return cell(r, call) + kCellHeader; }

void Segment::publish_cell(uint64_t call) { cell_flag(rank_, call)->store(call, std::memory_order_release); }

const char *Segment::wait_cell(int r, uint64_t call) const {
  const std::atomic<uint64_t> *flag = cell_flag(r, call);
  poll_until([&] { return flag->load(std::memory_order_acquire) >= call; }, config_.spins);
  return cell_data(r, call);
}

uint64_t Segment::reserve(int slots) {
  uint64_t first = next_seq_;
  next_seq_ += static_cast<uint64_t>(slots);
  return first;
}

void Segment::wait_slot_free(uint64_t seq) const {
  uint64_t buffers = static_cast<uint64_t>(config_.buffers);
  if (seq + 1 <= buffers) return;  // never used before
  uint64_t need = seq + 1 - buffers;
  // Reading a flag another rank just wrote costs a cache-line transfer: skip the reads while
  // the smallest value seen last time already frees the slot.
  if (need <= min_consumed_seen_) return;
  uint64_t seen = UINT64_MAX;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    uint64_t value = 0;
    poll_until([&] { return (value = consumed_flag(r)->load(std::memory_order_acquire)) >= need; }, config_.spins);
    seen = std::min(seen, value);
  }
  min_consumed_seen_ = seen;
}

void Segment::post(uint64_t value) { posted_flag(rank_)->store(value, std::memory_order_release); }

void Segment::wait_posted(int peer, uint64_t value) const {
  poll_until([&] { return posted_flag(peer)->load(std::memory_order_acquire) >= value; }, config_.spins);
}

void Segment::consume(uint64_t value) {
  if (value <= consumed_) return;
  consumed_ = value;
  consumed_flag(rank_)->store(value, std::memory_order_release);
}

void Segment::group_sync() {
  // Dissemination barrier (Hensgen, Finkel and Manber): in round k a rank announces that it
  // reached round k, then waits until the rank 2^k before it has; after ceil(log2 p) rounds
  // every rank knows that all have arrived. Each rank waits for log2 p cache-line transfers,
  // where a shared counter took p fetch_adds on one line, each stealing it from p pollers
  // (16 ranks: 5.9 us against the library's 2.5, docs/benchmarks.md). Values only grow
  // (epoch * rounds + round), so a rank racing into the next barrier only raises its flag.
  uint64_t rounds = 0;
  for (int d = 1; d < size_; d *= 2) ++rounds;
  uint64_t value = sync_epoch_++ * rounds;
  for (int d = 1; d < size_; d *= 2) {
    synced_flag(rank_)->store(++value, std::memory_order_release);
    const std::atomic<uint64_t> *from = synced_flag((rank_ - d + size_) % size_);
    poll_until([&] { return from->load(std::memory_order_acquire) >= value; }, config_.spins);
  }
}

}  // namespace canopy::coll::shm
