/* An ordinary MPI application, unaware of Canopy: a 3D halo exchange on a PX x PY x PZ
 * process grid (not periodic) over a distributed-graph communicator made with reorder = 1.
 * Each process takes its rank in the new communicator, derives its grid position from it,
 * checks that the graph MPI reports for it is its stencil neighbourhood, exchanges faces
 * with isend/irecv along that graph and updates its cells. Rank 0 prints checksums, which
 * do not depend on which process plays which grid position; stderr gets how many ranks
 * were renumbered.
 *
 *   app_halo3d PX PY PZ [--general] [--unweighted] [--cart] [--graph1] [--persistent | --neighbor]
 *              [--iterations N]
 *     --general     MPI_Dist_graph_create (each rank states another rank's edges) instead
 *                   of MPI_Dist_graph_create_adjacent
 *     --unweighted  MPI_UNWEIGHTED instead of face sizes as edge weights
 *     --cart        MPI_Cart_create (dims PZ x PY x PX, so that x varies fastest as here); the
 *                   grid may have fewer ranks than the job, which leaves the others out
 *     --graph1      MPI_Graph_create, the MPI-1 graph of the whole stencil
 *                   (with either, MPI_Cart_map / MPI_Graph_map first: stderr says whether each
 *                   rank got from it the rank it gets from the constructor)
 *     --persistent  persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Startall) instead of
 *                   MPI_Isend / MPI_Irecv
 *     --neighbor    neighbourhood collectives on the new communicator instead: MPI_Neighbor_alltoall,
 *                   MPI_Ineighbor_alltoallv and MPI_Neighbor_alltoallw in turn, and at the end each
 *                   rank's rank to its neighbours by MPI_Ineighbor_allgather (checked)
 * Exit status 1 when the topology seen on the new communicator is not the stencil's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 6            /* cells per process along each dimension */
#define MODULUS 1000003
#define CELL(u, i, j, k) (u)[((i) * (N + 2) + (j)) * (N + 2) + (k)]

static int dims[3];

static void coords_of(int rank, int c[3]) {
  c[0] = rank % dims[0];
  c[1] = rank / dims[0] % dims[1];
  c[2] = rank / (dims[0] * dims[1]);
}

static int rank_of(const int c[3]) { return c[0] + dims[0] * (c[1] + dims[1] * c[2]); }

/* The existing neighbours of @p rank in the order -x, +x, -y, +y, -z, +z; dir[i] = 2d or 2d+1. */
static int stencil(int rank, int nb[6], int dir[6]) {
  int c[3], n = 0;
  coords_of(rank, c);
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      int m[3] = {c[0], c[1], c[2]};
      m[d] += side ? 1 : -1;
      if (m[d] < 0 || m[d] >= dims[d]) continue;
      nb[n] = rank_of(m);
      dir[n++] = 2 * d + side;
    }
  return n;
}

/* The neighbour of @p rank in direction @p dir, MPI_PROC_NULL at the grid's edge. */
static int neighbour_towards(int rank, int dir) {
  int c[3];
  coords_of(rank, c);
  c[dir / 2] += dir % 2 ? 1 : -1;
  return c[dir / 2] < 0 || c[dir / 2] >= dims[dir / 2] ? MPI_PROC_NULL : rank_of(c);
}

/* Direction from @p rank to its stencil neighbour @p other, -1 if it is none. */
static int direction(int rank, int other) {
  int nb[6], dir[6], n = stencil(rank, nb, dir);
  for (int i = 0; i < n; ++i)
    if (nb[i] == other) return dir[i];
  return -1;
}

static int compare_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The graph MPI reports for this rank must be its stencil: the same lists (sorted when
   made with MPI_Dist_graph_create, which keeps no order), weight N*N*8 per edge. */
static int graph_is_stencil(MPI_Comm graph, int rank, int general, int weighted) {
  int expected[6], dir[6], n = stencil(rank, expected, dir);
  int in, out, is_weighted, src[6], dst[6], sw[6], dw[6];
  MPI_Dist_graph_neighbors_count(graph, &in, &out, &is_weighted);
  if (in != n || out != n || is_weighted != weighted) {
    fprintf(stderr, "rank %d: %d sources, %d destinations, weighted %d; expected %d, %d, %d\n", rank, in, out,
            is_weighted, n, n, weighted);
    return 0;
  }
  MPI_Dist_graph_neighbors(graph, in, src, sw, out, dst, dw);
  if (general) {
    qsort(expected, (size_t)n, sizeof(int), compare_ints);
    qsort(src, (size_t)n, sizeof(int), compare_ints);
    qsort(dst, (size_t)n, sizeof(int), compare_ints);
  }
  for (int i = 0; i < n; ++i) {
    if (src[i] != expected[i] || dst[i] != expected[i] || (weighted && (sw[i] != N * N * 8 || dw[i] != N * N * 8))) {
      fprintf(stderr, "rank %d: neighbour %d is %d/%d (weights %d/%d), expected %d\n", rank, i, src[i], dst[i], sw[i],
              dw[i], expected[i]);
      return 0;
    }
  }
  return 1;
}

enum kind { ADJACENT, GENERAL, CART, GRAPH1 };

/* On a Cartesian or MPI-1 graph communicator: MPI_Cart_shift along each dimension, or
   MPI_Graph_neighbors, must give the stencil's neighbours. */
static int topology_is_stencil(MPI_Comm comm, int rank, enum kind kind) {
  int expected[6], dir[6], n = stencil(rank, expected, dir), found[6], count = 0;
  if (kind == CART) {
    for (int d = 0; d < 3; ++d) { /* Cartesian dimension 2 - d is the grid's d */
      int lower, upper;
      MPI_Cart_shift(comm, 2 - d, 1, &lower, &upper);
      if (lower != MPI_PROC_NULL) found[count++] = lower;
      if (upper != MPI_PROC_NULL) found[count++] = upper;
    }
  } else {
    MPI_Graph_neighbors_count(comm, rank, &count);
    if (count == n) MPI_Graph_neighbors(comm, rank, 6, found);
  }
  if (count != n) {
    fprintf(stderr, "rank %d: %d neighbours, expected %d\n", rank, count, n);
    return 0;
  }
  for (int i = 0; i < n; ++i)
    if (found[i] != expected[i]) {
      fprintf(stderr, "rank %d: neighbour %d is %d, expected %d\n", rank, i, found[i], expected[i]);
      return 0;
    }
  return 1;
}

/* The topology communicator. For a Cartesian grid or MPI-1 graph, *@p mapped is what MPI_Cart_map or
   MPI_Graph_map said of this rank first (the rank reorder = 1 should give it); -1 otherwise. */
static MPI_Comm make_graph(enum kind kind, int weighted, int *mapped) {
  int rank, size, nb[6], dir[6], weights[6];
  *mapped = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 6; ++i) weights[i] = N * N * 8;
  MPI_Comm graph;
  if (kind == CART) {
    int cart_dims[3] = {dims[2], dims[1], dims[0]}, periods[3] = {0, 0, 0};
    MPI_Cart_map(MPI_COMM_WORLD, 3, cart_dims, periods, mapped);
    MPI_Cart_create(MPI_COMM_WORLD, 3, cart_dims, periods, 1, &graph);
  } else if (kind == GRAPH1) { /* every rank states the whole graph */
    int *index = malloc((size_t)size * sizeof *index), *edges = malloc((size_t)size * 6 * sizeof *edges), total = 0;
    for (int r = 0; r < size; ++r) {
      total += stencil(r, edges + total, dir);
      index[r] = total;
    }
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, mapped);
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &graph);
    free(index);
    free(edges);
  } else if (kind == GENERAL) { /* this rank states the out-edges of the next rank */
    int vertex = (rank + 1) % size, degree = stencil(vertex, nb, dir);
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &vertex, &degree, nb, weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL,
                          1, &graph);
  } else {
    int n = stencil(rank, nb, dir);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nb, weighted ? weights : MPI_UNWEIGHTED, n, nb,
                                   weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &graph);
  }
  return graph;
}

/* Face of the block towards direction @p dir (interior cells next to it), or into the ghost layer. */
static void face(long long *u, int dir, long long *buf, int to_ghost) {
  int d = dir / 2, layer = dir % 2 ? (to_ghost ? N + 1 : N) : (to_ghost ? 0 : 1), at = 0;
  for (int a = 1; a <= N; ++a)
    for (int b = 1; b <= N; ++b) {
      int i = d == 0 ? layer : a, j = d == 1 ? layer : (d == 0 ? a : b), k = d == 2 ? layer : b;
      if (to_ghost)
        CELL(u, i, j, k) = buf[at++];
      else
        buf[at++] = CELL(u, i, j, k);
    }
}

/* The neighbours of @p rank in the order of the neighbourhood collectives' blocks: a distributed
   graph's sources and destinations, an MPI-1 graph's neighbours (checked to be the stencil), along
   each Cartesian dimension the neighbour at -1, then at +1 (MPI_PROC_NULL at the grid's edge;
   Cartesian dimension 2 - d is the grid's d). */
static void neighbours(MPI_Comm graph, enum kind kind, int rank, int src[6], int *in, int dst[6], int *out) {
  int weighted, w[6], dir[6];
  if (kind == CART) {
    *in = *out = 6;
    for (int j = 0; j < 6; ++j) src[j] = dst[j] = neighbour_towards(rank, 2 * (2 - j / 2) + j % 2);
  } else if (kind == GRAPH1) {
    *in = *out = stencil(rank, src, dir);
    memcpy(dst, src, 6 * sizeof *src);
  } else {
    MPI_Dist_graph_neighbors_count(graph, in, out, &weighted);
    MPI_Dist_graph_neighbors(graph, *in, src, w, *out, dst, w);
  }
}

/* One exchange by a neighbourhood collective: MPI_Neighbor_alltoall, MPI_Ineighbor_alltoallv or
   MPI_Neighbor_alltoallw, as @p call is 0, 1 or 2. */
static void exchange_by_collective(MPI_Comm graph, enum kind kind, int call, int rank, long long *u,
                                   long long *bufs) {
  int in, out, src[6], dst[6], counts[6], displs[6];
  MPI_Aint byte_displs[6];
  MPI_Datatype types[6];
  neighbours(graph, kind, rank, src, &in, dst, &out);
  long long *sent = bufs + 6 * N * N, *received = bufs;
  for (int j = 0; j < out; ++j)
    if (dst[j] != MPI_PROC_NULL) face(u, direction(rank, dst[j]), sent + (size_t)j * N * N, 0);
  for (int j = 0; j < 6; ++j) {
    counts[j] = N * N, displs[j] = j * N * N, types[j] = MPI_LONG_LONG;
    byte_displs[j] = (MPI_Aint)j * N * N * (MPI_Aint)sizeof(long long);
  }
  if (call == 0) {
    MPI_Neighbor_alltoall(sent, N * N, MPI_LONG_LONG, received, N * N, MPI_LONG_LONG, graph);
  } else if (call == 1) {
    MPI_Request request;
    MPI_Ineighbor_alltoallv(sent, counts, displs, MPI_LONG_LONG, received, counts, displs, MPI_LONG_LONG, graph,
                            &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_alltoallw(sent, counts, byte_displs, types, received, counts, byte_displs, types, graph);
  }
  for (int j = 0; j < in; ++j)
    if (src[j] != MPI_PROC_NULL) face(u, direction(rank, src[j]), received + (size_t)j * N * N, 1);
}

/* Each rank's rank to its neighbours by MPI_Ineighbor_allgather: 1 when every one received is
   the neighbour's. */
static int allgather_ranks(MPI_Comm graph, enum kind kind, int rank) {
  int in, out, src[6], dst[6], got[6], ok = 1;
  neighbours(graph, kind, rank, src, &in, dst, &out);
  MPI_Request request;
  MPI_Ineighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, graph, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int j = 0; j < in; ++j)
    if (src[j] != MPI_PROC_NULL && got[j] != src[j]) {
      fprintf(stderr, "rank %d: block %d of MPI_Ineighbor_allgather is %d, expected %d\n", rank, j, got[j], src[j]);
      ok = 0;
    }
  return ok;
}

/* With @p persistent, the requests are made once (MPI_Recv_init, MPI_Send_init) and started
   every iteration; freed when @p u is NULL. */
static void exchange(MPI_Comm graph, enum kind kind, int persistent, int rank, long long *u, long long *bufs) {
  static MPI_Request kept[12];
  static int made = 0;
  int in, out, src[6], dst[6];
  neighbours(graph, kind == CART ? GRAPH1 : kind, rank, src, &in, dst, &out); /* the stencil's order */
  if (!u) {
    for (int i = 0; i < made; ++i) MPI_Request_free(&kept[i]);
    return;
  }
  MPI_Request req[12];
  for (int i = 0; i < in; ++i) { /* the neighbour in direction dir sends the face facing us */
    int dir = direction(rank, src[i]);
    if (!persistent)
      MPI_Irecv(bufs + (size_t)dir * N * N, N * N, MPI_LONG_LONG, src[i], dir ^ 1, graph, &req[i]);
    else if (!made)
      MPI_Recv_init(bufs + (size_t)dir * N * N, N * N, MPI_LONG_LONG, src[i], dir ^ 1, graph, &kept[i]);
  }
  for (int i = 0; i < out; ++i) {
    int dir = direction(rank, dst[i]);
    face(u, dir, bufs + (size_t)(6 + dir) * N * N, 0);
    if (!persistent)
      MPI_Isend(bufs + (size_t)(6 + dir) * N * N, N * N, MPI_LONG_LONG, dst[i], dir, graph, &req[in + i]);
    else if (!made)
      MPI_Send_init(bufs + (size_t)(6 + dir) * N * N, N * N, MPI_LONG_LONG, dst[i], dir, graph, &kept[in + i]);
  }
  if (persistent) {
    made = in + out;
    memcpy(req, kept, sizeof kept);
    MPI_Startall(in + out, req);
  }
  MPI_Status statuses[12]; /* not MPI_STATUSES_IGNORE: GCC takes that for a zero-sized array */
  MPI_Waitall(in + out, req, statuses);
  for (int i = 0; i < in; ++i) {
    int dir = direction(rank, src[i]);
    face(u, dir, bufs + (size_t)dir * N * N, 1);
  }
}

static long long step(long long *u, long long *next) {
  long long sum = 0;
  for (int i = 1; i <= N; ++i)
    for (int j = 1; j <= N; ++j)
      for (int k = 1; k <= N; ++k) {
        long long v = 2 * CELL(u, i, j, k) + CELL(u, i - 1, j, k) + CELL(u, i + 1, j, k) + CELL(u, i, j - 1, k) +
                      CELL(u, i, j + 1, k) + CELL(u, i, j, k - 1) + CELL(u, i, j, k + 1) + 1;
        CELL(next, i, j, k) = v % MODULUS;
        sum += CELL(next, i, j, k);
      }
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int world_rank, size, weighted = 1, iterations = 5, persistent = 0, neighbor = 0;
  enum kind kind = ADJACENT;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (world_rank == 0)
      fprintf(stderr, "usage: %s PX PY PZ [--general] [--unweighted] [--cart] [--graph1] [--persistent | --neighbor] "
                      "[--iterations N]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  for (int d = 0; d < 3; ++d) dims[d] = atoi(argv[1 + d]);
  for (int i = 4; i < argc; ++i) {
    if (!strcmp(argv[i], "--general")) kind = GENERAL;
    if (!strcmp(argv[i], "--cart")) kind = CART;
    if (!strcmp(argv[i], "--graph1")) kind = GRAPH1;
    if (!strcmp(argv[i], "--persistent")) persistent = 1;
    if (!strcmp(argv[i], "--neighbor")) neighbor = 1;
    if (!strcmp(argv[i], "--unweighted")) weighted = 0;
    if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
  }
  /* A Cartesian grid may be smaller than the job: the ranks left out get MPI_COMM_NULL. */
  if (kind == CART ? dims[0] * dims[1] * dims[2] > size : dims[0] * dims[1] * dims[2] != size) {
    if (world_rank == 0) fprintf(stderr, "%dx%dx%d is not %d ranks\n", dims[0], dims[1], dims[2], size);
    MPI_Finalize();
    return 2;
  }

  int mapped, rank = MPI_UNDEFINED, renumbered, ok, agrees;
  MPI_Comm graph = make_graph(kind, weighted, &mapped);
  if (graph != MPI_COMM_NULL) MPI_Comm_rank(graph, &rank);
  /* Whether MPI_Cart_map / MPI_Graph_map gave each rank the rank reorder = 1 gives it, and
     MPI_UNDEFINED to the ranks left out (Canopy's do; MPI's own need not). */
  int agreed = mapped == -1 || mapped == rank;
  MPI_Allreduce(&agreed, &agrees, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (world_rank == 0 && mapped != -1) fprintf(stderr, "map check: %s\n", agrees ? "ok" : "differs");
  if (graph == MPI_COMM_NULL) {
    MPI_Finalize();
    return 0;
  }
  int moved = rank != world_rank;
  int good = kind == CART || kind == GRAPH1 ? topology_is_stencil(graph, rank, kind)
                                            : graph_is_stencil(graph, rank, kind == GENERAL, weighted);
  MPI_Allreduce(&moved, &renumbered, 1, MPI_INT, MPI_SUM, graph);
  MPI_Allreduce(&good, &ok, 1, MPI_INT, MPI_MIN, graph);
  if (rank == 0) fprintf(stderr, "renumbered ranks: %d\ngraph check: %s\n", renumbered, ok ? "ok" : "FAILED");

  size_t cells = (size_t)(N + 2) * (N + 2) * (N + 2);
  long long *u = calloc(cells, sizeof *u), *next = calloc(cells, sizeof *next), *bufs = calloc(12 * N * N, sizeof *bufs);
  int c[3];
  coords_of(rank, c);
  for (int i = 1; i <= N; ++i)
    for (int j = 1; j <= N; ++j)
      for (int k = 1; k <= N; ++k)
        CELL(u, i, j, k) = ((c[0] * N + i) * 31 + (c[1] * N + j) * 17 + (c[2] * N + k) * 7) % 1000;
  if (rank == 0) printf("grid %dx%dx%d, %d^3 cells per rank, %d iterations\n", dims[0], dims[1], dims[2], N, iterations);
  for (int it = 0; it < iterations; ++it) {
    if (neighbor)
      exchange_by_collective(graph, kind, it % 3, rank, u, bufs);
    else
      exchange(graph, kind, persistent, rank, u, bufs);
    long long local = step(u, next), total = 0;
    long long *t = u;
    u = next;
    next = t;
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, graph);
    if (rank == 0) printf("iteration %d checksum %lld\n", it, total);
  }
  /* One value that depends on the position of every cell: where each block sits matters. */
  long long local = 0, total = 0;
  for (int i = 1; i <= N; ++i) local = (local * 131 + CELL(u, i, i, i)) % MODULUS;
  local = local * (rank_of(c) + 1);
  MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, graph);
  if (rank == 0) printf("position checksum %lld\n", total);
  if (neighbor) {
    int mine = allgather_ranks(graph, kind, rank), all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, graph);
    ok = ok && all;
  }
  exchange(graph, kind, persistent, rank, NULL, bufs); /* frees persistent requests */
  free(u);
  free(next);
  free(bufs);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return ok ? 0 : 1;
}
