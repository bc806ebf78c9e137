// How `canopy route` prints its answers, whoever computed them: a route or a
// set of matrices found in a locally loaded topology and one answered by
// canopyd are converted to the same views first, so the two outputs (text and
// --json) are the same by construction.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topo/route_view.h"
#include "topo/views.h"

namespace canopy::cli {

/** The hierarchy tree over a host list, by names. */
struct TreeView {
  int level = 0;
  std::optional<std::pair<std::string, uint64_t>> leaf_switch;  // leaf groups: the switch's name and GUID
  std::vector<std::string> hosts;                               // every host of the subtree, in list order
  std::vector<TreeView> children;
};

struct MatrixReport {
  std::string source;
  std::vector<std::string> hosts;
  topo::HostMatrices matrices;
  // Only a local topology knows them: the service protocol has no request for
  // leaf groups or the hierarchy, so remote reports leave them out.
  std::optional<std::vector<std::vector<std::string>>> leaf_groups;
  std::optional<TreeView> hierarchy;
};

/** The service answer line (host GUID ... host), then one line per node; or the JSON object. */
void print_route(const topo::RouteView &route, bool json);
/** Host list, the three matrices, then the hierarchy when known; or the JSON object. */
void print_matrices(const MatrixReport &report, bool json);

}  // namespace canopy::cli
