// Helpers shared by the loaders of sources that describe a fabric without its
// hardware identities (Slurm topology.conf, torus coordinate files): made-up
// but deterministic GUIDs, the default link rate, name checks and quoting of
// input in messages.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "topo/link_rate.h"

namespace canopy::topo::synthetic {

// GUID = base + index. The top byte tells the kind at a glance in any output
// ('Q' Slurm switch, 'R' torus router, 'H' host) and no real IB vendor GUID
// (OUI in bytes 0-2 of an EUI-64) starts with these bytes followed by zeros.
constexpr uint64_t kSwitchGuidBase = 0x5100000000000000ULL;  // Slurm switches, in definition order
constexpr uint64_t kRouterGuidBase = 0x5200000000000000ULL;  // torus routers, by linear position
constexpr uint64_t kHostGuidBase = 0x4800000000000000ULL;    // hosts, in order of appearance

/** plain_rate(topo_default_gbps); Error(INVALID_ARG) unless that is a positive number. */
LinkRate default_rate();

/** A positive, finite number of Gb/s; false for anything else. */
bool parse_gbps(std::string_view text, double &gbps);

/** "" if @p name can name a host or switch; otherwise why not. Names must be
    printable ASCII without spaces, '[', ']', ',', '=' or '#', so that every
    name can be written back in a hostlist or a key=value file. */
std::string name_problem(std::string_view name);


}  // namespace canopy::topo::synthetic
