/* spmv_pattern: the sparse-matrix communication of the hierarchical task mapping
 * paper, driven by a communication graph file. Each line "SRC DST BYTES" (0-based
 * ranks; '#' starts a comment; an optional first statement "processes N") makes
 * SRC send BYTES to DST once per exchange step: the edge-list format `canopy map
 * --graph` reads, taken as directed volumes (a pair listed both ways exchanges
 * both ways). A step posts every receive, then every send, then one MPI_Waitall.
 * Prints the time of a step (pattern_run: the job's period on a global clock,
 * else the slowest rank's).
 *
 *   spmv_pattern GRAPH [--iters N] [--warmup N] [--scale F]
 *
 * --scale multiplies every volume (e.g. to turn a graph in words into bytes).
 * Every rank reads the file and keeps its own edges. */
#include <errno.h>
#include <math.h>

#include "pattern_common.h"

typedef struct {
  const char *graph;
  long iters, warmup;
  double scale;
} spmv_options;

static void fail_at(const char *file, long line, const char *what) {
  char message[512];
  snprintf(message, sizeof message, "%s:%ld: %s", file, line, what);
  pattern_fail("spmv_pattern", message);
}

static spmv_options parse_options(int argc, char **argv) {
  spmv_options o = {NULL, 10, 1, 1.0};
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') {
      if (o.graph) pattern_fail("spmv_pattern", "only one GRAPH file");
      o.graph = argv[i];
      continue;
    }
    if (i + 1 >= argc) pattern_fail("spmv_pattern", "usage: spmv_pattern GRAPH [--iters N] [--warmup N] [--scale F]");
    const char *value = argv[++i];
    char *end = NULL;
    if (!strcmp(argv[i - 1], "--iters")) {
      if (!pattern_parse_count(value, 1, 1000000, &o.iters)) pattern_fail("spmv_pattern", "--iters needs 1..10^6");
    } else if (!strcmp(argv[i - 1], "--warmup")) {
      if (!pattern_parse_count(value, 0, 1000000, &o.warmup)) pattern_fail("spmv_pattern", "--warmup needs 0..10^6");
    } else if (!strcmp(argv[i - 1], "--scale")) {
      o.scale = strtod(value, &end);
      if (end == value || *end || !(o.scale > 0) || !isfinite(o.scale))
        pattern_fail("spmv_pattern", "--scale needs a positive number");
    } else {
      pattern_fail("spmv_pattern", "usage: spmv_pattern GRAPH [--iters N] [--warmup N] [--scale F]");
    }
  }
  if (!o.graph) pattern_fail("spmv_pattern", "usage: spmv_pattern GRAPH [--iters N] [--warmup N] [--scale F]");
  return o;
}

static void add_peer(pattern_peer **list, int *count, int *capacity, int rank, size_t bytes) {
  for (int i = 0; i < *count; ++i)
    if ((*list)[i].rank == rank) {
      (*list)[i].bytes += bytes; /* repeated edges add up, as in the mapper */
      return;
    }
  if (*count == *capacity) {
    *capacity = *capacity ? 2 * *capacity : 8;
    *list = (pattern_peer *)realloc(*list, sizeof(pattern_peer) * (size_t)*capacity);
    if (!*list) pattern_fail_local("spmv_pattern", "out of memory");
  }
  (*list)[(*count)++] = (pattern_peer){rank, bytes};
}

/* Parses one edge line into src, dst, bytes (scaled and rounded); 0 for a blank
 * or comment line, 1 for an edge, 2 for "processes N" (in *src). */
static int parse_line(char *line, const spmv_options *o, long number, long *src, long *dst, double *bytes) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  char word[32], extra[2];
  if (sscanf(line, "%31s", word) != 1) return 0;
  if (!strcmp(word, "processes")) {
    if (sscanf(line, "%*s %ld %1s", src, extra) != 1 || *src < 1)
      fail_at(o->graph, number, "'processes N' needs a positive count");
    return 2;
  }
  if (sscanf(line, "%ld %ld %lf %1s", src, dst, bytes, extra) != 3)
    fail_at(o->graph, number, "expected 'SRC DST BYTES'");
  if (*src < 0 || *dst < 0) fail_at(o->graph, number, "ranks must be integers >= 0");
  *bytes = floor(*bytes * o->scale + 0.5);
  if (!(*bytes >= 0) || *bytes > 2147483647.0) fail_at(o->graph, number, "bytes must be from 0 to 2^31-1 (after --scale)");
  return 1;
}

/* This rank's sends and receives; fails if the graph names more processes than ranks. */
static pattern_exchange read_graph(const spmv_options *o, int rank, int size, long *edges) {
  FILE *f = fopen(o->graph, "r");
  if (!f) {
    char message[512];
    snprintf(message, sizeof message, "cannot read %s: %s", o->graph, strerror(errno));
    pattern_fail("spmv_pattern", message);
  }
  pattern_exchange x = {NULL, NULL, 0, 0};
  int send_capacity = 0, recv_capacity = 0;
  char line[4096];
  long number = 0, src = 0, dst = 0;
  double bytes = 0;
  *edges = 0;
  while (fgets(line, sizeof line, f)) {
    ++number;
    int kind = parse_line(line, o, number, &src, &dst, &bytes);
    if (kind == 2 && src > size) fail_at(o->graph, number, "the graph has more processes than the job has ranks");
    if (kind != 1) continue;
    if (src >= size || dst >= size) fail_at(o->graph, number, "rank beyond the job's size");
    ++*edges;
    if (src == dst || bytes == 0) continue; /* costs nothing wherever it is placed */
    if (src == rank) add_peer(&x.sends, &x.num_sends, &send_capacity, (int)dst, (size_t)bytes);
    if (dst == rank) add_peer(&x.recvs, &x.num_recvs, &recv_capacity, (int)src, (size_t)bytes);
  }
  fclose(f);
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  spmv_options o = parse_options(argc, argv);
  long edges = 0;
  pattern_exchange x = read_graph(&o, rank, size, &edges);
  double step_bytes = 0, total = 0;
  for (int i = 0; i < x.num_sends; ++i) step_bytes += (double)x.sends[i].bytes;
  MPI_Reduce(&step_bytes, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int global_clock = 0;
  double step_seconds = pattern_run(&x, (int)o.warmup, (int)o.iters, &global_clock);
  char details[128];
  snprintf(details, sizeof details, "edges=%ld bytes_per_step=%.0f", edges, total);
  pattern_report("spmv_pattern", details, (int)o.iters, step_seconds, global_clock);
  free(x.sends);
  free(x.recvs);
  MPI_Finalize();
  return 0;
}
