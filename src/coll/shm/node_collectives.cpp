#include "coll/shm/node_collectives.h"

#include <algorithm>
#include <cstring>

#include "coll/shm/primitives.h"
#include "common/error.h"

namespace canopy::coll::shm {

void bcast_one_stage(Segment &seg, char *buf, size_t bytes, int root) {
  for (size_t off = 0; off < bytes; off += seg.capacity()) {
    size_t len = std::min(seg.capacity(), bytes - off);
    Stage stage(seg);
    if (seg.rank() == root) sender_put(seg, stage.last(seg), seg.area(), buf + off, len);
    group_sync(seg);
    if (seg.rank() != root) group_get(seg, buf + off, len);
    stage.finish(seg);
  }
}

void bcast_pipelined(Segment &seg, char *buf, size_t bytes, int root) {
  size_t chunk = seg.buffer_bytes(), chunks = (bytes + chunk - 1) / chunk;
  uint64_t first = seg.reserve(static_cast<int>(chunks));
  for (size_t k = 0; k < chunks; ++k) {
    uint64_t seq = first + k;
    size_t off = k * chunk, len = std::min(chunk, bytes - off);
    if (seg.rank() == root) {
      sender_put(seg, seq, seg.slot(seq), buf + off, len);
      pair_sync_post(seg, seq);
    } else {
      pair_sync_wait(seg, root, seq);
      receiver_get(seg.slot(seq), buf + off, len);
    }
    seg.consume(seq + 1);
  }
}

void bcast(Segment &seg, char *buf, size_t bytes, int root, BcastMode mode) {
  if (bytes == 0 || seg.size() == 1) return;
  if (mode == BcastMode::OneStage || (mode == BcastMode::Auto && bytes <= seg.buffer_bytes()))
    bcast_one_stage(seg, buf, bytes, root);
  else
    bcast_pipelined(seg, buf, bytes, root);
}

void gather(Segment &seg, const char *send, size_t block, char *recv, int root) {
  if (block == 0) return;
  size_t part = std::min(block, seg.capacity() / static_cast<size_t>(seg.size()));
  if (part == 0) throw Error(CANOPY_ERR_INVALID_ARG, "shared-memory area smaller than one byte per rank");
  bool reads = root < 0 || seg.rank() == root;
  for (size_t off = 0; off < block; off += part) {
    size_t len = std::min(part, block - off);
    Stage stage(seg);
    group_seg_put(seg, stage, part, send + off, len);
    group_sync(seg);
    if (reads)
      for (int j = 0; j < seg.size(); ++j)
        receiver_get(seg.area() + static_cast<size_t>(j) * part, recv + static_cast<size_t>(j) * block + off, len);
    stage.finish(seg);
  }
}

namespace {

// Rank r combines element slice r of every rank's part into part 0, ranks in node order, so
// each element has one fixed combination order whoever reads it.
void combine_my_slice(Segment &seg, size_t part, size_t len, const Reduction &op) {
  size_t elems = len / op.elem_bytes, ranks = static_cast<size_t>(seg.size());
  size_t each = (elems + ranks - 1) / ranks, first = std::min(elems, static_cast<size_t>(seg.rank()) * each);
  size_t off = first * op.elem_bytes, bytes = std::min(each, elems - first) * op.elem_bytes;
  char *acc = seg.area() + off;
  for (size_t j = 1; j < ranks; ++j) op.apply(acc, acc, seg.area() + j * part + off, bytes);
}

}  // namespace

void reduce(Segment &seg, const char *send, char *recv, size_t bytes, const Reduction &op, int root) {
  if (bytes == 0) return;
  bool reads = root < 0 || seg.rank() == root;
  if (seg.size() == 1) {
    if (reads && recv != send) std::memcpy(recv, send, bytes);
    return;
  }
  size_t part = seg.capacity() / static_cast<size_t>(seg.size()) / op.elem_bytes * op.elem_bytes;
  if (part == 0) throw Error(CANOPY_ERR_INVALID_ARG, "shared-memory area smaller than one element per rank");
  for (size_t off = 0; off < bytes; off += part) {
    size_t len = std::min(part, bytes - off);
    Stage stage(seg);
    group_seg_put(seg, stage, part, send + off, len);
    group_sync(seg);
    combine_my_slice(seg, part, len, op);
    group_sync(seg);
    if (root < 0)
      group_get(seg, recv + off, len);
    else if (reads)
      receiver_get(seg.area(), recv + off, len);
    stage.finish(seg);
  }
}

}  // namespace canopy::coll::shm
