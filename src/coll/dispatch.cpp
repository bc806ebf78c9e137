#include "coll/dispatch.h"

#include <climits>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/mpi_reduction.h"
#include "coll/plan/selection.h"
#include "common/error.h"
#include "common/log.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

// True when @p count elements of @p type are exactly count * size consecutive bytes.
bool contiguous_bytes(int count, MPI_Datatype type, size_t &bytes) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
    return false;
  if (lb != 0 || true_lb != 0 || extent != size || true_extent != size) return false;
  bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  return bytes <= static_cast<size_t>(INT_MAX);
}

template <class Fn>
struct Choice {
  const Implementation<Fn> *impl = nullptr;
  Selection selection;
};

const Implementation<BcastFn> *lookup(Collective, const std::string &n, BcastFn *) { return bcast_implementation(n); }
const Implementation<AllgatherFn> *lookup(Collective, const std::string &n, AllgatherFn *) {
  return allgather_implementation(n);
}
const Implementation<BarrierFn> *lookup(Collective, const std::string &n, BarrierFn *) {
  return barrier_implementation(n);
}
const Implementation<ReduceFn> *lookup(Collective, const std::string &n, ReduceFn *) { return reduce_implementation(n); }
const Implementation<AllreduceFn> *lookup(Collective, const std::string &n, AllreduceFn *) {
  return allreduce_implementation(n);
}

// Forced name, else rules; an algorithm that cannot run on this hierarchy gives way to the
// built-in table (the same decision on every rank: it depends on the hierarchy only).
template <class Fn>
Choice<Fn> choose(Collective coll, const Hierarchy &h, size_t bytes, const char *forced) {
  SelectionInput in{h.size, h.nodes, h.max_ranks_per_node, bytes};
  Selection sel = forced ? Selection{forced, "forced by the caller"} : h.config.select(coll, in);
  const Implementation<Fn> *impl = lookup(coll, sel.algorithm, static_cast<Fn *>(nullptr));
  if (!impl) throw Error(CANOPY_ERR_INVALID_ARG, "no " + std::string(collective_name(coll)) + " algorithm '" +
                                                     sel.algorithm + "' (" + algorithm_names(coll) + ")");
  if (std::string why = impl->applicable ? impl->applicable(h) : ""; !why.empty()) {
    Selection fallback = select_builtin(coll, in);
    sel = {fallback.algorithm, fallback.reason + " (" + sel.algorithm + " " + why + ")"};
    impl = lookup(coll, sel.algorithm, static_cast<Fn *>(nullptr));
    // The built-in choice may not fit either (multi_leader_shm with a tiny area): PMPI then.
    if (std::string still = impl && impl->applicable ? impl->applicable(h) : ""; !still.empty())
      throw Error(CANOPY_ERR_UNSUPPORTED, sel.algorithm + " " + still);
  }
  CANOPY_LOG(Info, "%s %zu bytes, %s: %s (%s)", collective_name(coll), bytes, h.describe().c_str(),
             sel.algorithm.c_str(), sel.reason.c_str());
  return {impl, sel};
}

// Runs an algorithm. Once traffic has started a failure cannot fall back (the other ranks
// are inside Canopy's schedule), so it is reported as an MPI error.
template <class Body>
int run_algorithm(const char *coll, const std::string &name, Body &&body) noexcept {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const std::exception &e) {
    CANOPY_LOG(Error, "%s %s failed: %s", coll, name.c_str(), e.what());
    return MPI_ERR_OTHER;
  }
}

// Hierarchy and algorithm choice, where a failure (bad parameter, hierarchy error) still falls
// back to @p fallback, the PMPI call; then @p body(h, algorithm) under run_algorithm.
template <class Fn, class Fallback, class Body>
int select_and_run(Collective coll, MPI_Comm comm, size_t bytes, const char *forced, Fallback &&fallback,
                   Body &&body) noexcept {
  Hierarchy *h = nullptr;
  Choice<Fn> choice;
  try {
    h = &hierarchy_of(comm);
    choice = choose<Fn>(coll, *h, bytes, forced);
  } catch (const std::exception &e) {
    CANOPY_LOG(Warn, "%s: falling back to PMPI: %s", collective_name(coll), e.what());
    return fallback();
  }
  return run_algorithm(collective_name(coll), choice.selection.algorithm, [&] { body(*h, choice.impl->run); });
}

// The arguments of a reduce or allreduce that Canopy can combine itself: a predefined
// operation on contiguous elements of a basic type (reduce_ops.h), valid buffers. Anything
// else (user operations, other types, MPI_IN_PLACE where MPI forbids it, aliased buffers)
// goes to PMPI, which also reports the invalid cases.
struct ReduceArgs {
  size_t bytes = 0;
  Reduction op;
  bool in_place = false, ok = false;

  /** @p receives: this rank gets the result (recvbuf significant). */
  ReduceArgs(const void *sendbuf, const void *recvbuf, bool receives, int count, MPI_Datatype type, MPI_Op mpi_op) {
    in_place = sendbuf == MPI_IN_PLACE;
    if (!contiguous_bytes(count, type, bytes) || !(op = mpi_reduction(type, mpi_op))) return;
    bool in_place_ok = !in_place || receives;  // MPI_IN_PLACE belongs to the receiving ranks
    bool recv_ok = !receives || (recvbuf != nullptr && recvbuf != MPI_IN_PLACE && recvbuf != sendbuf);
    ok = in_place_ok && (bytes == 0 || (sendbuf != nullptr && recv_ok));
  }

  /** Where the algorithm works: recvbuf on a receiving rank, else @p scratch; filled with this
      rank's contribution. */
  char *working_buffer(const void *sendbuf, void *recvbuf, bool receives, std::vector<char> &scratch) const {
    char *work = static_cast<char *>(recvbuf);
    if (!receives) {
      scratch.resize(bytes);
      work = scratch.data();
    }
    if (!in_place) std::memcpy(work, sendbuf, bytes);
    return work;
  }
};

}  // namespace

bool has_implementation(Collective coll, const std::string &name) {
  switch (coll) {
    case Collective::Bcast: return bcast_implementation(name) != nullptr;
    case Collective::Allgather: return allgather_implementation(name) != nullptr;
    case Collective::Barrier: return barrier_implementation(name) != nullptr;
    case Collective::Reduce: return reduce_implementation(name) != nullptr;
    case Collective::Allreduce: return allreduce_implementation(name) != nullptr;
  }
  return false;
}

bool disabled() noexcept {
  static const bool off = [] {
    try {
      return param_bool("disable");
    } catch (const std::exception &e) {
      CANOPY_LOG(Error, "%s; Canopy collectives disabled", e.what());
      return true;
    }
  }();
  return off;
}

int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char *algorithm) noexcept {
  auto fallback = [&] { return PMPI_Bcast(buf, count, type, root, comm); };
  size_t bytes = 0;
  int size = 0;
  if (!is_intracomm(comm) || !contiguous_bytes(count, type, bytes) || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      root < 0 || root >= size)
    return fallback();
  if (bytes == 0 || size == 1) return MPI_SUCCESS;
  return select_and_run<BcastFn>(Collective::Bcast, comm, bytes, algorithm, fallback, [&](Hierarchy &h, BcastFn run) {
    run(h, static_cast<char *>(buf), bytes, root);
  });
}

int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm) noexcept {
  auto fallback = [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  size_t block = 0, send_bytes = 0;
  int size = 0;
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (!is_intracomm(comm) || !contiguous_bytes(recvcount, recvtype, block) ||
      (!in_place && (!contiguous_bytes(sendcount, sendtype, send_bytes) || send_bytes != block)) ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS || static_cast<size_t>(size) * block > static_cast<size_t>(INT_MAX))
    return fallback();
  if (block == 0) return MPI_SUCCESS;
  return select_and_run<AllgatherFn>(Collective::Allgather, comm, block, algorithm, fallback,
                                     [&](Hierarchy &h, AllgatherFn run) {
                                       char *recv = static_cast<char *>(recvbuf);
                                       if (!in_place) std::memcpy(recv + static_cast<size_t>(h.rank) * block, sendbuf, block);
                                       run(h, recv, block);
                                     });
}

int barrier(MPI_Comm comm, const char *algorithm) noexcept {
  if (!is_intracomm(comm)) return PMPI_Barrier(comm);
  return select_and_run<BarrierFn>(Collective::Barrier, comm, 0, algorithm, [&] { return PMPI_Barrier(comm); },
                                   [](Hierarchy &h, BarrierFn run) { run(h); });
}

int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
           const char *algorithm) noexcept {
  auto fallback = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); };
  int rank = 0, size = 0;
  if (!is_intracomm(comm) || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || root < 0 || root >= size)
    return fallback();
  bool receives = rank == root;
  ReduceArgs args(sendbuf, recvbuf, receives, count, type, op);
  if (!args.ok) return fallback();
  if (args.bytes == 0) return MPI_SUCCESS;
  std::vector<char> scratch;
  if (size == 1) {  // the reduction of one contribution is the contribution
    args.working_buffer(sendbuf, recvbuf, receives, scratch);
    return MPI_SUCCESS;
  }
  return select_and_run<ReduceFn>(Collective::Reduce, comm, args.bytes, algorithm, fallback,
                                  [&](Hierarchy &h, ReduceFn run) {
                                    run(h, args.working_buffer(sendbuf, recvbuf, receives, scratch), args.bytes,
                                        args.op, root);
                                  });
}

int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              const char *algorithm) noexcept {
  auto fallback = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  int size = 0;
  if (!is_intracomm(comm) || PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return fallback();
  ReduceArgs args(sendbuf, recvbuf, true, count, type, op);
  if (!args.ok) return fallback();
  if (args.bytes == 0) return MPI_SUCCESS;
  std::vector<char> scratch;
  if (size == 1) {
    args.working_buffer(sendbuf, recvbuf, true, scratch);
    return MPI_SUCCESS;
  }
  return select_and_run<AllreduceFn>(Collective::Allreduce, comm, args.bytes, algorithm, fallback,
                                     [&](Hierarchy &h, AllreduceFn run) {
                                       run(h, args.working_buffer(sendbuf, recvbuf, true, scratch), args.bytes, args.op);
                                     });
}

}  // namespace canopy::coll
