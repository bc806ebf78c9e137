/* One Bcast between one rank per node down a tree whose positions the leaders take in a given
 * order: the inter-node step of Canopy's two_level Bcast, for the SMPI benchmark of the
 * topology-aware leader order (bench/smpi_bcast.sh). The orders come from bench_bcast_orders:
 * a line "parents P0 P1 ..." (the tree over the positions, as libcanopy-mpi builds it), then
 * lines "ORDER ROOT L0 L1 ..." (rank Lv at position v). A position receives from its parent, then
 * sends to its children one after another, those with more descendants first (as the k-nomial
 * Bcast does). Each Bcast starts after a barrier; its time runs from then (SMPI's clock is
 * global) to the last rank's receipt. Prints per order line and size:
 *   bcast_tree order=ORDER root=ROOT bytes=B us=T
 * Usage: bcast_tree ORDERS_FILE BYTES[,BYTES...] [REPEATS]   (one rank per line of the orders) */
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
  if (argc < 3 || argc > 4) pattern_fail(kProgram, "usage: bcast_tree ORDERS_FILE BYTES[,BYTES...] [REPEATS]");
  long repeats = 3;
  if (argc == 4 && !pattern_parse_count(argv[3], 1, 1000000, &repeats)) pattern_fail(kProgram, "bad REPEATS");
  long sizes[64];
  int num_sizes = 0;
  char size_list[1024];
  snprintf(size_list, sizeof size_list, "%s", argv[2]);
  char *save = NULL;
  for (char *word = strtok_r(size_list, ",", &save); word; word = strtok_r(NULL, ",", &save))
    if (num_sizes == 64 || !pattern_parse_count(word, 1, 1L << 30, &sizes[num_sizes++]))
      pattern_fail(kProgram, "bad BYTES (a list of up to 64 sizes from 1 byte to 1 GiB)");
  FILE *in = fopen(argv[1], "r");
  if (!in) pattern_fail(kProgram, "cannot open the orders file");
  char *line = (char *)malloc(MAX_LINE);
  long *parent = (long *)malloc(sizeof(long) * (size_t)size), *leader = (long *)malloc(sizeof(long) * ((size_t)size + 1));
  int *position = (int *)malloc(sizeof(int) * (size_t)size), *descendants = (int *)malloc(sizeof(int) * (size_t)size);
  int *children = (int *)malloc(sizeof(int) * (size_t)size);
  if (!fgets(line, MAX_LINE, in) || strncmp(line, "parents ", 8) != 0 || read_numbers(line, parent, size) != size)
    pattern_fail(kProgram, "the orders file must start with the tree's parents, one per rank");
  for (int v = 0; v < size; ++v) descendants[v] = 0;
  for (int v = size - 1; v > 0; --v) descendants[parent[v]] += descendants[v] + 1;
  long largest = 0;
  for (int s = 0; s < num_sizes; ++s) largest = sizes[s] > largest ? sizes[s] : largest;
  char *buf = (char *)PATTERN_ALLOC((size_t)largest);
  while (fgets(line, MAX_LINE, in)) {
    char order[32] = "";
    sscanf(line, "%31s", order);
    if (read_numbers(line, leader, size + 1) != size + 1) pattern_fail(kProgram, "an order line must name a root and every rank");
    for (int v = 0; v < size; ++v) position[leader[v + 1]] = v;
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
    for (int s = 0; s < num_sizes; ++s) {
      double total = 0;
      for (long r = 0; r <= repeats; ++r) { /* one untimed Bcast first */
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime(), end = 0;
        if (me > 0)
          MPI_Recv(buf, (int)sizes[s], MPI_BYTE, (int)leader[parent[me] + 1], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        end = MPI_Wtime();
        for (int c = 0; c < num_children; ++c)
          MPI_Send(buf, (int)sizes[s], MPI_BYTE, (int)leader[children[c] + 1], 0, MPI_COMM_WORLD);
        double first_start = 0, last_end = 0;
        MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r > 0) total += last_end - first_start;
      }
      if (rank == 0)
        printf("bcast_tree order=%s root=%ld bytes=%ld us=%.3f\n", order, leader[0], sizes[s], total / (double)repeats * 1e6);
    }
  }
  fflush(stdout);
  PATTERN_FREE(buf);
  MPI_Finalize();
  return 0;
}
