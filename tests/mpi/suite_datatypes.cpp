// Ranks describing one block with different datatypes of one signature, as MPI allows: two ints
// as 2 x MPI_INT on some ranks, as one element of a derived type on others: a vector (not
// contiguous) and an indexed type whose two ints lie back to back but listed in reverse order.
// Every algorithm of Bcast, Allgather, Scatter, Gather and Alltoall against PMPI with the same
// arguments (a rank that once took PMPI's path alone left the others waiting in Canopy's, and
// the reversed type was copied as plain bytes).
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

constexpr int kSlot = 4;  // ints a block's buffer spans: the vector's extent is 3

struct Side {
  int count;
  MPI_Datatype type;
};

// Rank r's way to describe two ints: odd ranks 2 x MPI_INT, even ranks one @p derived.
Side side_of(int rank, MPI_Datatype derived) { return rank % 2 ? Side{2, MPI_INT} : Side{1, derived}; }

// Runs @p call (Canopy's, then PMPI's) on two copies of one buffer and compares them whole.
void compare(Context &ctx, MPI_Comm comm, const std::string &what, size_t ints,
             const std::function<int(int *buf, bool canopy)> &call) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<int> canopy(ints), pmpi(ints);
  for (size_t i = 0; i < ints; ++i) canopy[i] = pmpi[i] = rank * 1000 + static_cast<int>(i);
  bool ok = call(canopy.data(), true) == MPI_SUCCESS;
  call(pmpi.data(), false);
  ctx.tally.check(ok && canopy == pmpi, what);
}

void test_mixed_datatypes(Context &ctx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Datatype every_other, reversed;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  int lengths[2] = {1, 1}, displacements[2] = {1, 0};
  MPI_Type_indexed(2, lengths, displacements, MPI_INT, &reversed);
  MPI_Type_commit(&every_other);
  MPI_Type_commit(&reversed);
  size_t all = static_cast<size_t>(size) * kSlot;
  for (MPI_Datatype derived : {every_other, reversed}) {
    std::string type = derived == every_other ? " vector" : " reversed";
    Side mine = side_of(rank, derived);
    // One block (kSlot ints, the mixed side) and then p blocks of 2 x MPI_INT.
    auto blocks = [&](int *buf) { return buf + kSlot; };
    for (const std::string &alg : algorithms(Collective::Bcast))
      compare(ctx, comm, describe("bcast", alg, ctx, comm) + "mixed" + type, kSlot, [&](int *buf, bool canopy) {
        return canopy ? canopy::coll::bcast(buf, mine.count, mine.type, 0, comm, forced(alg))
                      : PMPI_Bcast(buf, mine.count, mine.type, 0, comm);
      });
    for (const std::string &alg : algorithms(Collective::Allgather))
      compare(ctx, comm, describe("allgather", alg, ctx, comm) + "mixed" + type, kSlot + all, [&](int *buf, bool canopy) {
        return canopy ? canopy::coll::allgather(buf, mine.count, mine.type, blocks(buf), 2, MPI_INT, comm, forced(alg))
                      : PMPI_Allgather(buf, mine.count, mine.type, blocks(buf), 2, MPI_INT, comm);
      });
    for (const std::string &alg : algorithms(Collective::Gather))
      compare(ctx, comm, describe("gather", alg, ctx, comm) + "mixed" + type, kSlot + all, [&](int *buf, bool canopy) {
        return canopy ? canopy::coll::gather(buf, mine.count, mine.type, blocks(buf), 2, MPI_INT, 0, comm, forced(alg))
                      : PMPI_Gather(buf, mine.count, mine.type, blocks(buf), 2, MPI_INT, 0, comm);
      });
    for (const std::string &alg : algorithms(Collective::Scatter))
      compare(ctx, comm, describe("scatter", alg, ctx, comm) + "mixed" + type, kSlot + all, [&](int *buf, bool canopy) {
        return canopy ? canopy::coll::scatter(blocks(buf), 2, MPI_INT, buf, mine.count, mine.type, 0, comm, forced(alg))
                      : PMPI_Scatter(blocks(buf), 2, MPI_INT, buf, mine.count, mine.type, 0, comm);
      });
    // Alltoall: every rank sends p blocks of 2 x MPI_INT and receives each block as its side says,
    // a slot (kSlot ints) apart: the side's type resized to a slot per block. The reference
    // receives plain ints and unpacks them: Open MPI 4.1.4's own Alltoall misplaces the blocks of
    // the resized vector on 16 ranks (MPICH's and Canopy's agree with the unpacked ints).
    MPI_Datatype slotted = MPI_DATATYPE_NULL;
    MPI_Type_create_resized(mine.type, 0, static_cast<MPI_Aint>(kSlot * sizeof(int) / mine.count), &slotted);
    MPI_Type_commit(&slotted);
    for (const std::string &alg : algorithms(Collective::Alltoall))
      compare(ctx, comm, describe("alltoall", alg, ctx, comm) + "mixed" + type, 2 * all, [&](int *buf, bool canopy) {
        int *received = buf + all;
        if (canopy) return canopy::coll::alltoall(buf, 2, MPI_INT, received, mine.count, slotted, comm, forced(alg));
        std::vector<int> ints(static_cast<size_t>(2 * size));
        int at = 0, rc = PMPI_Alltoall(buf, 2, MPI_INT, ints.data(), 2, MPI_INT, comm);
        MPI_Unpack(ints.data(), static_cast<int>(ints.size() * sizeof(int)), &at, received, size * mine.count, slotted, comm);
        return rc;
      });
    MPI_Type_free(&slotted);
  }
  MPI_Type_free(&every_other);
  MPI_Type_free(&reversed);
}

}  // namespace

CANOPY_COLL_SUITE("datatypes", test_mixed_datatypes);

}  // namespace coll_test
