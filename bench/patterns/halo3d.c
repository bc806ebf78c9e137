/* halo3d: the 3D stencil benchmark of the hierarchical task mapping paper. Ranks
 * form an X x Y x Z grid in rank order (x fastest); each exchanges one face of
 * BYTES bytes with each of its up to 6 neighbours per step: non-blocking
 * receives, non-blocking sends, one MPI_Waitall. Prints the time of a step
 * (pattern_run: the job's period on a global clock, else the slowest rank's).
 *
 *   halo3d [--dims XxYxZ] [--bytes N] [--iters N] [--warmup N] [--periodic]
 *
 * --dims defaults to MPI_Dims_create's balanced grid; --bytes to 65536. */
#include "pattern_common.h"

typedef struct {
  int dims[3];
  long bytes, iters, warmup;
  int periodic;
} halo_options;

static void usage(void) {
  pattern_fail("halo3d", "usage: halo3d [--dims XxYxZ] [--bytes N] [--iters N] [--warmup N] [--periodic]");
}

static halo_options parse_options(int argc, char **argv, int size) {
  halo_options o = {{0, 0, 0}, 65536, 10, 1, 0};
  for (int i = 1; i < argc; ++i) {
    const char *value = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--periodic")) {
      o.periodic = 1;
      continue;
    }
    if (i + 1 >= argc) usage();
    ++i;
    if (!strcmp(argv[i - 1], "--dims")) {
      if (sscanf(value, "%dx%dx%d", &o.dims[0], &o.dims[1], &o.dims[2]) != 3 || o.dims[0] < 1 || o.dims[1] < 1 ||
          o.dims[2] < 1)
        pattern_fail("halo3d", "--dims needs XxYxZ with positive extents");
    } else if (!strcmp(argv[i - 1], "--bytes")) {
      if (!pattern_parse_count(value, 0, 1L << 30, &o.bytes)) pattern_fail("halo3d", "--bytes needs 0..2^30");
    } else if (!strcmp(argv[i - 1], "--iters")) {
      if (!pattern_parse_count(value, 1, 1000000, &o.iters)) pattern_fail("halo3d", "--iters needs 1..10^6");
    } else if (!strcmp(argv[i - 1], "--warmup")) {
      if (!pattern_parse_count(value, 0, 1000000, &o.warmup)) pattern_fail("halo3d", "--warmup needs 0..10^6");
    } else {
      usage();
    }
  }
  if (!o.dims[0]) MPI_Dims_create(size, 3, o.dims);
  if ((long)o.dims[0] * o.dims[1] * o.dims[2] != size) pattern_fail("halo3d", "--dims must multiply to the rank count");
  return o;
}

/* The rank one step along dimension d (step -1 or +1), or -1 past a non-periodic edge. */
static int neighbour(const halo_options *o, int rank, int d, int step) {
  int c[3] = {rank % o->dims[0], rank / o->dims[0] % o->dims[1], rank / (o->dims[0] * o->dims[1])};
  c[d] += step;
  if (c[d] < 0 || c[d] >= o->dims[d]) {
    if (!o->periodic || o->dims[d] == 1) return -1;
    c[d] = (c[d] + o->dims[d]) % o->dims[d];
  }
  return c[0] + o->dims[0] * (c[1] + o->dims[1] * c[2]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  halo_options o = parse_options(argc, argv, size);
  pattern_peer peers[6];
  int num_peers = 0;
  for (int d = 0; d < 3; ++d)
    for (int step = -1; step <= 1; step += 2) {
      int peer = neighbour(&o, rank, d, step);
      /* A periodic extent of 2 reaches the same neighbour both ways: once is enough. */
      int seen = 0;
      for (int k = 0; k < num_peers; ++k) seen |= peers[k].rank == peer;
      if (peer >= 0 && peer != rank && !seen) peers[num_peers++] = (pattern_peer){peer, (size_t)o.bytes};
    }
  pattern_exchange x = {peers, peers, num_peers, num_peers};
  int global_clock = 0;
  double step_seconds = pattern_run(&x, (int)o.warmup, (int)o.iters, &global_clock);
  char details[128];
  snprintf(details, sizeof details, "dims=%dx%dx%d bytes=%ld periodic=%d", o.dims[0], o.dims[1], o.dims[2], o.bytes,
           o.periodic);
  pattern_report("halo3d", details, (int)o.iters, step_seconds, global_clock);
  MPI_Finalize();
  return 0;
}
