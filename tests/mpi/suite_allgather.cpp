// Allgather: every algorithm, sizes and types, with and without MPI_IN_PLACE, against PMPI_Allgather.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

void test_allgather_case(Context &ctx, MPI_Comm comm, const std::string &alg, const TypeCase &t, int count,
                         bool in_place) {
  int rank, size, type_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Type_size(t.type, &type_size);
  size_t block = static_cast<size_t>(count) * type_size, total = block * size, guard = 64;
  std::vector<unsigned char> send(block), recv(total + guard, 0xEE), ref(total + guard, 0xEE);
  for (size_t i = 0; i < block; ++i) send[i] = pattern(i, rank, count);
  for (size_t i = total; i < total + guard; ++i) recv[i] = ref[i] = 0xA5;
  if (in_place && block) std::memcpy(recv.data() + rank * block, send.data(), block);  // data() may be null
  int rc = canopy::coll::allgather(in_place ? MPI_IN_PLACE : send.data(), count, t.type, recv.data(), count, t.type,
                                   comm, forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (int r = 0; ok && r < size; ++r)
    for (size_t i = 0; ok && i < block; ++i) ok = recv[r * block + i] == pattern(i, r, count);
  for (size_t i = total; ok && i < total + guard; ++i) ok = recv[i] == 0xA5;
  PMPI_Allgather(send.data(), count, t.type, ref.data(), count, t.type, comm);
  ok = ok && std::memcmp(ref.data(), recv.data(), total + guard) == 0;
  ctx.tally.check(ok, describe("allgather", alg, ctx, comm) + "count=" + std::to_string(count) + " " + t.name +
                          (in_place ? " in_place" : ""));
}

void test_allgather(Context &ctx, MPI_Comm comm) {
  const std::vector<TypeCase> &types = ctx.types;
  int size;
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Allgather)) {
    int t = 0;
    for (int count : {0, 1, 7, 4099})
      for (bool in_place : {false, true}) test_allgather_case(ctx, comm, alg, types[t++ % types.size()], count, in_place);
    if (size <= 8) test_allgather_case(ctx, comm, alg, types[0], 65539, t % 2);
    if (size <= 4 && !ctx.quick) test_allgather_case(ctx, comm, alg, types[0], 1048581, false);
  }
}

}  // namespace

CANOPY_COLL_SUITE("allgather", test_allgather);

}  // namespace coll_test
