// The torus loader with an explicit router limit. load_torus() allows
// kMaxTorusRouters; the fuzz target passes a small limit because a legal grid of
// a million routers takes about a minute and 2 GB under ASan (libFuzzer's
// memory limit), which says nothing about the parser that a small grid does not.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "topo/topology.h"

namespace canopy::topo::detail {

constexpr uint64_t kMaxTorusRouters = 1048576;

Topology load_torus_limited(std::string_view text, const std::string &file, uint64_t max_routers);

}  // namespace canopy::topo::detail
