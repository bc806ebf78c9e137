#include "coll/shm/node_collectives.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "coll/shm/primitives.h"
#include "common/error.h"

namespace canopy::coll::shm {
namespace {

// Bytes of each block that fit one stage when the area is cut into @p cells equal parts.
size_t stage_part(const Segment &seg, size_t block, size_t cells) {
  size_t part = std::min(block, seg.capacity() / cells);
  if (part == 0)
    throw Error(CANOPY_ERR_INVALID_ARG, "shared-memory area of " + std::to_string(seg.capacity()) + " bytes cannot hold " +
                                            std::to_string(cells) + " parts");
  return part;
}

// Small exchanges through the cells (segment.h): every rank fills its own cell, then reads
// everybody's as each appears. One cache-line transfer per peer and no barrier, where a stage
// costs a Group_sync (log2 p transfers in a row) and a look at every rank's consumed flag.
// @p use(j, data) takes node rank j's data, j in node order.
template <class Use>
void exchange_cells(Segment &seg, const char *send, size_t bytes, Use &&use) {
  uint64_t call = seg.next_cell_call();
  std::memcpy(seg.my_cell(call), send, bytes);
  seg.publish_cell(call);
  for (int j = 0; j < seg.size(); ++j) use(j, seg.wait_cell(j, call));
}

}  // namespace

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
  if (mode == BcastMode::OneStage)
    bcast_one_stage(seg, buf, bytes, root);
  else
    bcast_pipelined(seg, buf, bytes, root);
}

void gather(Segment &seg, const char *send, size_t block, char *recv, int root) {
  if (block == 0) return;
  if (root < 0 && block <= seg.cell_bytes())
    return exchange_cells(seg, send, block, [&](int j, const char *data) {
      std::memcpy(recv + static_cast<size_t>(j) * block, data, block);
    });
  size_t part = stage_part(seg, block, static_cast<size_t>(seg.size()));
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

void scatter(Segment &seg, const char *send, size_t block, char *recv, int root) {
  if (block == 0 || seg.size() == 1) return;
  size_t part = stage_part(seg, block, static_cast<size_t>(seg.size()));
  for (size_t off = 0; off < block; off += part) {
    size_t len = std::min(part, block - off);
    Stage stage(seg);
    if (seg.rank() == root)
      for (int j = 0; j < seg.size(); ++j)
        if (j != root)
          sender_put(seg, stage.last(seg), seg.area() + static_cast<size_t>(j) * part,
                     send + static_cast<size_t>(j) * block + off, len);
    group_sync(seg);
    if (seg.rank() != root && recv) group_seg_get(seg, part, recv + off, len);
    stage.finish(seg);
  }
}

// The area holds one row per sender, one cell per receiver in each: sender r fills row r
// (Group_seg_put with row-sized parts, cell j at offset j * part), receiver r reads cell r of
// every row (Group_seg_get on each sender's row).
void alltoall(Segment &seg, const char *send, size_t block, char *recv) {
  if (block == 0) return;
  size_t p = static_cast<size_t>(seg.size());
  if (p == 1) return receiver_get(send, recv, block);
  size_t part = stage_part(seg, block, p * p), row = p * part;
  for (size_t off = 0; off < block; off += part) {
    size_t len = std::min(part, block - off);
    Stage stage(seg);
    for (size_t j = 0; j < p; ++j) group_seg_put(seg, stage, row, send + j * block + off, len, j * part);
    group_sync(seg);
    for (size_t i = 0; i < p; ++i) group_seg_get(seg, part, recv + i * block + off, len, i * row);
    stage.finish(seg);
  }
}

namespace {

// Rank r combines element slice r of every rank's part into part 0, ranks in node order, so
// each element has one fixed combination order whoever reads it. Slices are whole 128-byte
// line pairs where the element size divides 128, so no two ranks write one line (16 ranks
// sharing the lines of a 128 B-1 KiB message took 3-10 times as long, docs/benchmarks.md);
// small messages are then combined by fewer ranks.
void combine_my_slice(Segment &seg, size_t part, size_t len, const Reduction &op) {
  constexpr size_t kLinePair = 128;
  size_t elems = len / op.elem_bytes, ranks = static_cast<size_t>(seg.size());
  size_t each = (elems + ranks - 1) / ranks;
  if (kLinePair % op.elem_bytes == 0) {
    size_t per_line = kLinePair / op.elem_bytes;
    each = (each + per_line - 1) / per_line * per_line;
  }
  size_t first = std::min(elems, static_cast<size_t>(seg.rank()) * each);
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
  if (root < 0 && bytes <= seg.cell_bytes()) {  // every rank combines every cell, in node order
    const char *left = nullptr;
    return exchange_cells(seg, send, bytes, [&](int, const char *data) {
      if (left) op.apply(recv, left, data, bytes);
      left = left ? recv : data;
    });
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
