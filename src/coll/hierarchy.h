// The hierarchy of a communicator, built on first use and cached on it with an
// MPI attribute (freed with the communicator, or at MPI_Finalize):
//   node     ranks that share memory and (with CANOPY_HOSTMAP) the same listed host
//   leaders  node rank 0 of every node, ordered by communicator rank (node index = rank here);
//            not split where the communicator is one node (nothing travels between nodes)
//   group    multi-leader group inside the node (coll_leaders_per_node, or one per socket)
//   group_leaders  rank 0 of every group of every node
//   group_order    every rank's group across the communicator (multi-leader Allgather)
// The groups are worked out when the hierarchy is built, but their two communicators are split
// only when the multi-leader Allgather first runs (split_groups), and not at all where every
// node is one group (they are then the node and the leaders): MPICH has a few thousand context
// ids in all, and each communicator of the application costs this hierarchy's on top.
// Every internal message travels on private duplicates, so Canopy's traffic can
// never match the application's receives on the user's communicator.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coll/p2p.h"
#include "coll/plan/config.h"
#include "coll/plan/group_order.h"
#include "coll/plan/leader_order.h"
#include "coll/scratch.h"
#include "coll/shm/segment.h"
#include "common/error.h"

namespace canopy::coll {

struct Hierarchy {
  CollConfig config;  // parameters resolved when the hierarchy was built
  std::string unusable;  // why it could not be built (then nothing else is set); empty when built

  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the user's communicator
  int rank = 0, size = 1;

  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0, node_size = 1;
  MPI_Comm leaders = MPI_COMM_NULL;  // on node leaders where there are several nodes, else MPI_COMM_NULL
  int nodes = 1, node_index = 0, max_ranks_per_node = 1;
  std::vector<int> node_of;          // communicator rank -> node index
  std::vector<int> local_rank_of;    // communicator rank -> rank in its node
  std::vector<int> node_leader;      // node index -> communicator rank of its leader
  std::vector<int> node_size_of;     // node index -> ranks on it

  int domain = -1;                   // package or NUMA node of this rank (coll_leader_domain; -1: unknown)
  MPI_Comm group = MPI_COMM_NULL;          // MPI_COMM_NULL until split_groups()
  int group_index = 0, group_rank = 0, groups_per_node = 1;
  MPI_Comm group_leaders = MPI_COMM_NULL;  // after split_groups(): on group leaders where there are several groups
  int group_id = 0;                  // this rank's group across the communicator = its leader's rank in group_leaders
  GroupOrder group_order;            // group and group rank of every communicator rank

  bool leads_node() const { return node_rank == 0; }
  bool leads_group() const { return group_rank == 0; }

  /** The last algorithm chosen for each collective (dispatch.cpp), so that repeated calls
      with one size skip selection; valid for this hierarchy's configuration only. */
  struct LastChoice {
    size_t bytes = SIZE_MAX;
    std::string forced;          // the caller's forced name, "" for none
    const void *impl = nullptr;  // const Implementation<Fn> * of the collective's Fn
    Selection selection;
  };
  std::array<LastChoice, kCollectives> last_choice;

  // Topology-aware Bcast between the node leaders (coll_bcast_leader_order, bcast.cpp): the
  // routes' hops and rates between the leaders' hosts, asked for once and kept on leader 0 only
  // (known: they came; shared by the communicators over one node set), and the leaders' order
  // for each root node and message size class, made at its first Bcast.
  bool leader_links_asked = false, leader_links_known = false;
  std::shared_ptr<const LeaderLinks> leader_links;
  std::map<std::pair<int, size_t>, TreeOrder> leader_orders;

  Hierarchy() = default;
  Hierarchy(const Hierarchy &) = delete;
  Hierarchy &operator=(const Hierarchy &) = delete;
  ~Hierarchy();

  /** The node's shared-memory segment, created (collectively over the node) on first use. */
  shm::Segment &node_segment();
  /** Sets group and group_leaders: collective over the whole communicator, so every rank calls
      it (the multi-leader Allgather does, first); later calls return at once. */
  void split_groups();
  /** The leader group's segment (allocated by the group leader, so it sits on its socket), created
      (collectively over the group) on first use; the node segment when the node has one group.
      After split_groups(). */
  shm::Segment &group_segment();
  /** Working memory kept between calls, one buffer per nesting level (scratch.h). */
  Scratch &scratch(ScratchUse use) { return scratch_[static_cast<size_t>(use)]; }
  /** Blocks::uniform(block, size), kept until the next call with another size (the flat
      Allgathers' layout: building it allocates, a noticeable part of a small call). */
  const Blocks &uniform_blocks(size_t block);
  /** One line for logs: "8 ranks, 3 nodes (max 4 per node), 2 groups per node". */
  std::string describe() const;

 private:
  std::unique_ptr<shm::Segment> node_segment_, group_segment_;
  std::array<Scratch, kScratchUses> scratch_;
  Blocks uniform_;
  size_t uniform_block_ = SIZE_MAX;
};

/** Thrown by hierarchy_of for a communicator whose hierarchy could not be built (the reason was
    logged once, at the first call; every rank fails alike: see build()) and for every
    communicator once MPI_Finalize has freed the hierarchies; callers go to PMPI. */
struct HierarchyUnusable : Error {
  using Error::Error;
};

/** The hierarchy cached on @p comm, built collectively on the first call. A failed build is
    cached too, so that later calls neither build again (collectively) nor warn again: they
    throw HierarchyUnusable, as every call does once MPI_Finalize has begun. */
Hierarchy &hierarchy_of(MPI_Comm comm);

/** True for an intra-communicator (inter-communicators go to PMPI). */
bool is_intracomm(MPI_Comm comm);

/** The host that the host map @p hosts (CANOPY_HOSTMAP, read from @p path) lists for this
    process's MPI_COMM_WORLD rank; Error(INVALID_ARG) when the map is too short. */
std::string hostmap_host(const std::vector<std::string> &hosts, const std::string &path);

}  // namespace canopy::coll
