// Node layouts without MPI: the host map (CANOPY_HOSTMAP) that makes ranks act
// as if on given hosts, package or NUMA groups from an imposed hwloc synthetic node
// description, and the split of a node into multi-leader groups.
#pragma once
#include <string>
#include <vector>

namespace canopy::coll {

/** Host of each MPI_COMM_WORLD rank, in rank order. Lines hold NAME or NAME:COUNT (COUNT
    consecutive ranks); '#' starts a comment. Throws Error(PARSE) as "path:line: what". */
std::vector<std::string> parse_hostmap(const std::string &text, const std::string &path);
std::vector<std::string> load_hostmap(const std::string &path);

/** What one leader group holds by default (coll_leader_domain): the ranks of a package
    (socket), or of a NUMA node (several per package with AMD NPS2/NPS4 or Intel SNC). */
enum class LeaderDomain { Package, Numa };

/** Domain (package or NUMA node) of each of @p local_ranks ranks when local rank i is bound
    to core i (wrapping around) of the hwloc synthetic node @p spec; 0 everywhere if it has
    no such objects. */
std::vector<int> synthetic_domains(const std::string &spec, int local_ranks, LeaderDomain domain);

/** Leader group of each local rank from its domain (-1: unknown). leaders_per_node > 0: that
    many groups (at most one per rank), contiguous in (domain, local rank) order so a group
    never needlessly spans two domains; 0: one group per domain. Groups are numbered 0.. in
    that order. */
std::vector<int> leader_groups(const std::vector<int> &domains, int leaders_per_node);

}  // namespace canopy::coll
