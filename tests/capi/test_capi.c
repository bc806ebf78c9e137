/* The C API as a C program sees it, linked against libcanopy.so only: the
   headers compile as C, the library exports what they declare, statuses and
   messages come back instead of crashes. Usage: test_capi DUMP_DIR */
#include <canopy.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  canopy_topology_t topo = NULL;
  CHECK(canopy_topology_load(argv[1], &topo) == CANOPY_SUCCESS);
  if (!topo) return 1;

  int hosts = 0;
  CHECK(canopy_topology_num_hosts(topo, &hosts) == CANOPY_SUCCESS && hosts == 4);
  const char *name = NULL;
  CHECK(canopy_topology_host_name(topo, 0, &name) == CANOPY_SUCCESS && name && name[0] == 'H');
  CHECK(canopy_topology_host_name(topo, 4, &name) == CANOPY_ERR_INVALID_ARG);

  /* Size the route, then fetch it: H1 -> S1 (port 5) -> S2 -> H4, as ibtracert says. */
  int n = 0;
  canopy_route_method_t method = CANOPY_ROUTE_SHORTEST_PATH;
  CHECK(canopy_topology_route(topo, "H1", "H4", NULL, 0, &n, &method) == CANOPY_SUCCESS && n == 4);
  CHECK(method == CANOPY_ROUTE_LFT);
  canopy_hop_t hops[4];
  CHECK(canopy_topology_route(topo, "H1", "H4", hops, 4, &n, NULL) == CANOPY_SUCCESS);
  CHECK(hops[0].guid == 0x100000ULL && hops[0].in_port == 0 && hops[0].out_port == 1);
  CHECK(hops[1].guid == 0x200000ULL && hops[1].in_port == 1 && hops[1].out_port == 5);
  CHECK(hops[2].guid == 0x200001ULL && hops[2].in_port == 5 && hops[2].out_port == 2);
  CHECK(hops[3].guid == 0x100009ULL && hops[3].out_port == 0 && hops[3].out_gbps == 0.0);
  CHECK(hops[0].out_gbps == 8.0);

  const char *list[3] = {"H1", "H2", "H3"};
  int hop_matrix[9];
  double gbps[9], delay[9];
  CHECK(canopy_topology_matrices(topo, list, 3, hop_matrix, gbps, delay) == CANOPY_SUCCESS);
  CHECK(hop_matrix[0] == 0 && hop_matrix[1] == 2 && hop_matrix[2] == 3 && hop_matrix[3] == 2);
  CHECK(gbps[2] == 8.0 && delay[0] == 0.0 && delay[2] > delay[1]);
  CHECK(canopy_topology_matrices(topo, list, 3, NULL, NULL, delay) == CANOPY_SUCCESS);

  /* Errors come back as statuses with a message. */
  CHECK(canopy_topology_route(topo, "H1", "nosuch", NULL, 0, &n, NULL) == CANOPY_ERR_NOT_FOUND);
  CHECK(strstr(canopy_last_error(), "nosuch") != NULL);
  CHECK(canopy_topology_route(NULL, "H1", "H2", NULL, 0, &n, NULL) == CANOPY_ERR_INVALID_ARG);
  canopy_topology_t bad = NULL;
  CHECK(canopy_topology_load("/nonexistent/fabric", &bad) == CANOPY_ERR_IO && bad == NULL);
  CHECK(strcmp(canopy_status_string(CANOPY_ERR_PARSE), "parse error") == 0);
  char value[32];
  CHECK(canopy_config_get("topo_delay_bytes", value, sizeof value) == CANOPY_SUCCESS);
  CHECK(strlen(canopy_version()) > 0);

  canopy_topology_free(topo);
  canopy_topology_free(NULL);
  if (failures == 0) printf("test_capi: all checks passed\n");
  return failures ? 1 : 0;
}
