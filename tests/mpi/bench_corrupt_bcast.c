/* LD_PRELOAD shim for the canopy bench tests: PMPI_Bcast runs the MPI library's own, then
   flips the first byte of the buffer on every rank but the root, so that `canopy bench -c`
   must report the `mpi` column as failed (and leave Canopy's algorithms, which never call
   PMPI_Bcast for data, passing). Proves that validation can fail, without a hook in the
   product. Only MPI_BYTE buffers (what canopy bench broadcasts) are flipped: Canopy's own
   hierarchy setup broadcasts MPI_INT ids with PMPI_Bcast and must stay intact. */
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
  if (rc == MPI_SUCCESS && count > 0 && rank != root && type == MPI_BYTE) ((unsigned char *)buf)[0] ^= 0xff;
  return rc;
}
