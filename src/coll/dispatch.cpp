#include "coll/dispatch.h"

#include <climits>
#include <cstring>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/mpi_reduction.h"
#include "coll/p2p.h"
#include "coll/plan/selection.h"
#include "common/error.h"
#include "common/log.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

// Whether @p type's type map runs in memory order: a predefined type, or a dup or contiguous
// run of such a type. Others may lie back to back yet list their elements out of order
// (MPI_Type_indexed(2, {1, 1}, {1, 0}, MPI_INT) swaps two ints), which copying bytes would not.
bool in_memory_order(MPI_Datatype type) {
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  if (PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner) != MPI_SUCCESS) return false;
  if (combiner == MPI_COMBINER_NAMED) return true;
  if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) || types != 1) return false;
  std::vector<int> int_args(static_cast<size_t>(ints));
  std::vector<MPI_Aint> address_args(static_cast<size_t>(addresses));
  MPI_Datatype old = MPI_DATATYPE_NULL;
  if (PMPI_Type_get_contents(type, ints, addresses, types, int_args.data(), address_args.data(), &old) != MPI_SUCCESS)
    return false;
  bool ordered = in_memory_order(old);
  // A derived type get_contents returns is a new handle to free; a predefined one is not.
  if (PMPI_Type_get_envelope(old, &ints, &addresses, &types, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED)
    PMPI_Type_free(&old);
  return ordered;
}

// The element size of @p type when its elements lie back to back (no gaps, no displacement) in
// memory order, else -1. Predefined types are remembered: they are never freed, so their handles
// never come back as other types, and the type queries are a noticeable part of a small collective.
long long packed_type_size(MPI_Datatype type) {
  struct Known {
    MPI_Datatype type;
    long long size;
  };
  static Known known[16];
  static size_t known_count = 0;
  for (size_t i = 0; i < known_count; ++i)
    if (known[i].type == type) return known[i].size;
  int size = 0, ints = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
    return -1;
  long long packed = lb == 0 && true_lb == 0 && extent == size && true_extent == size && in_memory_order(type) ? size : -1;
  if (known_count < std::size(known) &&
      PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED)
    known[known_count++] = {type, packed};
  return packed;
}

// @p count elements of @p size bytes each, under 2 GiB; false for a negative count or size.
bool count_bytes(int count, long long size, size_t &bytes) {
  if (count < 0 || size < 0) return false;
  bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  return bytes <= static_cast<size_t>(INT_MAX);
}

// True when @p count elements of @p type are exactly count * size consecutive bytes.
bool contiguous_bytes(int count, MPI_Datatype type, size_t &bytes) {
  return count_bytes(count, packed_type_size(type), bytes);
}

// The bytes of @p count elements of @p type's type signature (what MPI sends of them), under
// 2 GiB: a plain type's size as packed_type_size remembers it, any other's from the MPI.
bool signature_bytes(int count, MPI_Datatype type, size_t &bytes) {
  long long size = packed_type_size(type);
  int signature = 0;
  if (size < 0 && type != MPI_DATATYPE_NULL && PMPI_Type_size(type, &signature) == MPI_SUCCESS) size = signature;
  return count_bytes(count, size, bytes);
}

// @p count elements of @p type at a buffer, as the bytes of their type signature in type-map
// order: the buffer itself where they are plain bytes (packed_type_size), else a staging buffer
// that pack() fills (PMPI_Pack) and unpack() empties into the buffer (PMPI_Unpack). MPI lets the
// ranks describe one block with different datatypes of one signature (a vector at the root, ints
// elsewhere); seen as bytes, every rank takes the same path and gets MPI's data.
class Bytes {
 public:
  Bytes(const void *buf, int count, MPI_Datatype type, MPI_Comm comm)
      : buf_(const_cast<void *>(buf)), count_(count), type_(type), comm_(comm) {
    direct_ = count == 0 || packed_type_size(type) >= 0;  // no elements: the type is not significant
    if (!direct_) {
      signature_bytes(count, type, bytes_);
      staging_.resize(bytes_);
    }
  }
  char *data() { return direct_ ? static_cast<char *>(buf_) : staging_.data(); }
  void pack() {
    int at = 0;
    if (!direct_)
      check_mpi(PMPI_Pack(buf_, count_, type_, staging_.data(), static_cast<int>(bytes_), &at, comm_), "MPI_Pack");
  }
  void unpack() {
    int at = 0;
    if (!direct_)
      check_mpi(PMPI_Unpack(staging_.data(), static_cast<int>(bytes_), &at, buf_, count_, type_, comm_), "MPI_Unpack");
  }

 private:
  void *buf_;
  int count_;
  MPI_Datatype type_;
  MPI_Comm comm_;
  bool direct_ = true;
  size_t bytes_ = 0;
  std::vector<char> staging_;
};

// One rank's block of @p count @p type, and p of them under 2 GiB.
bool block_bytes(int count, MPI_Datatype type, int p, size_t &block) {
  return signature_bytes(count, type, block) && static_cast<size_t>(p) * block <= static_cast<size_t>(INT_MAX);
}

// The same, and the other side of the call describes as many bytes unless it is MPI_IN_PLACE.
bool matching_block_bytes(int count, MPI_Datatype type, bool other_in_place, int other_count,
                          MPI_Datatype other_type, int p, size_t &block) {
  size_t other = 0;
  return block_bytes(count, type, p, block) &&
         (other_in_place || (signature_bytes(other_count, other_type, other) && other == block));
}

// Rank and size of an intra-communicator; false for anything Canopy leaves to PMPI.
bool rank_and_size(MPI_Comm comm, int &rank, int &size) {
  return is_intracomm(comm) && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
         PMPI_Comm_size(comm, &size) == MPI_SUCCESS;
}

// A rooted call (Scatter, Gather) Canopy can serve: the root's side describes the blocks of
// all ranks (count/type of the whole buffer) and may be MPI_IN_PLACE on its own side; the
// other ranks count only their own block.
struct Rooted {
  int size = 0;
  bool at_root = false, in_place = false;
  size_t block = 0;
};

// The call's shape, or nullopt for what goes to PMPI. @p all_buffer holds every rank's block
// at the root, @p own_buffer a rank's own block; MPI_IN_PLACE is only for the root's own side
// (in place), and goes to PMPI, which reports it, anywhere else.
std::optional<Rooted> rooted(MPI_Comm comm, int root, const void *all_buffer, const void *own_buffer, int all_count,
                             MPI_Datatype all_type, int own_count, MPI_Datatype own_type) {
  Rooted r;
  int rank = 0;
  if (!rank_and_size(comm, rank, r.size) || root < 0 || root >= r.size) return std::nullopt;
  r.at_root = rank == root;
  if (r.at_root ? all_buffer == MPI_IN_PLACE : own_buffer == MPI_IN_PLACE) return std::nullopt;
  r.in_place = r.at_root && own_buffer == MPI_IN_PLACE;
  bool ok = r.at_root ? matching_block_bytes(all_count, all_type, r.in_place, own_count, own_type, r.size, r.block)
                      : block_bytes(own_count, own_type, r.size, r.block);
  return ok ? std::optional<Rooted>(r) : std::nullopt;
}

// A call every rank makes with one block per rank (Allgather, Alltoall): the receive side
// describes the blocks, the send side as many bytes per block or MPI_IN_PLACE.
struct Unrooted {
  int rank = 0, size = 0;
  bool in_place = false;
  size_t block = 0;
};

// The call's shape, or nullopt for what goes to PMPI (MPI_IN_PLACE as recvbuf too, which it reports).
std::optional<Unrooted> unrooted(MPI_Comm comm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 const void *recvbuf, int recvcount, MPI_Datatype recvtype) {
  Unrooted b;
  if (recvbuf == MPI_IN_PLACE) return std::nullopt;
  b.in_place = sendbuf == MPI_IN_PLACE;
  bool ok = rank_and_size(comm, b.rank, b.size) &&
            matching_block_bytes(recvcount, recvtype, b.in_place, sendcount, sendtype, b.size, b.block);
  return ok ? std::optional<Unrooted>(b) : std::nullopt;
}

template <class Fn>
struct Choice {
  const Implementation<Fn> *impl = nullptr;
  const Selection *selection = nullptr;  // in Hierarchy::last_choice
};

const Implementation<BcastFn> *lookup(Collective, const std::string &n, BcastFn *) { return bcast_implementation(n); }
const Implementation<BarrierFn> *lookup(Collective, const std::string &n, BarrierFn *) {
  return barrier_implementation(n);
}
// Scatter and Gather share their function type.
const Implementation<ScatterFn> *lookup(Collective coll, const std::string &n, ScatterFn *) {
  return coll == Collective::Gather ? gather_implementation(n) : scatter_implementation(n);
}
// So do Allgather and Alltoall.
const Implementation<AlltoallFn> *lookup(Collective coll, const std::string &n, AlltoallFn *) {
  return coll == Collective::Allgather ? allgather_implementation(n) : alltoall_implementation(n);
}
const Implementation<ReduceFn> *lookup(Collective, const std::string &n, ReduceFn *) { return reduce_implementation(n); }
const Implementation<AllreduceFn> *lookup(Collective, const std::string &n, AllreduceFn *) {
  return allreduce_implementation(n);
}

// The library's own collective ("mpi") is a choice like the others: run_collective calls
// pmpi() for an implementation without a function.
template <class Fn>
const Implementation<Fn> *find_implementation(Collective coll, const std::string &name) {
  static const Implementation<Fn> library{kLibraryAlgorithm, nullptr, nullptr};
  return name == kLibraryAlgorithm ? &library : lookup(coll, name, static_cast<Fn *>(nullptr));
}

// Forced name, else rules; an algorithm that cannot run on this hierarchy gives way to the
// built-in table, and when that one cannot either (a shared-memory area too small for the
// node), the call goes to PMPI. The same decision on every rank: it depends on the hierarchy
// and the configuration only. The choice is kept in h.last_choice until the size or the
// forced name changes: applications repeat their calls, and selection allocates.
template <class Fn>
Choice<Fn> choose(Collective coll, Hierarchy &h, size_t bytes, const char *forced) {
  Hierarchy::LastChoice &last = h.last_choice[static_cast<size_t>(coll)];
  bool same_forced = forced ? last.forced == forced : last.forced.empty();
  if (!last.impl || last.bytes != bytes || !same_forced) {
    last = {bytes, forced ? forced : "", nullptr, {}};
    SelectionInput in{h.size, h.nodes, h.max_ranks_per_node, bytes, mpi_library()};
    Selection sel = forced ? Selection{forced, "forced by the caller"} : h.config.select(coll, in);
    const Implementation<Fn> *impl = find_implementation<Fn>(coll, sel.algorithm);
    if (!impl) throw Error(CANOPY_ERR_INVALID_ARG, "no " + std::string(collective_name(coll)) + " algorithm '" +
                                                       sel.algorithm + "' (" + algorithm_names(coll) + ")");
    if (std::string why = impl->applicable ? impl->applicable(h) : ""; !why.empty()) {
      Selection fallback = select_builtin(coll, in);
      sel = {fallback.algorithm, fallback.reason + " (" + sel.algorithm + " " + why + ")"};
      impl = find_implementation<Fn>(coll, sel.algorithm);
      if (std::string also = impl->applicable ? impl->applicable(h) : ""; !also.empty())
        throw Error(CANOPY_ERR_UNSUPPORTED, fallback.reason + " chose " + fallback.algorithm + ", which " + also);
    }
    last.impl = impl;
    last.selection = std::move(sel);
  }
  CANOPY_LOG(Info, "%s %zu bytes, %s: %s (%s)", collective_name(coll), bytes, h.describe().c_str(),
             last.selection.algorithm.c_str(), last.selection.reason.c_str());
  return {static_cast<const Implementation<Fn> *>(last.impl), &last.selection};
}

// What every entry point shares once its arguments are accepted: the hierarchy and the
// algorithm, falling back to @p pmpi() for any failure before traffic starts (every rank
// decides alike: the hierarchy is built collectively and the choice depends on it and the
// arguments), then @p run(h, fn). Once traffic has started a failure cannot fall back (the
// other ranks are inside Canopy's schedule, waiting for this one), so it goes to the
// communicator's error handler: MPI_ERRORS_ARE_FATAL (the default) aborts the job instead of
// leaving it hung until its time limit; MPI_ERRORS_RETURN returns the code.
template <class Fn, class Run, class Pmpi>
int run_collective(Collective coll, MPI_Comm comm, size_t bytes, const char *forced, Run &&run, Pmpi &&pmpi) noexcept {
  const char *name = collective_name(coll);
  Hierarchy *h = nullptr;
  Choice<Fn> choice;
  try {
    h = &hierarchy_of(comm);
    choice = choose<Fn>(coll, *h, bytes, forced);
  } catch (const HierarchyUnusable &) {
    return pmpi();  // said once, when the hierarchy could not be built
  } catch (const std::exception &e) {
    CANOPY_LOG(Warn, "%s: falling back to PMPI: %s", name, e.what());
    return pmpi();
  }
  if (!choice.impl->run) return pmpi();
  try {
    run(*h, choice.impl->run);
    return MPI_SUCCESS;
  } catch (const std::exception &e) {
    CANOPY_LOG(Error, "%s %s failed: %s", name, choice.selection->algorithm.c_str(), e.what());
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
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

  /** This rank's contribution: recvbuf when in place. */
  const char *contribution(const void *sendbuf, const void *recvbuf) const {
    return static_cast<const char *>(in_place ? recvbuf : sendbuf);
  }
};

}  // namespace

const std::string &mpi_library() {
  static const std::string name = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    PMPI_Get_library_version(version, &length);
    std::string text(version, static_cast<size_t>(length));
    return std::string(text.find("Open MPI") != std::string::npos ? "open_mpi"
                       : text.find("MPICH") != std::string::npos  ? "mpich"
                                                                   : "other");
  }();
  return name;
}

bool has_implementation(Collective coll, const std::string &name) {
  if (name == kLibraryAlgorithm) return true;
  switch (coll) {
    case Collective::Bcast: return bcast_implementation(name) != nullptr;
    case Collective::Allgather: return allgather_implementation(name) != nullptr;
    case Collective::Barrier: return barrier_implementation(name) != nullptr;
    case Collective::Scatter: return scatter_implementation(name) != nullptr;
    case Collective::Gather: return gather_implementation(name) != nullptr;
    case Collective::Alltoall: return alltoall_implementation(name) != nullptr;
    case Collective::Reduce: return reduce_implementation(name) != nullptr;
    case Collective::Allreduce: return allreduce_implementation(name) != nullptr;
  }
  return false;
}

bool disabled() noexcept {
  static const bool off = param_bool_or("disable", true, log::Level::Error, "Canopy collectives disabled");
  return off;
}

int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Bcast(buf, count, type, root, comm); };
  size_t bytes = 0;
  int rank = 0, size = 0;
  if (!rank_and_size(comm, rank, size) || !signature_bytes(count, type, bytes) || root < 0 || root >= size)
    return pmpi();
  if (bytes == 0 || size == 1) return MPI_SUCCESS;
  return run_collective<BcastFn>(
      Collective::Bcast, comm, bytes, algorithm,
      [&](Hierarchy &h, BcastFn run) {
        Bytes data(buf, count, type, comm);
        if (rank == root) data.pack();
        run(h, data.data(), bytes, root);
        if (rank != root) data.unpack();
      },
      pmpi);
}

int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  std::optional<Unrooted> shape = unrooted(comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  if (!shape) return pmpi();
  const Unrooted c = *shape;
  if (c.block == 0) return MPI_SUCCESS;
  return run_collective<AllgatherFn>(
      Collective::Allgather, comm, c.block, algorithm,
      [&](Hierarchy &h, AllgatherFn run) {
        Bytes send(c.in_place ? nullptr : sendbuf, c.in_place ? 0 : sendcount, sendtype, comm);
        Bytes recv(recvbuf, c.size * recvcount, recvtype, comm);
        if (c.in_place) recv.pack();
        else send.pack();
        run(h, c.in_place ? recv.data() + static_cast<size_t>(c.rank) * c.block : send.data(), recv.data(), c.block);
        recv.unpack();
      },
      pmpi);
}

int barrier(MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Barrier(comm); };
  if (!is_intracomm(comm)) return pmpi();
  return run_collective<BarrierFn>(Collective::Barrier, comm, 0, algorithm, [](Hierarchy &h, BarrierFn run) { run(h); },
                                   pmpi);
}

int scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); };
  std::optional<Rooted> shape = rooted(comm, root, sendbuf, recvbuf, sendcount, sendtype, recvcount, recvtype);
  if (!shape) return pmpi();
  const Rooted c = *shape;
  if (c.block == 0) return MPI_SUCCESS;
  if (c.size == 1) return pmpi();  // the root's own block: the library copies it, whatever the types
  return run_collective<ScatterFn>(
      Collective::Scatter, comm, c.block, algorithm,
      [&](Hierarchy &h, ScatterFn run) {
        Bytes send(c.at_root ? sendbuf : nullptr, c.at_root ? c.size * sendcount : 0, sendtype, comm);
        Bytes recv(c.in_place ? nullptr : recvbuf, c.in_place ? 0 : recvcount, recvtype, comm);
        send.pack();
        // The root's own block, copied only when Canopy serves the call (the library copies it itself).
        if (c.at_root && !c.in_place) std::memcpy(recv.data(), send.data() + static_cast<size_t>(root) * c.block, c.block);
        run(h, c.at_root ? send.data() : nullptr, c.at_root ? nullptr : recv.data(), c.block, root);
        recv.unpack();
      },
      pmpi);
}

int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); };
  std::optional<Rooted> shape = rooted(comm, root, recvbuf, sendbuf, recvcount, recvtype, sendcount, sendtype);
  if (!shape) return pmpi();
  const Rooted c = *shape;
  if (c.block == 0) return MPI_SUCCESS;
  if (c.size == 1) return pmpi();  // as in scatter()
  return run_collective<GatherFn>(
      Collective::Gather, comm, c.block, algorithm,
      [&](Hierarchy &h, GatherFn run) {
        Bytes send(c.in_place ? nullptr : sendbuf, c.in_place ? 0 : sendcount, sendtype, comm);
        Bytes recv(c.at_root ? recvbuf : nullptr, c.at_root ? c.size * recvcount : 0, recvtype, comm);
        send.pack();
        char *own = c.at_root ? recv.data() + static_cast<size_t>(root) * c.block : nullptr;
        if (c.in_place) recv.pack();  // the root's own block is in place
        else if (c.at_root) std::memcpy(own, send.data(), c.block);  // as in scatter()
        run(h, c.at_root ? own : send.data(), c.at_root ? recv.data() : nullptr, c.block, root);
        recv.unpack();
      },
      pmpi);
}

int alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); };
  std::optional<Unrooted> shape = unrooted(comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  if (!shape) return pmpi();
  const Unrooted c = *shape;
  if (c.block == 0) return MPI_SUCCESS;
  if (c.size == 1) return pmpi();  // one block to itself: the library copies it, whatever the types
  return run_collective<AlltoallFn>(
      Collective::Alltoall, comm, c.block, algorithm,
      [&](Hierarchy &h, AlltoallFn run) {
        Bytes send(c.in_place ? nullptr : sendbuf, c.in_place ? 0 : c.size * sendcount, sendtype, comm);
        Bytes recv(recvbuf, c.size * recvcount, recvtype, comm);
        send.pack();
        // The algorithms read and write all blocks at once: in place, they read a copy.
        const char *from = send.data();
        if (c.in_place) {
          recv.pack();
          size_t all = static_cast<size_t>(c.size) * c.block;
          from = static_cast<const char *>(std::memcpy(h.scratch(ScratchUse::Entry).get(all), recv.data(), all));
        }
        run(h, from, recv.data(), c.block);
        recv.unpack();
      },
      pmpi);
}

int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
           const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); };
  int rank = 0, size = 0;
  if (!rank_and_size(comm, rank, size) || root < 0 || root >= size) return pmpi();
  bool receives = rank == root;
  ReduceArgs args(sendbuf, recvbuf, receives, count, type, op);
  if (!args.ok) return pmpi();
  if (args.bytes == 0) return MPI_SUCCESS;
  const char *send = args.contribution(sendbuf, recvbuf);
  char *recv = receives ? static_cast<char *>(recvbuf) : nullptr;
  if (size == 1) {  // the reduction of one contribution is the contribution
    if (recv != send) std::memcpy(recv, send, args.bytes);
    return MPI_SUCCESS;
  }
  return run_collective<ReduceFn>(
      Collective::Reduce, comm, args.bytes, algorithm,
      [&](Hierarchy &h, ReduceFn run) { run(h, send, recv, args.bytes, args.op, root); }, pmpi);
}

int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              const char *algorithm) noexcept {
  auto pmpi = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  int rank = 0, size = 0;
  if (!rank_and_size(comm, rank, size)) return pmpi();
  ReduceArgs args(sendbuf, recvbuf, true, count, type, op);
  if (!args.ok) return pmpi();
  if (args.bytes == 0) return MPI_SUCCESS;
  const char *send = args.contribution(sendbuf, recvbuf);
  char *recv = static_cast<char *>(recvbuf);
  if (size == 1) {
    if (recv != send) std::memcpy(recv, send, args.bytes);
    return MPI_SUCCESS;
  }
  return run_collective<AllreduceFn>(
      Collective::Allreduce, comm, args.bytes, algorithm,
      [&](Hierarchy &h, AllreduceFn run) { run(h, send, recv, args.bytes, args.op); }, pmpi);
}

}  // namespace canopy::coll
