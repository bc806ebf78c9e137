// Erroneous calls that every rank makes alike get the library's own answer: Canopy
// leaves them to PMPI, which reports them (the same error class), and never crashes
// on them. MPI_IN_PLACE as the receive buffer of Allgather segfaulted inside
// Canopy's algorithms before.
#include <mpi.h>

#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

void test_erroneous(Context &ctx, MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  MPI_Comm errors_return;
  MPI_Comm_dup(comm, &errors_return);
  MPI_Comm_set_errhandler(errors_return, MPI_ERRORS_RETURN);
  std::vector<int> send(static_cast<size_t>(size), 7);
  auto error_class = [](int rc) {
    int cls = rc;
    MPI_Error_class(rc, &cls);  // codes may carry per-call detail (MPICH's do)
    return cls;
  };
  for (const std::string &alg : algorithms(Collective::Allgather)) {
    int rc = canopy::coll::allgather(send.data(), 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, errors_return, forced(alg));
    int pmpi_rc = PMPI_Allgather(send.data(), 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, errors_return);
    ctx.tally.check(rc != MPI_SUCCESS && error_class(rc) == error_class(pmpi_rc),
                    describe("allgather", alg, ctx, comm) + "recvbuf MPI_IN_PLACE: class=" +
                        std::to_string(error_class(rc)) + " pmpi=" + std::to_string(error_class(pmpi_rc)));
  }
  // Alltoall's (fixed alike in dispatch.cpp) cannot be compared: Open MPI 4.1's PMPI_Alltoall
  // reports it on MPI_COMM_WORLD, whose handler aborts the job.
  MPI_Comm_free(&errors_return);
}

}  // namespace

CANOPY_COLL_SUITE("erroneous", test_erroneous);

}  // namespace coll_test
