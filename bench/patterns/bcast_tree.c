/* One Bcast between one rank per node down a tree whose positions the leaders take in a given
 * order: the inter-node step of Canopy's two_level Bcast, for the SMPI benchmark of the
 * topology-aware leader order (bench/smpi_bcast.sh). The orders come from bench_bcast_orders:
 * a line "parents P0 P1 ..." (the tree over the positions, as libcanopy-mpi builds it), then
 * lines "ORDER ROOT BYTES L0 L1 ..." (rank Lv at position v for a Bcast of BYTES; libcanopy-mpi
 * orders each message size class on its own). A position receives from its parent, then
 * sends to its children one after another, those with more descendants first (as the k-nomial
 * Bcast does). Each Bcast starts after a barrier; its time runs from then (SMPI's clock is
 * global) to the last rank's receipt, averaged over REPEATS (default 3). Prints per order line:
 *   bcast_tree order=ORDER root=ROOT bytes=B us=T
 * Usage: bcast_tree ORDERS_FILE [REPEATS]   (one rank per node of the orders) */
#include "pattern_common.h"

#define MAX_LINE (1 << 22)

static const char *kProgram = "bcast_tree";

/* The numbers after the first word of @p line into @p out (at most @p max); their count. */
static int read_numbers(char *line, long *out, int max) {
  int count = 0;
  char *save = NULL;
  strtok_r(line, " \n", &save);
  for (char *word = strtok_r(NULL, " \n", &save); word && count < max; word = strtok_r(NULL, " \n", &save))
    if (!pattern_parse_count(word, -1, 1L << 30, &out[count++])) return -1;
  return count;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || argc > 3) pattern_fail(kProgram, "usage: bcast_tree ORDERS_FILE [REPEATS]");
  long repeats = 3;
  if (argc == 3 && !pattern_parse_count(argv[2], 1, 1000000, &repeats)) pattern_fail(kProgram, "bad REPEATS");
  FILE *in = fopen(argv[1], "r");
  if (!in) pattern_fail(kProgram, "cannot open the orders file");
  char *line = (char *)malloc(MAX_LINE);
  long *parent = (long *)malloc(sizeof(long) * (size_t)size), *leader = (long *)malloc(sizeof(long) * ((size_t)size + 2));
  int *position = (int *)malloc(sizeof(int) * (size_t)size), *descendants = (int *)malloc(sizeof(int) * (size_t)size);
  int *children = (int *)malloc(sizeof(int) * (size_t)size);
  if (!fgets(line, MAX_LINE, in) || strncmp(line, "parents ", 8) != 0 || read_numbers(line, parent, size) != size)
    pattern_fail(kProgram, "the orders file must start with the tree's parents, one per rank");
  for (int v = 0; v < size; ++v) descendants[v] = 0;
  for (int v = size - 1; v > 0; --v) descendants[parent[v]] += descendants[v] + 1;
  char *buf = NULL;
  long allocated = 0;
  while (fgets(line, MAX_LINE, in)) {
    char order[32] = "";
    sscanf(line, "%31s", order);
    /* leader[0] the root, leader[1] the bytes, leader[2 + v] the rank at position v */
    if (read_numbers(line, leader, size + 2) != size + 2 || leader[1] < 1)
      pattern_fail(kProgram, "an order line must name a root, a size and every rank");
    long bytes = leader[1];
    if (bytes > allocated) {
      if (buf) PATTERN_FREE(buf);
      buf = (char *)PATTERN_ALLOC((size_t)bytes);
      allocated = bytes;
    }
    for (int v = 0; v < size; ++v) position[v] = -1;
    for (int v = 0; v < size; ++v) {
      if (leader[v + 2] < 0 || leader[v + 2] >= size || position[leader[v + 2]] >= 0)
        pattern_fail(kProgram, "an order line must name every rank once");
      position[leader[v + 2]] = v;
    }
    int me = position[rank], num_children = 0;
    /* My children, those with more descendants first, then by position. */
    for (int v = 1; v < size; ++v)
      if (parent[v] == me) {
        int at = num_children++;
        while (at > 0 && (descendants[children[at - 1]] < descendants[v])) {
          children[at] = children[at - 1];
          --at;
        }
        children[at] = v;
      }
    double total = 0;
    for (long r = 0; r <= repeats; ++r) { /* one untimed Bcast first */
      MPI_Barrier(MPI_COMM_WORLD);
      double start = MPI_Wtime(), end = 0;
      if (me > 0) MPI_Recv(buf, (int)bytes, MPI_BYTE, (int)leader[parent[me] + 2], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      end = MPI_Wtime();
      for (int c = 0; c < num_children; ++c)
        MPI_Send(buf, (int)bytes, MPI_BYTE, (int)leader[children[c] + 2], 0, MPI_COMM_WORLD);
      double first_start = 0, last_end = 0;
      MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (r > 0) total += last_end - first_start;
    }
    if (rank == 0)
      printf("bcast_tree order=%s root=%ld bytes=%ld us=%.3f\n", order, leader[0], bytes, total / (double)repeats * 1e6);
  }
  fflush(stdout);
  if (buf) PATTERN_FREE(buf);
  MPI_Finalize();
  return 0;
}
