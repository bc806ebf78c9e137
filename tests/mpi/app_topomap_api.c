/* canopy_topomap* called directly (include/canopy/topomap.h), linked with libcanopy-mpi.so.
 *
 *   app_topomap_api PX PY PZ HOSTMAP RB_EXPECTATION
 *
 * Builds the PX x PY x PZ stencil (as app_halo3d.c, weights = face bytes) with reorder = 0,
 * asks canopy_topomap, canopy_topomap_tree and canopy_topomap_bipartition for new ranks (and
 * canopy_topomap again for the same grid as a Cartesian communicator) and
 * checks on every rank: the same status everywhere, new ranks forming a permutation, and
 * (for the tree mappings) fewer stencil edges between hosts than the current placement,
 * with the hosts read from HOSTMAP (one host name per line, world rank order).
 * RB_EXPECTATION: "ok" (map_fabric has coordinates, some rank must move) or "error" (it
 * has none: CANOPY_ERR_INVALID_ARG, everyone keeps its rank). Also: MPI_COMM_WORLD (no
 * graph), a NULL newrank (on every rank, and on rank 1 alone: every rank fails, none takes
 * a new rank rank 1 never learns) and calls before MPI_Init and after MPI_Finalize (they
 * aborted the job) give CANOPY_ERR_INVALID_ARG. Exit status 1 on any failure. */
#include <canopy/topomap.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dims[3], rank, size, failures;
static char hosts[64][64];

static void check(int condition, const char *what) {
  int all = 0, mine = condition ? 1 : 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s\n", all ? "ok" : "FAILED", what);
  failures += !all;
}

static int rank_of(int x, int y, int z) { return x + dims[0] * (y + dims[1] * z); }

/* Stencil neighbours of @p r; returns their number. */
static int stencil(int r, int nb[6]) {
  int c[3] = {r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1])}, n = 0;
  for (int d = 0; d < 3; ++d)
    for (int s = -1; s <= 1; s += 2) {
      int m[3] = {c[0], c[1], c[2]};
      m[d] += s;
      if (m[d] >= 0 && m[d] < dims[d]) nb[n++] = rank_of(m[0], m[1], m[2]);
    }
  return n;
}

/* Stencil edges whose two vertices sit on different hosts when vertex v is played by the
   process holding world rank owner[v]. */
static int edges_between_hosts(const int *owner) {
  int count = 0, nb[6];
  for (int v = 0; v < size; ++v)
    for (int i = 0, n = stencil(v, nb); i < n; ++i) count += nb[i] > v && strcmp(hosts[owner[v]], hosts[owner[nb[i]]]);
  return count;
}

static void read_hosts(const char *path) {
  FILE *f = fopen(path, "r");
  for (int r = 0; f && r < size && r < 64; ++r)
    if (fscanf(f, "%63s", hosts[r]) != 1) break;
  if (f) fclose(f);
}

/* Runs one entry point and checks what every mapping must give. */
static void try_mapping(canopy_status_t (*topomap)(MPI_Comm, int *), MPI_Comm graph, const char *name,
                        int expect_success, int expect_fewer_cut_edges) {
  int newrank = -1, status = topomap(graph, &newrank), statuses[2] = {status, -status}, all[2];
  MPI_Allreduce(statuses, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  char what[256];
  snprintf(what, sizeof what, "%s: the same status on every rank (%s)", name,
           canopy_status_string((canopy_status_t)status));
  check(all[0] == -all[1], what);
  snprintf(what, sizeof what, "%s: %s", name, expect_success ? "succeeds" : "fails with CANOPY_ERR_INVALID_ARG");
  check(expect_success ? status == CANOPY_SUCCESS : status == CANOPY_ERR_INVALID_ARG, what);
  if (status != CANOPY_SUCCESS && rank == 0) printf("    canopy_last_error: %s\n", canopy_last_error());
  if (status != CANOPY_SUCCESS) {
    snprintf(what, sizeof what, "%s: failure leaves every rank its rank", name);
    check(newrank == rank, what);
    return;
  }
  int owner[64], seen[64] = {0}, valid = newrank >= 0 && newrank < size, moved = 0;
  int *newranks = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&newrank, 1, MPI_INT, newranks, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    if (newranks[r] < 0 || newranks[r] >= size || seen[newranks[r]]++) valid = 0;
    if (valid) owner[newranks[r]] = r;
    moved += newranks[r] != r;
  }
  free(newranks);
  snprintf(what, sizeof what, "%s: new ranks are a permutation (%d ranks renumbered)", name, moved);
  check(valid, what);
  if (!valid) return;
  int identity[64];
  for (int r = 0; r < size; ++r) identity[r] = r;
  int before = edges_between_hosts(identity), after = edges_between_hosts(owner);
  snprintf(what, sizeof what, "%s: stencil edges between hosts %d -> %d", name, before, after);
  check(expect_fewer_cut_edges ? after < before : moved > 0, what);
}

int main(int argc, char **argv) {
  int early = -1;
  canopy_status_t before_init = canopy_topomap(MPI_COMM_WORLD, &early);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 6 || size > 64) {
    if (rank == 0) fprintf(stderr, "usage: %s PX PY PZ HOSTMAP ok|error (at most 64 ranks)\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  for (int d = 0; d < 3; ++d) dims[d] = atoi(argv[1 + d]);
  read_hosts(argv[4]);
  int rb_ok = !strcmp(argv[5], "ok");

  int nb[6], weights[6], n = stencil(rank, nb);
  for (int i = 0; i < 6; ++i) weights[i] = 6 * 6 * 8;
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nb, weights, n, nb, weights, MPI_INFO_NULL, 0, &graph);
  int graph_rank;
  MPI_Comm_rank(graph, &graph_rank);
  check(graph_rank == rank, "reorder = 0 keeps the ranks");

  try_mapping(canopy_topomap, graph, "canopy_topomap", 1, !rb_ok);
  try_mapping(canopy_topomap_tree, graph, "canopy_topomap_tree", 1, !rb_ok);
  try_mapping(canopy_topomap_bipartition, graph, "canopy_topomap_bipartition", rb_ok, 0);
  /* The same grid as a Cartesian communicator (dims PZ x PY x PX: x varies fastest, as here). */
  int cart_dims[3] = {dims[2], dims[1], dims[0]}, periods[3] = {0, 0, 0};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, cart_dims, periods, 0, &cart);
  try_mapping(canopy_topomap, cart, "canopy_topomap on a Cartesian communicator", 1, !rb_ok);
  MPI_Comm_free(&cart);

  int newrank = -1;
  canopy_status_t status = canopy_topomap(MPI_COMM_WORLD, &newrank);
  check(status == CANOPY_ERR_INVALID_ARG && newrank == rank, "MPI_COMM_WORLD (no graph): CANOPY_ERR_INVALID_ARG");
  status = canopy_topomap(graph, NULL);
  check(status == CANOPY_ERR_INVALID_ARG, "newrank NULL: CANOPY_ERR_INVALID_ARG");
  newrank = -1;
  status = canopy_topomap(graph, rank == 1 % size ? NULL : &newrank);
  check(status == CANOPY_ERR_INVALID_ARG && (rank == 1 % size || newrank == rank),
        "newrank NULL on rank 1 alone: CANOPY_ERR_INVALID_ARG on every rank, ranks kept");
  check(before_init == CANOPY_ERR_INVALID_ARG && early == MPI_UNDEFINED,
        "before MPI_Init: CANOPY_ERR_INVALID_ARG, newrank MPI_UNDEFINED");

  MPI_Comm_free(&graph);
  int all_failures = failures;  /* check() counts what failed on any rank */
  MPI_Finalize();
  canopy_status_t after_finalize = canopy_topomap(MPI_COMM_WORLD, &newrank);
  if (after_finalize != CANOPY_ERR_INVALID_ARG) {
    printf("FAILED: after MPI_Finalize: %s, not CANOPY_ERR_INVALID_ARG\n", canopy_status_string(after_finalize));
    ++all_failures;
  } else if (rank == 0) {
    printf("ok: after MPI_Finalize: CANOPY_ERR_INVALID_ARG (%s)\n", canopy_last_error());
  }
  if (rank == 0) printf("%d failed\n", all_failures);
  return all_failures ? 1 : 0;
}
