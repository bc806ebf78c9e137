// Scatter and Gather: every algorithm, sizes, roots and types, with and without MPI_IN_PLACE,
// against PMPI_Scatter / PMPI_Gather and the blocks MPI semantics require. The buffers that
// MPI calls insignificant (send buffer off the root for Scatter, receive buffer off the root
// for Gather) are null pointers, so an algorithm touching them crashes the test.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

constexpr size_t kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5, kUnset = 0xEE;

struct RootedCase {
  const std::string &alg;
  const TypeCase &t;
  int count, root;
  bool in_place;
};

struct Shape {
  int rank, size;
  size_t block;
  Shape(MPI_Comm comm, const RootedCase &c) {
    int type_size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_size(c.t.type, &type_size);
    block = static_cast<size_t>(c.count) * type_size;
  }
  size_t total() const { return block * size; }
};

// p blocks, block r = pattern(i, r, count), then the guard.
std::vector<unsigned char> rank_blocks(const Shape &s, int count) {
  std::vector<unsigned char> buf(s.total() + kGuard, kGuardByte);
  for (int r = 0; r < s.size; ++r)
    for (size_t i = 0; i < s.block; ++i) buf[r * s.block + i] = pattern(i, r, count);
  return buf;
}

bool holds_block(const unsigned char *buf, const Shape &s, int owner, int count) {
  for (size_t i = 0; i < s.block; ++i)
    if (buf[i] != pattern(i, owner, count)) return false;
  return true;
}

bool guard_intact(const unsigned char *end) {
  for (size_t i = 0; i < kGuard; ++i)
    if (end[i] != kGuardByte) return false;
  return true;
}

std::string what(const char *coll, Context &ctx, MPI_Comm comm, const RootedCase &c) {
  return describe(coll, c.alg, ctx, comm) + "count=" + std::to_string(c.count) + " " + c.t.name +
         " root=" + std::to_string(c.root) + (c.in_place ? " in_place" : "");
}

// The input of a case, all that PMPI's answer depends on (besides the communicator).
std::string reference_key(const char *coll, const RootedCase &c) {
  return std::string(coll) + " " + std::to_string(c.count) + " " + c.t.name + " root=" + std::to_string(c.root) +
         (c.in_place ? " in_place" : "");
}

// Every rank ends with block `rank` of the root's buffer; the root's buffer stays as it was
// (in place, the root's own block is its result).
void test_scatter_case(Context &ctx, MPI_Comm comm, const RootedCase &c) {
  Shape s(comm, c);
  bool at_root = s.rank == c.root, in_place = at_root && c.in_place;
  std::vector<unsigned char> send = at_root ? rank_blocks(s, c.count) : std::vector<unsigned char>();
  std::vector<unsigned char> recv(s.block + kGuard, kUnset), ref(s.block + kGuard, kUnset);
  for (size_t i = s.block; i < s.block + kGuard; ++i) recv[i] = ref[i] = kGuardByte;
  const void *sendbuf = at_root ? send.data() : nullptr;
  int rc = canopy::coll::scatter(sendbuf, c.count, c.t.type, in_place ? MPI_IN_PLACE : recv.data(), c.count, c.t.type,
                                 c.root, comm, forced(c.alg));
  bool ok = rc == MPI_SUCCESS;
  if (at_root) ok = ok && send == rank_blocks(s, c.count);
  if (in_place) {
    ok = ok && holds_block(send.data() + c.root * s.block, s, s.rank, c.count);
  } else {
    ok = ok && holds_block(recv.data(), s, s.rank, c.count) && guard_intact(recv.data() + s.block);
  }
  if (s.total() <= (1u << 20)) {  // PMPI reference where it is cheap
    const std::vector<unsigned char> &want = pmpi_reference(ctx, comm, reference_key("scatter", c), [&] {
      PMPI_Scatter(sendbuf, c.count, c.t.type, in_place ? MPI_IN_PLACE : ref.data(), c.count, c.t.type, c.root, comm);
      return ref;
    });
    ok = ok && (in_place || want == recv);
  }
  ctx.tally.check(ok, what("scatter", ctx, comm, c));
}

// The root ends with every rank's block in rank order (in place, its own was there already).
void test_gather_case(Context &ctx, MPI_Comm comm, const RootedCase &c) {
  Shape s(comm, c);
  bool at_root = s.rank == c.root, in_place = at_root && c.in_place;
  std::vector<unsigned char> send(s.block), recv, ref;
  for (size_t i = 0; i < s.block; ++i) send[i] = pattern(i, s.rank, c.count);
  if (at_root) {
    recv.assign(s.total() + kGuard, kUnset);
    for (size_t i = s.total(); i < recv.size(); ++i) recv[i] = kGuardByte;
    if (in_place && s.block) std::memcpy(recv.data() + c.root * s.block, send.data(), s.block);
    ref = recv;
  }
  const void *sendbuf = in_place ? MPI_IN_PLACE : send.data();
  int rc = canopy::coll::gather(sendbuf, c.count, c.t.type, at_root ? recv.data() : nullptr, c.count, c.t.type, c.root,
                                comm, forced(c.alg));
  bool ok = rc == MPI_SUCCESS;
  if (at_root) {
    ok = ok && recv == rank_blocks(s, c.count);
  }
  if (s.total() <= (1u << 20)) {
    const std::vector<unsigned char> &want = pmpi_reference(ctx, comm, reference_key("gather", c), [&] {
      PMPI_Gather(sendbuf, c.count, c.t.type, at_root ? ref.data() : nullptr, c.count, c.t.type, c.root, comm);
      return ref;
    });
    ok = ok && want == recv;
  }
  ctx.tally.check(ok, what("gather", ctx, comm, c));
}

using CaseFn = void (*)(Context &ctx, MPI_Comm comm, const RootedCase &c);

// Sizes up to 7 at every root, 4099 at the first, middle and last (all sizes with --quick),
// types in turn, every third case in place; 64 KiB+3 at the first and last root, 1 MiB+5 at
// few ranks.
void test_rooted(Context &ctx, MPI_Comm comm, Collective coll, CaseFn run) {
  const std::vector<TypeCase> &types = ctx.types;
  int size;
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(coll)) {
    int t = 0;
    for (int count : {0, 1, 7, 4099})
      for (int root = 0; root < size; ++root, ++t)
        if ((!ctx.quick && count < 4099) || root == 0 || root == size - 1 || root == size / 2)
          run(ctx, comm, {alg, types[t % types.size()], count, root, t % 3 == 1});
    if (size <= 8)
      for (int root : {0, size - 1}) run(ctx, comm, {alg, types[0], 65539, root, root != 0});
    if (size <= 4 && !ctx.quick) run(ctx, comm, {alg, types[0], 1048581, size - 1, false});
  }
}

void test_scatter_gather(Context &ctx, MPI_Comm comm) {
  test_rooted(ctx, comm, Collective::Scatter, test_scatter_case);
  test_rooted(ctx, comm, Collective::Gather, test_gather_case);
}

}  // namespace

CANOPY_COLL_SUITE("scatter_gather", test_scatter_gather);

}  // namespace coll_test
