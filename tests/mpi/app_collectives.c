/* An ordinary MPI program, built without Canopy: bcast, allgather, scatter, gather,
   alltoall (each also in place), reduce, allreduce (also in place) and barrier on
   MPI_COMM_WORLD and a split communicator. World rank 0 prints its
   checksums as it goes, and at the end every rank's running checksum (MPI_Gather), then
   the checksums of a last round trip run from inside MPI_Finalize (a library's clean-up hook).
   preload_app.sh runs it with and without LD_PRELOAD=libcanopy-mpi.so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long checksum(const int *v, int n) {
  unsigned long sum = 0;
  for (int i = 0; i < n; ++i) sum = sum * 31 + (unsigned long)v[i];
  return sum;
}

static unsigned long running = 0, world_rank = 0;

static void report(const char *label, const char *what, int n, int root, unsigned long sum) {
  running = running * 131 + sum;
  if (world_rank == 0) printf("%s %s n=%d root=%d sum=%lu\n", label, what, n, root, sum);
}

/* Scatter from and gather to every root (odd roots in place), then alltoall (also in place).
   data holds n ints, all n * size. */
static void rooted_round_trip(MPI_Comm comm, const char *label, int n, int *data, int *all) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int root = 0; root < size; ++root) {
    int in_place = rank == root && root % 2;
    for (int i = 0; i < n * size; ++i) all[i] = rank == root ? i * 3 + root : -1;
    MPI_Scatter(all, n, MPI_INT, in_place ? MPI_IN_PLACE : data, n, MPI_INT, root, comm);
    report(label, "scatter", n, root, checksum(in_place ? all + root * n : data, n));
    for (int i = 0; i < n; ++i) data[i] = rank * 5 + i + root;
    if (in_place) memcpy(all + root * n, data, sizeof(int) * (size_t)n);
    MPI_Gather(in_place ? MPI_IN_PLACE : data, n, MPI_INT, all, n, MPI_INT, root, comm);
    report(label, "gather", n, root, rank == root ? checksum(all, n * size) : 0);
  }
  int *mixed = malloc(sizeof(int) * (size_t)n * (size_t)size);
  for (int i = 0; i < n * size; ++i) all[i] = rank * 7 + i;
  MPI_Alltoall(all, n, MPI_INT, mixed, n, MPI_INT, comm);
  report(label, "alltoall", n, -1, checksum(mixed, n * size));
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mixed, n, MPI_INT, comm);
  report(label, "alltoall in place", n, -1, checksum(mixed, n * size));
  free(mixed);
}

/* A solver's dot product (every rank needs it), an element-wise maximum gathered on two
   roots, and an in-place element-wise minimum. */
static void reductions(MPI_Comm comm, const char *label, int n, int *data, int *result) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double local = 0, dot = 0;
  for (int i = 0; i < n; ++i) local += (double)(rank + 1) * (double)(i % 7);
  MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, comm);
  report(label, "allreduce dot", n, -1, (unsigned long)dot);
  for (int root = 0; root < size; root += size - 1 > 0 ? size - 1 : 1) {
    for (int i = 0; i < n; ++i) data[i] = rank * 3 - i % 11;
    MPI_Reduce(data, result, n, MPI_INT, MPI_MAX, root, comm);
    report(label, "reduce max", n, root, rank == root ? checksum(result, n) : 0);
  }
  for (int i = 0; i < n; ++i) result[i] = (rank * 5 + i) % 9;
  MPI_Allreduce(MPI_IN_PLACE, result, n, MPI_INT, MPI_MIN, comm);
  report(label, "allreduce min in place", n, -1, checksum(result, n));
}

static void round_trip(MPI_Comm comm, const char *label, int n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *data = malloc(sizeof(int) * (size_t)n), *all = malloc(sizeof(int) * (size_t)n * (size_t)size);
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < n; ++i) data[i] = rank == root ? i * 7 + root : -1;
    MPI_Bcast(data, n, MPI_INT, root, comm);
    report(label, "bcast", n, root, checksum(data, n));
  }
  for (int i = 0; i < n; ++i) data[i] = rank * 1000 + i;
  MPI_Allgather(data, n, MPI_INT, all, n, MPI_INT, comm);
  report(label, "allgather", n, -1, checksum(all, n * size));
  for (int i = 0; i < n; ++i) all[rank * n + i] = rank * 3 + i;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, comm);
  report(label, "allgather in place", n, -1, checksum(all, n * size));
  rooted_round_trip(comm, label, n, data, all);
  reductions(comm, label, n, data, all);
  MPI_Barrier(comm);
  free(data);
  free(all);
}

/* A library's clean-up hook, as an attribute on MPI_COMM_SELF: MPI_Finalize deletes those
   attributes first, newest first, so this one, set before the first collective (when Canopy sets
   its own), runs after Canopy has freed its state. Its collectives once crashed the job. */
static int at_finalize(MPI_Comm self, int keyval, void *value, void *extra) {
  (void)self, (void)keyval, (void)value, (void)extra;
  round_trip(MPI_COMM_WORLD, "finalize", 3);
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int keyval;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  world_rank = (unsigned long)rank;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  for (int n = 1; n <= 100000; n *= 17) {
    round_trip(MPI_COMM_WORLD, "world", n);
    round_trip(half, rank % 2 ? "odd" : "even", n);
  }
  MPI_Comm_free(&half);
  unsigned long *all = malloc(sizeof(unsigned long) * (size_t)size);
  MPI_Gather(&running, 1, MPI_UNSIGNED_LONG, all, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; ++r) printf("rank %d running checksum %lu\n", r, all[r]);
  free(all);
  MPI_Finalize();
  return 0;
}
