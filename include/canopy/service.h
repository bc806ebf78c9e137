/**
 * @file canopy/service.h  Asking the topology service (canopyd) instead of loading a fabric.
 *
 * One rank can ask a running canopyd for the matrices of the job's hosts at MPI
 * initialisation, instead of every rank loading the fabric dump. The call never
 * hangs: looking up the server's name, connecting, and the answer are each
 * bounded by the parameter service_client_timeout_s (default 10 seconds;
 * CANOPY_SERVICE_CLIENT_TIMEOUT_S). See docs/protocol.md for the protocol.
 */
#ifndef CANOPY_SERVICE_H
#define CANOPY_SERVICE_H

#include <canopy/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Hop, rate and delay matrices for the @p n hosts in @p hosts, answered by the
 * topology service at @p server ("HOST:PORT", "[IPV6]:PORT"). The layout and
 * meaning are those of canopy_topology_matrices(): row-major n x n, rows and
 * columns in the order of @p hosts; any output may be NULL.
 *
 * @p server NULL or "" means the parameter topo_server (environment
 * CANOPY_TOPO_SERVER); CANOPY_ERR_INVALID_ARG if neither names a server, for
 * a malformed address, a negative @p n, and a host name the protocol cannot
 * carry (empty, or with spaces or control characters).
 * Host names are those the service knows: names, node descriptions without
 * spaces, or GUIDs as `0x...`. With @p n = 0 nothing is asked.
 *
 * Statuses: CANOPY_ERR_IO when the service cannot be reached, does not answer
 * in time ("cannot connect to 127.0.0.1:7470: Connection refused") or answers
 * with an error this client does not know,
 * CANOPY_ERR_NOT_FOUND for a host the service does not know, CANOPY_ERR_ROUTE
 * for broken forwarding tables, CANOPY_ERR_PARSE for a malformed answer;
 * canopy_last_error() has the detail. The outputs are written only on success.
 * Thread-safe: each call uses its own connection.
 */
CANOPY_API canopy_status_t canopy_service_matrices(const char *server, const char *const *hosts, int n, int *hops,
                                                   double *gbps, double *delay_us);

#ifdef __cplusplus
}
#endif
#endif
