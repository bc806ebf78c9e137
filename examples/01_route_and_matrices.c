/* Example 1: load a topology and ask it what an MPI job needs at start-up.
 *
 *   01_route_and_matrices SOURCE HOST_A HOST_B [HOST ...]
 *
 * SOURCE is any topology source (a dump directory written by canopy-collect,
 * an ibnetdiscover file, a Slurm topology.conf, ...). Prints the route between
 * HOST_A and HOST_B the way the fabric forwards it, then the hop and delay
 * matrices for all the hosts given. Build: cc 01_route_and_matrices.c $(pkg-config --cflags --libs canopy)
 */
#include <canopy.h>

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, canopy_status_t status) {
  fprintf(stderr, "%s: %s: %s\n", what, canopy_status_string(status), canopy_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SOURCE HOST_A HOST_B [HOST ...]\n", argv[0]);
    return 2;
  }
  canopy_topology_t topo;
  canopy_status_t status = canopy_topology_load(argv[1], &topo);
  if (status != CANOPY_SUCCESS) return fail("load", status);

  /* Ask for the length first, then fetch the hops. */
  int n = 0;
  canopy_route_method_t method;
  status = canopy_topology_route(topo, argv[2], argv[3], NULL, 0, &n, &method);
  if (status != CANOPY_SUCCESS) return fail("route", status);
  canopy_hop_t *hops = malloc(sizeof *hops * (size_t)n);
  canopy_topology_route(topo, argv[2], argv[3], hops, n, &n, NULL);
  printf("route %s -> %s (%s):\n", argv[2], argv[3], method == CANOPY_ROUTE_LFT ? "forwarding tables" : "computed");
  for (int i = 0; i < n; ++i)
    printf("  0x%016llx  in %d  out %d  %g Gb/s\n", (unsigned long long)hops[i].guid, hops[i].in_port,
           hops[i].out_port, hops[i].out_gbps);
  free(hops);

  int k = argc - 2;
  int *hop_matrix = malloc(sizeof(int) * (size_t)(k * k));
  double *delay = malloc(sizeof(double) * (size_t)(k * k));
  status = canopy_topology_matrices(topo, (const char *const *)&argv[2], k, hop_matrix, NULL, delay);
  if (status != CANOPY_SUCCESS) return fail("matrices", status);
  printf("hops / delay (us):\n");
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) printf(" %2d/%6.2f", hop_matrix[i * k + j], delay[i * k + j]);
    printf("   %s\n", argv[2 + i]);
  }
  free(hop_matrix);
  free(delay);
  canopy_topology_free(topo);
  return 0;
}
