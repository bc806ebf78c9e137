// Alltoall: every algorithm, sizes and types, with and without MPI_IN_PLACE, against
// PMPI_Alltoall and the blocks MPI semantics require.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

constexpr size_t kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5;

// Byte i of the block rank `from` sends rank `to`.
unsigned char pair_pattern(size_t i, int from, int to, int size, int count) { return pattern(i, from * size + to, count); }

void test_alltoall_case(Context &ctx, MPI_Comm comm, const std::string &alg, const TypeCase &t, int count,
                        bool in_place) {
  int rank, size, type_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Type_size(t.type, &type_size);
  size_t block = static_cast<size_t>(count) * type_size, total = block * size;
  std::vector<unsigned char> send(total), recv(total + kGuard, 0xEE), ref(total + kGuard, 0xEE);
  for (int to = 0; to < size; ++to)
    for (size_t i = 0; i < block; ++i) send[to * block + i] = pair_pattern(i, rank, to, size, count);
  for (size_t i = total; i < total + kGuard; ++i) recv[i] = ref[i] = kGuardByte;
  if (in_place && total) std::memcpy(recv.data(), send.data(), total);  // data() may be null
  int rc = canopy::coll::alltoall(in_place ? MPI_IN_PLACE : send.data(), count, t.type, recv.data(), count, t.type, comm,
                                  forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (int from = 0; ok && from < size; ++from)
    for (size_t i = 0; ok && i < block; ++i) ok = recv[from * block + i] == pair_pattern(i, from, rank, size, count);
  for (size_t i = total; ok && i < total + kGuard; ++i) ok = recv[i] == kGuardByte;
  const std::vector<unsigned char> &want =
      pmpi_reference(ctx, comm, "alltoall " + std::to_string(count) + " " + t.name, [&] {
        PMPI_Alltoall(send.data(), count, t.type, ref.data(), count, t.type, comm);
        return ref;
      });
  ok = ok && want == recv;
  ctx.tally.check(ok, describe("alltoall", alg, ctx, comm) + "count=" + std::to_string(count) + " " + t.name +
                          (in_place ? " in_place" : ""));
}

void test_alltoall(Context &ctx, MPI_Comm comm) {
  const std::vector<TypeCase> &types = ctx.types;
  int size;
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Alltoall)) {
    int t = 0;
    const int counts[] = {0, 1, 7, 4099};
    for (int k = 0; k < 4; ++k)
      for (bool in_place : {false, true})
        if (!ctx.quick || in_place == (k % 2 == 1))  // --quick: in place at every other size
          test_alltoall_case(ctx, comm, alg, types[t++ % types.size()], counts[k], in_place);
    if (size <= 8) test_alltoall_case(ctx, comm, alg, types[0], 65539, t % 2);
    if (size <= 3 && !ctx.quick) test_alltoall_case(ctx, comm, alg, types[0], 1048581, false);
  }
}

}  // namespace

CANOPY_COLL_SUITE("alltoall", test_alltoall);

}  // namespace coll_test
