/* Rank 0 ping-pongs a message with every other rank in turn and prints the
   simulated one-way time of each pair, so a test can compare where the ranks
   were placed (same socket, other socket, other node) on a per-core platform.
   Usage: core_pingpong [BYTES] [ITERS]
   Output: one line per pair, "pair 0-R bytes=B one_way_us=T". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bytes = argc > 1 ? atoi(argv[1]) : 8;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  if (bytes < 1 || iters < 1) {
    if (rank == 0) fprintf(stderr, "core_pingpong: BYTES and ITERS must be positive\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buffer = calloc((size_t)bytes, 1);
  for (int peer = 1; peer < size; ++peer) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (rank == 0) {
        MPI_Send(buffer, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == peer) {
        MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
    }
    if (rank == 0)
      printf("pair 0-%d bytes=%d one_way_us=%.4f\n", peer, bytes, (MPI_Wtime() - start) * 1e6 / (2.0 * iters));
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
