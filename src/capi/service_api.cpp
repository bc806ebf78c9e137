// The C API over the service client: what a rank calls at MPI initialisation.
// Everything runs under guard(), so no exception crosses into the caller, and
// the client's timeouts bound every wait.
#include "canopy/service.h"

#include <algorithm>

#include "common/error.h"
#include "common/params.h"
#include "service/client.h"

extern "C" canopy_status_t canopy_service_matrices(const char *server, const char *const *hosts, int n, int *hops,
                                                   double *gbps, double *delay_us) {
  return canopy::guard([&] {
    using canopy::Error;
    if (n < 0 || (n > 0 && !hosts)) throw Error(CANOPY_ERR_INVALID_ARG, "canopy_service_matrices: bad host list");
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
      if (!hosts[i]) throw Error(CANOPY_ERR_INVALID_ARG, "canopy_service_matrices: host " + std::to_string(i) + " is NULL");
      names.emplace_back(hosts[i]);
    }
    std::string address = server && *server ? server : canopy::param_string("topo_server");
    if (address.empty())
      throw Error(CANOPY_ERR_INVALID_ARG,
                  "canopy_service_matrices: no server given and topo_server (CANOPY_TOPO_SERVER) is not set");
    if (n == 0) return;
    canopy::service::ServiceClient client(address);
    canopy::topo::HostMatrices m = client.matrices(names);
    if (hops) std::copy(m.hops.begin(), m.hops.end(), hops);
    if (gbps) std::copy(m.gbps.begin(), m.gbps.end(), gbps);
    if (delay_us) std::copy(m.delay_us.begin(), m.delay_us.end(), delay_us);
  });
}
