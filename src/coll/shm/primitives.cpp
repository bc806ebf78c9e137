#include "coll/shm/primitives.h"

#include <cstring>

namespace canopy::coll::shm {

void sender_put(Segment &seg, uint64_t seq, char *dst, const void *src, size_t bytes) {
  seg.wait_slot_free(seq);
  if (bytes) std::memcpy(dst, src, bytes);
}

void receiver_get(const char *src, void *dst, size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}

void pair_sync_post(Segment &seg, uint64_t seq) { seg.post(seq + 1); }

void pair_sync_wait(const Segment &seg, int sender, uint64_t seq) { seg.wait_posted(sender, seq + 1); }

void group_get(const Segment &seg, void *dst, size_t bytes) { receiver_get(seg.area(), dst, bytes); }

void group_seg_get(const Segment &seg, size_t part, void *dst, size_t bytes, size_t at) {
  receiver_get(seg.area() + at + static_cast<size_t>(seg.rank()) * part, dst, bytes);
}

void group_seg_put(Segment &seg, const Stage &stage, size_t part, const void *src, size_t bytes, size_t at) {
  sender_put(seg, stage.last(seg), seg.area() + at + static_cast<size_t>(seg.rank()) * part, src, bytes);
}

void group_sync(Segment &seg) { seg.group_sync(); }

}  // namespace canopy::coll::shm
