// Node layouts without MPI: the host map (CANOPY_HOSTMAP) that makes ranks act
// as if on given hosts, socket groups from an imposed hwloc synthetic node
// description, and the split of a node into multi-leader groups.
#pragma once
#include <string>
#include <vector>

namespace canopy::coll {

/** Host of each MPI_COMM_WORLD rank, in rank order. Lines hold NAME or NAME:COUNT (COUNT
    consecutive ranks); '#' starts a comment. Throws Error(PARSE) as "path:line: what". */
std::vector<std::string> parse_hostmap(const std::string &text, const std::string &path);
std::vector<std::string> load_hostmap(const std::string &path);

/** Package (socket) of each of @p local_ranks ranks when local rank i is bound to core i
    (wrapping around) of the hwloc synthetic node @p spec; 0 everywhere if it has no packages. */
std::vector<int> synthetic_sockets(const std::string &spec, int local_ranks);

/** Leader group of each local rank. leaders_per_node > 0: that many groups (at most one per
    rank), contiguous in (socket, local rank) order so a group never needlessly spans two
    sockets; 0: one group per socket. Groups are numbered 0.. in that order. */
std::vector<int> leader_groups(const std::vector<int> &sockets, int leaders_per_node);

}  // namespace canopy::coll
