#include "coll/hierarchy.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/plan/layout.h"
#include "common/error.h"
#include "common/log.h"
#include "topo/node_topology.h"

namespace canopy::coll {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
int g_finalize_keyval = MPI_KEYVAL_INVALID;
// Communicators holding a hierarchy, in creation order (the order every rank built them in,
// so freeing them in this order at MPI_Finalize keeps the collective frees matched).
std::vector<MPI_Comm> g_cached;
// The communicator of the last call and its hierarchy: MPI_Comm_get_attr takes a lock and a
// hash lookup, a noticeable part of a small collective. Cleared when that hierarchy is deleted,
// before the handle can be reused for another communicator.
MPI_Comm g_last_comm = MPI_COMM_NULL;
Hierarchy *g_last = nullptr;
// Set once MPI_Finalize has freed the cached hierarchies: a collective after that (from an
// application's own MPI_COMM_SELF delete callback, which MPI runs after Canopy's when it was set
// before it) goes to PMPI instead of building a hierarchy that nothing would free.
bool g_finalizing = false;

void free_comm(MPI_Comm &comm) {
  if (comm != MPI_COMM_NULL) PMPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

void split(MPI_Comm parent, int color, int key, MPI_Comm *out) {
  check_mpi(PMPI_Comm_split(parent, color, key, out), "MPI_Comm_split");
  if (*out != MPI_COMM_NULL) check_mpi(PMPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

// Index of this process's host among the distinct names of the host map (same on every rank).
int hostmap_color(const std::string &path) {
  std::vector<std::string> hosts = load_hostmap(path);
  std::string mine = hostmap_host(hosts, path);
  std::map<std::string, int> index;
  for (const std::string &host : hosts) index.emplace(host, static_cast<int>(index.size()));
  return index.at(mine);
}

// @p host_color: this rank's host in the host map, or -1 without one.
void build_node(Hierarchy &h, int host_color) {
  MPI_Comm shared = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split_type(h.comm, MPI_COMM_TYPE_SHARED, h.rank, MPI_INFO_NULL, &shared),
            "MPI_Comm_split_type");
  if (host_color >= 0) {
    // A listed host is a subset of a real shared-memory domain, so segments still work.
    split(shared, host_color, h.rank, &h.node);
    free_comm(shared);
  } else {
    h.node = shared;
    check_mpi(PMPI_Comm_set_errhandler(h.node, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  }
  check_mpi(PMPI_Comm_rank(h.node, &h.node_rank), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(h.node, &h.node_size), "MPI_Comm_size");
  // One node holding every rank (the same answer on all of them) has no traffic between nodes,
  // and the communicator it would take is one fewer of MPICH's few thousand context ids.
  if (h.node_size < h.size) split(h.comm, h.leads_node() ? 0 : MPI_UNDEFINED, h.rank, &h.leaders);
}

// Every rank learns the node index and local rank of every other rank.
void build_node_maps(Hierarchy &h) {
  if (h.leaders != MPI_COMM_NULL) check_mpi(PMPI_Comm_rank(h.leaders, &h.node_index), "MPI_Comm_rank");
  check_mpi(PMPI_Bcast(&h.node_index, 1, MPI_INT, 0, h.node), "MPI_Bcast");
  int mine[2] = {h.node_index, h.node_rank};
  std::vector<int> all(2 * static_cast<size_t>(h.size));
  check_mpi(PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, h.comm), "MPI_Allgather");
  h.node_of.resize(h.size);
  h.local_rank_of.resize(h.size);
  for (int r = 0; r < h.size; ++r) {
    h.node_of[r] = all[2 * r];
    h.local_rank_of[r] = all[2 * r + 1];
    h.nodes = std::max(h.nodes, h.node_of[r] + 1);
  }
  h.node_leader.assign(h.nodes, -1);
  h.node_size_of.assign(h.nodes, 0);
  for (int r = 0; r < h.size; ++r) {
    ++h.node_size_of[h.node_of[r]];
    if (h.local_rank_of[r] == 0) h.node_leader[h.node_of[r]] = r;
  }
  h.max_ranks_per_node = *std::max_element(h.node_size_of.begin(), h.node_size_of.end());
}

int my_domain(const CollConfig &c, int node_rank, int node_size) {
  if (!c.node_layout.empty())
    return synthetic_domains(c.node_layout, node_size, c.leader_domain).at(static_cast<size_t>(node_rank));
  // Loading the live topology costs milliseconds: once per process.
  static const std::pair<int, int> bound = [] {  // package, NUMA node
    try {
      topo::NodeTopology live = topo::NodeTopology::load("live");
      return std::pair{live.bound_cpu(topo::CpuLevel::Package), live.bound_numa()};
    } catch (const Error &e) {
      CANOPY_LOG(Warn, "collectives: cannot read the CPU binding (%s); one domain assumed", e.what());
      return std::pair{-1, -1};
    }
  }();
  return c.leader_domain == LeaderDomain::Numa ? bound.second : bound.first;
}

// Every rank's group and group rank, as split_groups' splits number them: a group's ranks in
// node-rank order, the groups by their leaders' communicator ranks.
void build_groups(Hierarchy &h) {
  h.domain = my_domain(h.config, h.node_rank, h.node_size);
  std::vector<int> domains(h.node_size);
  check_mpi(PMPI_Allgather(&h.domain, 1, MPI_INT, domains.data(), 1, MPI_INT, h.node), "MPI_Allgather");
  std::vector<int> groups = leader_groups(domains, h.config.leaders_per_node);
  h.group_index = groups[h.node_rank];
  h.groups_per_node = *std::max_element(groups.begin(), groups.end()) + 1;
  h.group_rank = static_cast<int>(std::count(groups.begin(), groups.begin() + h.node_rank, h.group_index));
  int leader_local = static_cast<int>(std::find(groups.begin(), groups.end(), h.group_index) - groups.begin());
  int leader = 0;  // the communicator rank of this rank's group leader
  while (h.node_of[leader] != h.node_index || h.local_rank_of[leader] != leader_local) ++leader;
  int mine[2] = {leader, h.group_rank};
  std::vector<int> all(2 * static_cast<size_t>(h.size));
  check_mpi(PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, h.comm), "MPI_Allgather");
  std::vector<int> id_of_leader(h.size, -1), group_of(h.size), group_rank_of(h.size);
  for (int r = 0, groups_seen = 0; r < h.size; ++r)
    if (all[2 * r + 1] == 0) id_of_leader[r] = groups_seen++;
  for (int r = 0; r < h.size; ++r) {
    group_of[r] = id_of_leader[all[2 * r]];
    group_rank_of[r] = all[2 * r + 1];
  }
  h.group_id = group_of[h.rank];
  h.group_order = GroupOrder(std::move(group_of), std::move(group_rank_of));
}

std::unique_ptr<Hierarchy> build(MPI_Comm comm) {
  auto h = std::make_unique<Hierarchy>();
  // The parameters (the tuning file among them) and the host map, read before any other
  // traffic. Ranks may see different files (a node without the tuning file, a host map one rank
  // short), so every rank learns whether every rank could, and all fall back together instead
  // of the others waiting in a split for the one that could not.
  int host_color = -1, failed = 0, any_failed = 0;
  std::optional<Error> error;
  try {
    h->config = CollConfig::from_params();
    check_inner_algorithms(h->config);
    if (!h->config.hostmap.empty()) host_color = hostmap_color(h->config.hostmap);
  } catch (const Error &e) {
    failed = 1, error = e;
  }
  check_mpi(PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (any_failed)
    throw failed ? *error
                 : Error(CANOPY_ERR_INVALID_ARG, "another rank could not read its parameters or host map (its log says why)");
  check_mpi(PMPI_Comm_dup(comm, &h->comm), "MPI_Comm_dup");
  check_mpi(PMPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(PMPI_Comm_rank(h->comm, &h->rank), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(h->comm, &h->size), "MPI_Comm_size");
  build_node(*h, host_color);
  build_node_maps(*h);
  build_groups(*h);
  CANOPY_LOG(Debug, "collectives: hierarchy built: %s", h->describe().c_str());
  return h;
}

shm::SegmentConfig segment_config(const CollConfig &c) {
  return {c.shm_buffer_bytes, c.shm_buffers, c.shm_spins, c.shm_cell_bytes};
}

int delete_hierarchy(MPI_Comm comm, int, void *value, void *) {
  if (value == g_last) g_last_comm = MPI_COMM_NULL, g_last = nullptr;
  delete static_cast<Hierarchy *>(value);
  g_cached.erase(std::remove(g_cached.begin(), g_cached.end(), comm), g_cached.end());
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: the moment
// to free what is cached on communicators the application never freed (MPI_COMM_WORLD).
int free_all_at_finalize(MPI_Comm, int, void *, void *) {
  g_finalizing = true;
  std::vector<MPI_Comm> cached = g_cached;
  for (MPI_Comm comm : cached) PMPI_Comm_delete_attr(comm, g_keyval);
  PMPI_Comm_free_keyval(&g_keyval);  // MPI keeps a keyval until the attributes using it are gone
  PMPI_Comm_free_keyval(&g_finalize_keyval);
  return MPI_SUCCESS;
}

void create_keyvals() {
  check_mpi(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_hierarchy, &g_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_all_at_finalize, &g_finalize_keyval, nullptr),
            "MPI_Comm_create_keyval");
  check_mpi(PMPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_keyval, nullptr), "MPI_Comm_set_attr");
}

}  // namespace

Hierarchy::~Hierarchy() {
  group_segment_.reset();
  node_segment_.reset();
  if (group != node)  // not split yet, or split into communicators of their own
    for (MPI_Comm *c : {&group_leaders, &group}) free_comm(*c);
  for (MPI_Comm *c : {&leaders, &node, &comm}) free_comm(*c);
}

void Hierarchy::split_groups() {
  if (group != MPI_COMM_NULL) return;  // every rank has a group once split
  if (group_order.groups() == nodes) {  // one group per node, everywhere: the node and its leader
    group = node;
    group_leaders = leaders;
    return;
  }
  split(node, group_index, node_rank, &group);
  split(comm, group_rank == 0 ? 0 : MPI_UNDEFINED, rank, &group_leaders);
}

shm::Segment &Hierarchy::node_segment() {
  if (!node_segment_) node_segment_ = std::make_unique<shm::Segment>(node, segment_config(config));
  return *node_segment_;
}

shm::Segment &Hierarchy::group_segment() {
  if (groups_per_node == 1) return node_segment();
  if (!group_segment_) group_segment_ = std::make_unique<shm::Segment>(group, segment_config(config));
  return *group_segment_;
}

const Blocks &Hierarchy::uniform_blocks(size_t block) {
  if (block != uniform_block_) {
    uniform_ = Blocks::uniform(block, size);
    uniform_block_ = block;
  }
  return uniform_;
}

std::string Hierarchy::describe() const {
  return std::to_string(size) + " ranks, " + std::to_string(nodes) + " nodes (max " +
         std::to_string(max_ranks_per_node) + " per node), " + std::to_string(groups_per_node) +
         " leader groups on this node";
}

Hierarchy &hierarchy_of(MPI_Comm comm) {
  if (!g_last || comm != g_last_comm) {
    if (g_finalizing) throw HierarchyUnusable(CANOPY_ERR_UNSUPPORTED, "MPI_Finalize has begun");
    if (g_keyval == MPI_KEYVAL_INVALID) create_keyvals();
    void *value = nullptr;
    int found = 0;
    check_mpi(PMPI_Comm_get_attr(comm, g_keyval, &value, &found), "MPI_Comm_get_attr");
    if (!found) {
      std::unique_ptr<Hierarchy> h;
      try {
        h = build(comm);
      } catch (const Error &e) {
        CANOPY_LOG(Warn, "collectives on this communicator go to PMPI: %s", e.what());
        h = std::make_unique<Hierarchy>();
        h->unusable = e.what();
      }
      check_mpi(PMPI_Comm_set_attr(comm, g_keyval, h.get()), "MPI_Comm_set_attr");
      g_cached.push_back(comm);
      value = h.release();
    }
    g_last_comm = comm;
    g_last = static_cast<Hierarchy *>(value);
  }
  if (!g_last->unusable.empty()) throw HierarchyUnusable(CANOPY_ERR_UNSUPPORTED, g_last->unusable);
  return *g_last;
}

std::string hostmap_host(const std::vector<std::string> &hosts, const std::string &path) {
  int world_rank = 0;
  check_mpi(PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
  if (static_cast<size_t>(world_rank) >= hosts.size())
    throw Error(CANOPY_ERR_INVALID_ARG, path + ": the host map lists " + std::to_string(hosts.size()) +
                                            " ranks, MPI_COMM_WORLD has rank " + std::to_string(world_rank));
  return hosts[static_cast<size_t>(world_rank)];
}

bool is_intracomm(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

}  // namespace canopy::coll
