// Bcast: every algorithm, sizes, roots and types, against PMPI_Bcast.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

void test_bcast_case(Context &ctx, MPI_Comm comm, const std::string &alg, const TypeCase &t, int count, int root) {
  int rank, size, type_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Type_size(t.type, &type_size);
  size_t bytes = static_cast<size_t>(count) * type_size, guard = 64;
  std::vector<unsigned char> buf(bytes + guard, 0xEE), ref(bytes + guard, 0xEE);
  if (rank == root)
    for (size_t i = 0; i < bytes; ++i) buf[i] = ref[i] = pattern(i, root, count);
  for (size_t i = bytes; i < bytes + guard; ++i) buf[i] = ref[i] = 0xA5;
  int rc = canopy::coll::bcast(buf.data(), count, t.type, root, comm, forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (size_t i = 0; ok && i < bytes; ++i) ok = buf[i] == pattern(i, root, count);
  for (size_t i = bytes; ok && i < bytes + guard; ++i) ok = buf[i] == 0xA5;
  if (bytes <= 65539) {  // PMPI reference for the sizes where it is cheap
    const std::vector<unsigned char> &want =
        pmpi_reference(ctx, comm, "bcast " + std::to_string(count) + " " + t.name + " root=" + std::to_string(root), [&] {
          PMPI_Bcast(ref.data(), count, t.type, root, comm);
          return ref;
        });
    ok = ok && want == buf;
  }
  ctx.tally.check(ok, describe("bcast", alg, ctx, comm) + "count=" + std::to_string(count) + " " + t.name +
                          " root=" + std::to_string(root));
}

void test_bcast(Context &ctx, MPI_Comm comm) {
  const std::vector<TypeCase> &types = ctx.types;
  int size;
  MPI_Comm_size(comm, &size);
  const int small[] = {0, 1, 7, 4099};
  for (const std::string &alg : algorithms(Collective::Bcast)) {
    int t = 0;
    for (int count : small)
      for (int root = 0; root < size; ++root)
        if (!ctx.quick || root == 0 || root == size - 1 || root == size / 2)
          test_bcast_case(ctx, comm, alg, types[t++ % types.size()], count, root);
    for (int count : {65539, 1048581})
      if (!ctx.quick || count == 65539)
        for (int root : {0, size - 1}) test_bcast_case(ctx, comm, alg, types[0], count, root);
  }
}

}  // namespace

CANOPY_COLL_SUITE("bcast", test_bcast);

}  // namespace coll_test
