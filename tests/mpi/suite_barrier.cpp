// Barrier: nobody leaves before a delayed rank entered; back-to-back barriers.
#include <mpi.h>

#include <chrono>
#include <string>
#include <thread>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A barrier is correct when nobody leaves before the last rank has entered.
void test_barrier(Context &ctx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Barrier)) {
    for (int round = 0; round < 3; ++round) {
      int late = (round * 5 + 1) % size;
      double entered = 0;
      if (rank == late) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        entered = now();
      }
      int rc = canopy::coll::barrier(comm, forced(alg));
      double left = now();
      PMPI_Bcast(&entered, 1, MPI_DOUBLE, late, comm);
      ctx.tally.check(rc == MPI_SUCCESS && left >= entered,
                      describe("barrier", alg, ctx, comm));
    }
    bool ok = true;
    for (int i = 0; i < 50; ++i) ok = ok && canopy::coll::barrier(comm, forced(alg)) == MPI_SUCCESS;
    ctx.tally.check(ok, "50 barriers " + (alg.empty() ? "auto" : alg));
  }
}

}  // namespace

CANOPY_COLL_SUITE("barrier", test_barrier);

}  // namespace coll_test
