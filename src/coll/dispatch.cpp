#include "coll/dispatch.h"

#include <climits>
#include <cstring>
#include <exception>
#include <string>

#include "coll/algorithms.h"
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

void log_fallback(const char *coll, const std::exception &e) {
  CANOPY_LOG(Warn, "%s: falling back to PMPI: %s", coll, e.what());
}

}  // namespace

bool has_implementation(Collective coll, const std::string &name) {
  switch (coll) {
    case Collective::Bcast: return bcast_implementation(name) != nullptr;
    case Collective::Allgather: return allgather_implementation(name) != nullptr;
    case Collective::Barrier: return barrier_implementation(name) != nullptr;
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
  size_t bytes = 0;
  int size = 0;
  if (!is_intracomm(comm) || !contiguous_bytes(count, type, bytes) || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      root < 0 || root >= size)
    return PMPI_Bcast(buf, count, type, root, comm);
  if (bytes == 0 || size == 1) return MPI_SUCCESS;
  Hierarchy *h = nullptr;
  Choice<BcastFn> choice;
  try {
    h = &hierarchy_of(comm);
    choice = choose<BcastFn>(Collective::Bcast, *h, bytes, algorithm);
  } catch (const std::exception &e) {
    log_fallback("bcast", e);
    return PMPI_Bcast(buf, count, type, root, comm);
  }
  return run_algorithm("bcast", choice.selection.algorithm,
                       [&] { choice.impl->run(*h, static_cast<char *>(buf), bytes, root); });
}

int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm) noexcept {
  size_t block = 0, send_bytes = 0;
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (!is_intracomm(comm) || !contiguous_bytes(recvcount, recvtype, block) ||
      (!in_place && (!contiguous_bytes(sendcount, sendtype, send_bytes) || send_bytes != block)))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Hierarchy *h = nullptr;
  Choice<AllgatherFn> choice;
  try {
    h = &hierarchy_of(comm);
    if (static_cast<size_t>(h->size) * block > static_cast<size_t>(INT_MAX))
      throw Error(CANOPY_ERR_UNSUPPORTED, "result over 2 GiB");
    if (block == 0) return MPI_SUCCESS;
    choice = choose<AllgatherFn>(Collective::Allgather, *h, block, algorithm);
  } catch (const std::exception &e) {
    log_fallback("allgather", e);
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  char *recv = static_cast<char *>(recvbuf);
  if (!in_place) std::memcpy(recv + static_cast<size_t>(h->rank) * block, sendbuf, block);
  return run_algorithm("allgather", choice.selection.algorithm, [&] { choice.impl->run(*h, recv, block); });
}

int barrier(MPI_Comm comm, const char *algorithm) noexcept {
  if (!is_intracomm(comm)) return PMPI_Barrier(comm);
  Hierarchy *h = nullptr;
  Choice<BarrierFn> choice;
  try {
    h = &hierarchy_of(comm);
    choice = choose<BarrierFn>(Collective::Barrier, *h, 0, algorithm);
  } catch (const std::exception &e) {
    log_fallback("barrier", e);
    return PMPI_Barrier(comm);
  }
  return run_algorithm("barrier", choice.selection.algorithm, [&] { choice.impl->run(*h); });
}

}  // namespace canopy::coll
