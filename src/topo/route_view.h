// A route as names and numbers, independent of the Topology it came from: what
// `canopy route` prints and what canopyd answers in JSON mode. A route found
// locally and one answered by the service both become a RouteView, so there is
// one way to print a route and one JSON shape for it (docs/cli.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topo/routes.h"

namespace canopy::topo {

struct RouteHopView {
  std::string name;
  std::string type;      // "host", "switch" or "router"
  uint64_t guid = 0;     // node GUID
  int in_port = 0;       // 0 at the source host
  int out_port = 0;      // 0 at the destination host
  double out_gbps = 0;   // rate of the link leaving by out_port (0 at the destination)
  std::string out_rate;  // that link's rate as "4xQDR" ("" at the destination)
};

struct RouteView {
  std::string source;  // the topology source that answered
  std::string method;  // "lft", "shortest-path" or "dimension-order"
  double min_gbps = 0;
  std::vector<RouteHopView> path;  // source host ... destination host, never empty

  int links() const { return path.empty() ? 0 : static_cast<int>(path.size()) - 1; }
};

RouteView describe_route(const Topology &topo, const Route &route);

/** {"source", "method", "from", "to", "links", "min_gbps", "path": [{"name", "type",
    "guid", "in_port", "out_port", "out_gbps", "out_rate"}, ...]} */
nlohmann::json route_view_json(const RouteView &route);

/** The inverse of route_view_json, strict: a missing or mistyped field, an empty
    path, or "links"/"from"/"to" that disagree with the path throw Error(PARSE)
    naming the field. Extra fields are ignored. */
RouteView route_view_from_json(const nlohmann::json &object);

}  // namespace canopy::topo
