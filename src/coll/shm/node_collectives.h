// Collectives inside one node, composed from the primitives as in Table 1 of
// the tunable-SMP-collectives paper.
#pragma once
#include <cstddef>
#include <string>

#include "coll/ops/reduce_ops.h"
#include "coll/plan/config.h"
#include "coll/shm/segment.h"

namespace canopy::coll::shm {

using BcastMode = ShmBcastMode;

/** One stage: Sender_put, Group_sync, Group_get (repeated when the message exceeds the area). */
void bcast_one_stage(Segment &seg, char *buf, size_t bytes, int root);
/** Pipelined: per buffer-sized chunk Sender_put + Pair_sync, readers Group_get as chunks land. */
void bcast_pipelined(Segment &seg, char *buf, size_t bytes, int root);
/** One stage or pipelined. The paper takes one stage below one buffer (m < B); here pipelined
    wins at every size (one chunk is one Pair_sync, where one stage waits for a Group_sync of all
    ranks: 0.30 against 0.47 us at 2 ranks, docs/benchmarks.md), so it is the default mode. */
void bcast(Segment &seg, char *buf, size_t bytes, int root, BcastMode mode);

/** Every rank contributes @p block bytes; rank @p root (or every rank when root < 0) receives
    all blocks in node-rank order into @p recv. Group_seg_put, Group_sync, then Receiver_get
    (root) or Group_get (all), in as many stages as the area needs; an allgather of blocks that
    fit a cell (Segment::cell_bytes) goes through the cells instead. */
void gather(Segment &seg, const char *send, size_t block, char *recv, int root);
inline void allgather(Segment &seg, const char *send, size_t block, char *recv) { gather(seg, send, block, recv, -1); }

/** Node rank @p root holds one block of @p block bytes per node rank in @p send (node-rank order);
    every other rank copies its own into @p recv (nothing where recv is nullptr); the root's stays
    where it is. Sender_put, Group_sync, Group_seg_get, in as many stages as the area needs. */
void scatter(Segment &seg, const char *send, size_t block, char *recv, int root);

/** Block j of every rank's @p send lands as block i of node rank j's @p recv (i: the sender).
    Group_seg_put, Group_sync, Group_seg_get per stage; a stage moves size^2 parts. */
void alltoall(Segment &seg, const char *send, size_t block, char *recv);

/** Every rank contributes @p bytes at @p send; rank @p root (or every rank when root < 0)
    receives their reduction into @p recv (which may be @p send). Per stage: Group_seg_put
    of a chunk, Group_sync, every rank combines its own slice of everybody's chunk in place
    (disjoint slices, in parallel, ranks in node order), Group_sync, then Receiver_get
    (root) or Group_get (all). An allreduce that fits a cell goes through the cells, every rank
    combining all of them in node order. Throws Error(INVALID_ARG) before any traffic when the
    area holds less than one element per rank. */
void reduce(Segment &seg, const char *send, char *recv, size_t bytes, const Reduction &op, int root);
inline void allreduce(Segment &seg, const char *send, char *recv, size_t bytes, const Reduction &op) {
  reduce(seg, send, recv, bytes, op, -1);
}

}  // namespace canopy::coll::shm
