/* MPI_Bcast on MPI_COMM_WORLD and on two duplicates of it, from every root, each result checked
 * on every rank; linked with libcanopy-mpi.so, so Canopy serves the calls (the leader-order test
 * forces two_level with coll_bcast_leader_order: the duplicates' leaders are the same hosts, and
 * the delays between them are asked for once per process). Prints "ok" on rank 0, exit status 1
 * on a wrong byte. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comms[3] = {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_COMM_NULL};
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_dup(comms[1], &comms[2]);
  for (int c = 0; c < 3; ++c)
    for (int root = 0; root < size; ++root) {
      int data[1000];
      for (int i = 0; i < 1000; ++i) data[i] = rank == root ? root * 1000 + i + c : -1;
      MPI_Bcast(data, 1000, MPI_INT, root, comms[c]);
      for (int i = 0; i < 1000; ++i) wrong += data[i] != root * 1000 + i + c;
    }
  MPI_Comm_free(&comms[2]);
  MPI_Comm_free(&comms[1]);
  int all = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "wrong: %d values\n" : "ok\n", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
