#include "topo/route_view.h"

#include "common/error.h"
#include "common/text.h"

namespace canopy::topo {
namespace {

using nlohmann::json;

const char *node_type_name(const Node &node) {
  return node.is_host() ? "host" : node.is_switch() ? "switch" : "router";
}

Error bad_field(const std::string &field, const std::string &what) {
  return Error(CANOPY_ERR_PARSE, "route answer: \"" + field + "\" " + what);
}

// Typed access that names the field on failure: a service answer is untrusted input.
const json &field(const json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end()) throw bad_field(key, "is missing");
  return *it;
}

std::string string_field(const json &object, const char *key) {
  const json &value = field(object, key);
  if (!value.is_string()) throw bad_field(key, "is not a string");
  return value.get<std::string>();
}

int port_field(const json &object, const char *key) {
  const json &value = field(object, key);
  if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 255)
    throw bad_field(key, "is not a port number");
  return value.get<int>();
}

double rate_field(const json &object, const char *key) {
  const json &value = field(object, key);
  if (!value.is_number() || !(value.get<double>() >= 0)) throw bad_field(key, "is not a rate");
  return value.get<double>();
}

uint64_t guid_field(const json &object, const char *key) {
  std::string text = string_field(object, key);
  uint64_t guid = 0;
  if (!starts_with(text, "0x") || !parse_hex(std::string_view(text).substr(2), guid))
    throw bad_field(key, "is not a GUID: '" + printable(text) + "'");
  return guid;
}

RouteHopView hop_from_json(const json &hop) {
  if (!hop.is_object()) throw bad_field("path", "holds a non-object");
  RouteHopView view;
  view.name = string_field(hop, "name");
  view.type = string_field(hop, "type");
  if (view.type != "host" && view.type != "switch" && view.type != "router")
    throw bad_field("type", "is not host, switch or router: '" + printable(view.type) + "'");
  view.guid = guid_field(hop, "guid");
  view.in_port = port_field(hop, "in_port");
  view.out_port = port_field(hop, "out_port");
  view.out_gbps = rate_field(hop, "out_gbps");
  view.out_rate = string_field(hop, "out_rate");
  return view;
}

}  // namespace

RouteView describe_route(const Topology &topo, const Route &route) {
  RouteView view;
  view.source = topo.source();
  view.method = route_method_name(route.method);
  view.min_gbps = route_min_gbps(topo, route);
  for (const RouteHop &hop : route.hops) {
    const Node &n = topo.node(hop.node);
    view.path.push_back({n.name, node_type_name(n), n.guid, hop.in_port, hop.out_port, hop_gbps(topo, hop),
                         hop.out_port ? rate_string(n.ports[hop.out_port].rate) : ""});
  }
  return view;
}

json route_view_json(const RouteView &route) {
  json path = json::array();
  for (const RouteHopView &hop : route.path)
    path.push_back({{"name", hop.name}, {"type", hop.type}, {"guid", guid_string(hop.guid)},
                    {"in_port", hop.in_port}, {"out_port", hop.out_port}, {"out_gbps", hop.out_gbps},
                    {"out_rate", hop.out_rate}});
  return {{"source", route.source},
          {"method", route.method},
          {"from", route.path.empty() ? "" : route.path.front().name},
          {"to", route.path.empty() ? "" : route.path.back().name},
          {"links", route.links()},
          {"min_gbps", route.min_gbps},
          {"path", path}};
}

RouteView route_view_from_json(const json &object) {
  if (!object.is_object()) throw Error(CANOPY_ERR_PARSE, "route answer: not a JSON object");
  RouteView view;
  view.source = string_field(object, "source");
  view.method = string_field(object, "method");
  view.min_gbps = rate_field(object, "min_gbps");
  const json &path = field(object, "path");
  if (!path.is_array() || path.empty()) throw bad_field("path", "is not a non-empty array");
  for (const json &hop : path) view.path.push_back(hop_from_json(hop));
  const json &links = field(object, "links");
  if (!links.is_number_integer() || links.get<long long>() != view.links())
    throw bad_field("links", "does not match the " + std::to_string(view.path.size()) + " nodes of the path");
  if (string_field(object, "from") != view.path.front().name) throw bad_field("from", "is not the first node");
  if (string_field(object, "to") != view.path.back().name) throw bad_field("to", "is not the last node");
  return view;
}

}  // namespace canopy::topo
