// The implementations behind the catalogue's names, one file per collective
// family (bcast.cpp, allgather.cpp, barrier.cpp, scatter_gather.cpp,
// alltoall.cpp, reduce.cpp). Every algorithm works on
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
/** allgather: @p mine is this rank's block (the send buffer, or its place rank * block in @p recv
    when in place); the algorithm puts it there itself, so that point-to-point algorithms can send
    it from the caller's buffer while copying it (see allgather_blocks_rd_from in p2p.h). It has
    AlltoallFn's shape; the two are looked up by their Collective. */
using AllgatherFn = void (*)(Hierarchy &h, const char *mine, char *recv, size_t block);
using BarrierFn = void (*)(Hierarchy &h);
/** scatter: at @p root, @p send holds p blocks of @p block bytes in rank order; every other rank
    receives its block in @p recv. The entry point has placed the root's own block already, so
    recv is nullptr at the root (and send elsewhere). gather: the inverse; @p send is this rank's
    block, the root receives all p in @p recv, where its own block already sits (send points at
    it there; recv is nullptr elsewhere). Scatter and Gather share the shape and are looked up by
    their Collective. */
using ScatterFn = void (*)(Hierarchy &h, const char *send, char *recv, size_t block, int root);
using GatherFn = ScatterFn;
/** alltoall: block j of @p send goes to rank j, block i of @p recv comes from rank i (p blocks of
    @p block bytes each way, the own one included). The buffers never overlap. */
using AlltoallFn = void (*)(Hierarchy &h, const char *send, char *recv, size_t block);
/** reduce: @p send holds this rank's @p bytes (whole elements of @p op) and is never written;
    @p recv receives their reduction over all ranks at @p root (where it may be @p send:
    MPI_IN_PLACE) and is nullptr elsewhere. */
using ReduceFn = void (*)(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op, int root);
/** allreduce: the same with the result in @p recv on every rank (@p send may be @p recv),
    bit-identical everywhere. */
using AllreduceFn = void (*)(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op);

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
const Implementation<ScatterFn> *scatter_implementation(const std::string &name);
const Implementation<GatherFn> *gather_implementation(const std::string &name);
const Implementation<AlltoallFn> *alltoall_implementation(const std::string &name);
const Implementation<ReduceFn> *reduce_implementation(const std::string &name);
const Implementation<AllreduceFn> *allreduce_implementation(const std::string &name);
/** True when the catalogue name @p name of @p coll has an implementation (checked by the tests). */
bool has_implementation(Collective coll, const std::string &name);

/** Bcast over a plain communicator by a flat algorithm name (binomial, knomial,
    scatter_rd_allgather, scatter_ring_allgather, chain); used as building block by the
    hierarchical algorithms. The tree's positions are the ranks from @p root on, or @p order
    (whose position 0 is @p root). Throws Error(INVALID_ARG) for another name. */
void flat_bcast(const CollConfig &config, const std::string &name, MPI_Comm comm, char *buf, size_t bytes, int root,
                const TreeOrder *order = nullptr);
bool is_flat_bcast(const std::string &name);
/** Throws Error(INVALID_ARG) naming the parameter when an algorithm the hierarchical algorithms
    run inside (coll_bcast_inter_algorithm, coll_bcast_intra_algorithm,
    coll_allgather_inter_algorithm, coll_reduce_inter_algorithm, coll_allreduce_inter_algorithm)
    is not one: checked as a communicator's hierarchy is built, so that a bad value sends every
    call to PMPI_* as any other bad parameter does, instead of failing inside a collective. */
void check_inner_algorithms(const CollConfig &config);
/** Bcast inside @p h's node from node rank @p root: coll_bcast_intra_algorithm (shm or flat). */
void intra_node_bcast(Hierarchy &h, char *buf, size_t bytes, int root);

/** Node leader (node rank 0) to its node / the node to its leader through the node segment,
    @p block bytes per node rank in node-rank order at the leader. A rank whose @p recv is nullptr
    receives nothing from leader_scatter (the leader included). */
void leader_scatter(Hierarchy &h, const char *send, size_t block, char *recv);
void leader_gather(Hierarchy &h, const char *send, size_t block, char *recv);

/** "" when every rank of @p h is on one node. */
std::string needs_one_node(const Hierarchy &h);
/** "" when @p h's shared-memory area holds at least @p bytes (the least one stage of a staged
    shm algorithm needs: a byte per rank, or per pair of ranks for Alltoall). */
std::string needs_shm_area(const Hierarchy &h, size_t bytes);

}  // namespace canopy::coll
