// Allgather pieces shared by allgather.cpp (flat and single-leader algorithms)
// and allgather_multi_leader.cpp.
#pragma once
#include <cstddef>
#include <string>

#include "coll/hierarchy.h"
#include "coll/p2p.h"

namespace canopy::coll {

/** The exchange between leaders named by coll_allgather_inter_algorithm (recursive_doubling or
    ring: bundles may differ in size). Throws Error(INVALID_ARG) for another name; call it on every
    rank before any traffic, so that all ranks fail alike. */
BlockAllgatherFn inter_leader_allgather(const std::string &name);

/** Copies this rank's block @p mine to its place in @p recv (nothing when it is there already). */
void place_own_block(const Hierarchy &h, const char *mine, char *recv, size_t block);

/** Multi-leader Allgather with point-to-point aggregation (coll_allgather_intra_algorithm) and
    distribution (binomial Bcast of the blocks each group lacks). */
void allgather_multi_leader_p2p(Hierarchy &h, const char *mine, char *recv, size_t block);
/** Multi-leader Allgather with aggregation and distribution through the group's shared segment. */
void allgather_multi_leader_shm(Hierarchy &h, const char *mine, char *recv, size_t block);
/** "" when every leader group fits in its segment's area at one byte per member. */
std::string multi_leader_shm_applicable(const Hierarchy &h);

}  // namespace canopy::coll
