/* LD_PRELOAD shim for the canopy bench tests: PMPI_Bcast runs the MPI library's own, then
   flips the first byte of an MPI_BYTE buffer (the benchmark's data) on every rank but the
   root, so that `canopy bench -c` must report the `mpi` column as failed and leave Canopy's
   algorithms passing (they never call PMPI_Bcast on data; Canopy's own PMPI_Bcasts, of
   MPI_INT while it builds a communicator's hierarchy, stay intact). Proves that validation
   can fail, without a hook in the product. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

typedef int (*bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*rank_fn)(MPI_Comm, int *);

int PMPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  static bcast_fn real_bcast;
  static rank_fn real_rank;
  if (!real_bcast) real_bcast = (bcast_fn)dlsym(RTLD_NEXT, "PMPI_Bcast");
  if (!real_rank) real_rank = (rank_fn)dlsym(RTLD_NEXT, "PMPI_Comm_rank");
  int rc = real_bcast(buf, count, type, root, comm);
  int rank = 0;
  real_rank(comm, &rank);
  if (rc == MPI_SUCCESS && type == MPI_BYTE && count > 0 && rank != root) ((unsigned char *)buf)[0] ^= 0xff;
  return rc;
}
