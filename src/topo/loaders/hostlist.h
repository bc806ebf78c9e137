// Hostlist entry points besides loaders.h's expand_hostlist(): the size of an
// expansion without expanding it (a loader that accepts at most a few hundred
// names refuses "n[1-999999]" without building a million strings), and an
// explicit name limit (the fuzz target keeps expansions small, because a legal
// million-name expansion takes seconds under the sanitizers).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::topo::detail {

constexpr uint64_t kMaxHostlistNames = 1000000;

/** How many names @p expression expands to; throws like expand_hostlist. */
uint64_t hostlist_size(std::string_view expression);

/** expand_hostlist, refusing expansions over @p max_names names. */
std::vector<std::string> expand_hostlist_limited(std::string_view expression, uint64_t max_names);

}  // namespace canopy::topo::detail
