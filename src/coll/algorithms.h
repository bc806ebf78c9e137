// The implementations behind the catalogue's names, one file per collective
// family (bcast.cpp, allgather.cpp, barrier.cpp, reduce.cpp). Every algorithm works on
// bytes: the entry points have already checked that the datatypes are
// contiguous, so count * size bytes describe the data exactly.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>

#include "coll/hierarchy.h"
#include "coll/ops/reduce_ops.h"
#include "coll/plan/catalog.h"

namespace canopy::coll {

/** bcast: @p buf holds @p bytes at @p root on entry, everywhere on return. */
using BcastFn = void (*)(Hierarchy &h, char *buf, size_t bytes, int root);
/** allgather: @p recv holds this rank's block at rank * block on entry (already placed). */
using AllgatherFn = void (*)(Hierarchy &h, char *recv, size_t block);
using BarrierFn = void (*)(Hierarchy &h);
/** reduce: @p buf holds this rank's @p bytes (whole elements of @p op) on entry, their
    reduction over all ranks at @p root on return (scratch elsewhere). */
using ReduceFn = void (*)(Hierarchy &h, char *buf, size_t bytes, const Reduction &op, int root);
/** allreduce: the same with the result on every rank, bit-identical everywhere. */
using AllreduceFn = void (*)(Hierarchy &h, char *buf, size_t bytes, const Reduction &op);

/** Why an algorithm cannot run on this hierarchy ("" if it can). */
using ApplicableFn = std::string (*)(const Hierarchy &h);

template <class Fn>
struct Implementation {
  const char *name;
  Fn run;
  ApplicableFn applicable;  // nullptr: always applicable
};

/** nullptr when @p name has no implementation. */
const Implementation<BcastFn> *bcast_implementation(const std::string &name);
const Implementation<AllgatherFn> *allgather_implementation(const std::string &name);
const Implementation<BarrierFn> *barrier_implementation(const std::string &name);
const Implementation<ReduceFn> *reduce_implementation(const std::string &name);
const Implementation<AllreduceFn> *allreduce_implementation(const std::string &name);
/** True when the catalogue name @p name of @p coll has an implementation (checked by the tests). */
bool has_implementation(Collective coll, const std::string &name);

/** Bcast over a plain communicator by a flat algorithm name (binomial, knomial,
    scatter_rd_allgather, scatter_ring_allgather, chain); used as building block by the
    hierarchical algorithms. Throws Error(INVALID_ARG) for another name. */
void flat_bcast(const CollConfig &config, const std::string &name, MPI_Comm comm, char *buf, size_t bytes, int root);
bool is_flat_bcast(const std::string &name);
/** Bcast inside @p h's node from node rank @p root: coll_bcast_intra_algorithm (shm or flat). */
void intra_node_bcast(Hierarchy &h, char *buf, size_t bytes, int root);

/** "" when every rank of @p h is on one node. */
std::string needs_one_node(const Hierarchy &h);

}  // namespace canopy::coll
