// The seven shared-memory primitives of Wu, Chen and Hsu (tunable SMP
// collectives), on a Segment. A "stage" is one use of the whole data area
// (one-stage operations); pipelined operations use one slot per chunk and the
// pair_sync flags instead of a full Group_sync per chunk.
//
//   Sender_put      sender copies into a slot / the area     sender_put
//   Receiver_get    receiver copies out of it                receiver_get
//   Pair_sync       sender announces, receiver waits         pair_sync_post / pair_sync_wait
//   Group_get       every rank copies the same bytes out     group_get
//   Group_seg_get   every rank copies its own part out       group_seg_get
//   Group_seg_put   every rank copies its own part in        group_seg_put
//   Group_sync      barrier of the node's ranks              group_sync
#pragma once
#include <cstddef>
#include <cstdint>

#include "coll/shm/segment.h"

namespace canopy::coll::shm {

/** One use of the whole data area: reserves every slot. Called by all ranks alike. */
struct Stage {
  uint64_t first = 0;
  explicit Stage(Segment &seg) : first(seg.reserve(seg.buffers())) {}
  uint64_t last(const Segment &seg) const { return first + static_cast<uint64_t>(seg.buffers()) - 1; }
  /** Marks the stage consumed by this rank, so later writers may reuse the area. */
  void finish(Segment &seg) const { seg.consume(last(seg) + 1); }
};

/** Copies @p bytes to @p dst inside the segment once slot @p seq may be overwritten. */
void sender_put(Segment &seg, uint64_t seq, char *dst, const void *src, size_t bytes);
/** Copies out of the segment (after pair_sync_wait or group_sync made the data visible). */
void receiver_get(const char *src, void *dst, size_t bytes);
/** Sender side of Pair_sync: slots up to @p seq are filled. */
void pair_sync_post(Segment &seg, uint64_t seq);
/** Receiver side of Pair_sync: waits until @p sender has filled slot @p seq. */
void pair_sync_wait(const Segment &seg, int sender, uint64_t seq);

void group_get(const Segment &seg, void *dst, size_t bytes);
/** Rank r copies area[at + r*part, + bytes) to @p dst (bytes <= part). @p at: where the segmented
    region starts in the area (Alltoall reads one region per sender). */
void group_seg_get(const Segment &seg, size_t part, void *dst, size_t bytes, size_t at = 0);
/** Rank r copies @p src to area[at + r*part, + bytes) once @p stage's slots are free. */
void group_seg_put(Segment &seg, const Stage &stage, size_t part, const void *src, size_t bytes, size_t at = 0);
void group_sync(Segment &seg);

}  // namespace canopy::coll::shm
