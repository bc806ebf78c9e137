/* canopy_service_matrices as a C program sees it, linked against libcanopy.so
   only, against a running canopyd serving DUMP_DIR: the matrices must be exactly
   those canopy_topology_matrices computes from the same dump; errors come back
   as statuses, in bounded time. Started by the service tests, which run the
   servers. Usage: test_capi_service DUMP_DIR SERVER REFUSED_SERVER SILENT_SERVER */
#define _POSIX_C_SOURCE 200112L
#include <canopy.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MAX_HOSTS 16

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Every host of the dump, in reverse order so that the order of the list matters. */
static int host_list(canopy_topology_t topo, const char **hosts) {
  int n = 0;
  CHECK(canopy_topology_num_hosts(topo, &n) == CANOPY_SUCCESS && n > 0 && n <= MAX_HOSTS);
  for (int i = 0; i < n; ++i) CHECK(canopy_topology_host_name(topo, n - 1 - i, &hosts[i]) == CANOPY_SUCCESS);
  return n;
}

static void check_same_matrices(canopy_topology_t topo, const char *server, const char **hosts, int n) {
  int hops_local[MAX_HOSTS * MAX_HOSTS], hops_remote[MAX_HOSTS * MAX_HOSTS];
  double gbps_local[MAX_HOSTS * MAX_HOSTS], gbps_remote[MAX_HOSTS * MAX_HOSTS];
  double delay_local[MAX_HOSTS * MAX_HOSTS], delay_remote[MAX_HOSTS * MAX_HOSTS];
  CHECK(canopy_topology_matrices(topo, hosts, n, hops_local, gbps_local, delay_local) == CANOPY_SUCCESS);
  CHECK(canopy_service_matrices(server, hosts, n, hops_remote, gbps_remote, delay_remote) == CANOPY_SUCCESS);
  for (int k = 0; k < n * n; ++k) {
    CHECK(hops_local[k] == hops_remote[k]);
    CHECK(gbps_local[k] == gbps_remote[k]);      /* exactly: the service must not round */
    CHECK(delay_local[k] == delay_remote[k]);
  }
  /* Any output may be NULL. */
  CHECK(canopy_service_matrices(server, hosts, n, NULL, NULL, delay_remote) == CANOPY_SUCCESS);
  CHECK(memcmp(delay_local, delay_remote, sizeof(double) * (size_t)(n * n)) == 0);
}

static void check_errors(const char *server, const char *refused, const char *silent) {
  const char *unknown[2] = {"H1", "nosuchhost"};
  int hops[4] = {-7, -7, -7, -7};
  CHECK(canopy_service_matrices(server, unknown, 2, hops, NULL, NULL) == CANOPY_ERR_NOT_FOUND);
  CHECK(strstr(canopy_last_error(), "nosuchhost") != NULL);
  CHECK(hops[0] == -7); /* outputs untouched on failure */

  const char *two[2] = {"H1", "H2"};
  CHECK(canopy_service_matrices(refused, two, 2, hops, NULL, NULL) == CANOPY_ERR_IO);
  CHECK(strstr(canopy_last_error(), "Connection refused") != NULL);

  setenv("CANOPY_SERVICE_CLIENT_TIMEOUT_S", "1", 1);
  double start = seconds_now();
  CHECK(canopy_service_matrices(silent, two, 2, hops, NULL, NULL) == CANOPY_ERR_IO);
  double waited = seconds_now() - start;
  CHECK(waited >= 0.9 && waited < 5.0);
  CHECK(strstr(canopy_last_error(), "no answer") != NULL);
  unsetenv("CANOPY_SERVICE_CLIENT_TIMEOUT_S");

  unsetenv("CANOPY_TOPO_SERVER");
  CHECK(canopy_service_matrices(NULL, two, 2, hops, NULL, NULL) == CANOPY_ERR_INVALID_ARG);
  CHECK(strstr(canopy_last_error(), "CANOPY_TOPO_SERVER") != NULL);
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  canopy_topology_t topo = NULL;
  CHECK(canopy_topology_load(argv[1], &topo) == CANOPY_SUCCESS);
  if (!topo) return 1;
  const char *hosts[MAX_HOSTS];
  int n = host_list(topo, hosts);

  check_same_matrices(topo, argv[2], hosts, n);
  setenv("CANOPY_TOPO_SERVER", argv[2], 1); /* NULL and "" mean topo_server */
  check_same_matrices(topo, NULL, hosts, n);
  check_same_matrices(topo, "", hosts, 1);
  check_errors(argv[2], argv[3], argv[4]);

  canopy_topology_free(topo);
  if (failures == 0) printf("test_capi_service: all checks passed\n");
  return failures ? 1 : 0;
}
