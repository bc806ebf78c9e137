#include "topomap/topomap.h"

#include <algorithm>

#include "canopy/status.h"
#include "coll/dispatch.h"
#include "coll/hierarchy.h"
#include "coll/p2p.h"
#include "coll/plan/layout.h"
#include "common/error.h"
#include "common/log.h"
#include "common/params.h"
#include "map/job_mapping.h"
#include "topomap/gather.h"
#include "topo/node_topology.h"

namespace canopy::topomap {

std::vector<int> neighbour_order(MPI_Comm comm, int topology) {
  std::vector<int> order;
  if (topology == MPI_CART) {
    int ndims = 0;
    coll::check_mpi(PMPI_Cartdim_get(comm, &ndims), "MPI_Cartdim_get");
    for (int d = 0; d < ndims; ++d) {
      int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
      coll::check_mpi(PMPI_Cart_shift(comm, d, 1, &lower, &upper), "MPI_Cart_shift");
      order.insert(order.end(), {lower, upper});
    }
  } else {
    int rank = 0, count = 0;
    coll::check_mpi(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    coll::check_mpi(PMPI_Graph_neighbors_count(comm, rank, &count), "MPI_Graph_neighbors_count");
    order.resize(static_cast<size_t>(std::max(count, 1)));
    coll::check_mpi(PMPI_Graph_neighbors(comm, rank, count, order.data()), "MPI_Graph_neighbors");
    order.resize(static_cast<size_t>(count));
  }
  return order;
}

namespace {

using coll::check_mpi;

// A rank's neighbourhood in a distributed graph, as MPI_Dist_graph_neighbors gives it.
struct Adjacency {
  int weighted = 0;
  std::vector<int> sources, source_weights, destinations, destination_weights;
};

// What one rank contributes to the decision: its host, its core, PU and package and its out-edges, or that it failed.
struct LocalPart {
  canopy_status_t status = CANOPY_SUCCESS;
  std::string host;
  int core = -1, pu = -1, package = -1;  // what it is bound to (live node only), -1 when not bound within one
  Adjacency adjacency;
};

// Every edge unweighted (1) where the communicator's constructor takes no weights.
Adjacency adjacency_of(MPI_Comm graph) {
  Adjacency a;
  int topology = MPI_UNDEFINED;
  check_mpi(PMPI_Topo_test(graph, &topology), "MPI_Topo_test");
  if (topology != MPI_DIST_GRAPH) {  // the neighbours but MPI_PROC_NULL and this rank itself
    int rank = 0;
    check_mpi(PMPI_Comm_rank(graph, &rank), "MPI_Comm_rank");
    for (int r : neighbour_order(graph, topology))
      if (r != MPI_PROC_NULL && r != rank) a.sources.push_back(r);
    a.destinations = a.sources;
    a.source_weights = a.destination_weights = std::vector<int>(a.sources.size(), 1);
    return a;
  }
  int in = 0, out = 0;
  check_mpi(PMPI_Dist_graph_neighbors_count(graph, &in, &out, &a.weighted), "MPI_Dist_graph_neighbors_count");
  // At least one element each: an empty vector's data() may be null, which an MPI may read as MPI_UNWEIGHTED.
  std::vector<int> sources(std::max(in, 1)), sw(std::max(in, 1)), dests(std::max(out, 1)), dw(std::max(out, 1));
  check_mpi(PMPI_Dist_graph_neighbors(graph, in, sources.data(), sw.data(), out, dests.data(), dw.data()),
            "MPI_Dist_graph_neighbors");
  a.sources.assign(sources.begin(), sources.begin() + in);
  a.destinations.assign(dests.begin(), dests.begin() + out);
  if (a.weighted) {
    a.source_weights.assign(sw.begin(), sw.begin() + in);
    a.destination_weights.assign(dw.begin(), dw.begin() + out);
  } else {  // an unweighted edge counts 1
    a.source_weights.assign(static_cast<size_t>(in), 1);
    a.destination_weights.assign(static_cast<size_t>(out), 1);
  }
  return a;
}

// The host this rank is on, as the collectives' hierarchy sees it.
std::string host_name() {
  if (std::string path = param_string("hostmap"); !path.empty()) return coll::hostmap_host(coll::load_hostmap(path), path);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  check_mpi(PMPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  return std::string(name, static_cast<size_t>(length));
}

// The node task mapping sees: coll_node_layout (synthetic, local rank i on core i) or the real one.
std::string node_spec() {
  std::string layout = param_string("coll_node_layout");
  return layout.empty() ? "live" : layout;
}

// The core, the PU and the package this process is bound to on the real node; -1 when unbound, bound
// wider, or unreadable.
void read_binding(LocalPart &part) {
  try {
    topo::NodeTopology live = topo::NodeTopology::load("live");
    part.core = live.bound_cpu(topo::CpuLevel::Core);
    part.pu = live.bound_cpu(topo::CpuLevel::PU);
    part.package = live.bound_cpu(topo::CpuLevel::Package);
  } catch (const Error &e) {
    CANOPY_LOG(Warn, "task mapping: cannot read the CPU binding (%s)", e.what());
  }
}

LocalPart local_part(MPI_Comm graph, const std::string &argument_error) {
  LocalPart part;
  part.status = guard([&] {
    if (!argument_error.empty()) throw Error(CANOPY_ERR_INVALID_ARG, argument_error);
    part.host = host_name();
    if (node_spec() == "live") read_binding(part);
    part.adjacency = adjacency_of(graph);
  });
  if (part.status != CANOPY_SUCCESS) CANOPY_LOG(Warn, "task mapping: %s", canopy_last_error());
  return part;
}

// Every rank's part, on rank 0: statuses, hosts, cores, PUs, packages and the graph (out-edges
// only, so each directed edge is counted once).
struct Gathered {
  std::vector<int> status, degree, core, pu, package;
  std::vector<int> destinations, weights;
  std::vector<std::string> hosts;
};

Gathered gather_parts(const LocalPart &part, int rank, int size, MPI_Comm comm) {
  constexpr int kHead = 6;
  int head[kHead] = {part.status, static_cast<int>(part.adjacency.destinations.size()),
                     static_cast<int>(part.host.size()), part.core, part.pu, part.package};
  std::vector<int> heads(rank == 0 ? kHead * static_cast<size_t>(size) : 0);
  check_mpi(PMPI_Gather(head, kHead, MPI_INT, heads.data(), kHead, MPI_INT, 0, comm), "MPI_Gather");
  Gathered g;
  std::vector<int> name_lengths;
  for (int r = 0; r < (rank == 0 ? size : 0); ++r) {
    g.status.push_back(heads[kHead * r]);
    g.degree.push_back(heads[kHead * r + 1]);
    name_lengths.push_back(heads[kHead * r + 2]);
    g.core.push_back(heads[kHead * r + 3]);
    g.pu.push_back(heads[kHead * r + 4]);
    g.package.push_back(heads[kHead * r + 5]);
  }
  g.destinations = gather(part.adjacency.destinations, g.degree, MPI_INT, comm);
  g.weights = gather(part.adjacency.destination_weights, g.degree, MPI_INT, comm);
  std::vector<char> names = gather(std::vector<char>(part.host.begin(), part.host.end()), name_lengths, MPI_CHAR, comm);
  for (size_t r = 0, at = 0; r < name_lengths.size(); at += static_cast<size_t>(name_lengths[r++]))
    g.hosts.emplace_back(names.data() + at, static_cast<size_t>(name_lengths[r]));
  return g;
}

std::vector<int> identity(int size) {
  std::vector<int> ranks(static_cast<size_t>(std::max(size, 0)));
  for (int r = 0; r < size; ++r) ranks[static_cast<size_t>(r)] = r;
  return ranks;
}

// Rank 0's decision from the gathered parts.
Decision decide_on_root(const Gathered &g, const std::string &algorithm, int size) {
  Decision d;
  map::JobMapping mapping;
  d.status = guard([&] {
    for (int r = 0; r < size; ++r)
      if (g.status[r] != CANOPY_SUCCESS)
        throw Error(static_cast<canopy_status_t>(g.status[r]),
                    "rank " + std::to_string(r) + " could not take part: " +
                        canopy_status_string(static_cast<canopy_status_t>(g.status[r])) +
                        " (its log says why: its arguments, host or neighbours)");
    map::CommGraphBuilder builder(size);
    for (int r = 0, at = 0; r < size; ++r)
      for (int e = 0; e < g.degree[r]; ++e, ++at) builder.add(r, g.destinations[at], g.weights[at]);
    std::string node = node_spec();
    auto if_live = [&](const std::vector<int> &bound) { return node == "live" ? bound : std::vector<int>{}; };
    mapping = map::map_job({g.hosts, builder.build(), param_string("map_fabric"), node,
                            algorithm.empty() ? param_string("map_algorithm") : algorithm, if_live(g.core),
                            param_int("map_anneal_moves"), param_int("map_analytic_iterations"),
                            param_int("map_anneal_process_moves"), if_live(g.pu), if_live(g.package)});
  });
  d.message = d.status == CANOPY_SUCCESS ? mapping.summary : canopy_last_error();
  d.mapped = d.status == CANOPY_SUCCESS && mapping.mapped;
  d.new_rank = d.status == CANOPY_SUCCESS ? mapping.new_rank : identity(size);
  return d;
}

// Rank 0's decision to every rank: status, message, new ranks.
void broadcast(Decision &d, int size, MPI_Comm comm) {
  int head[3] = {d.status, d.mapped ? 1 : 0, static_cast<int>(d.message.size())};
  check_mpi(PMPI_Bcast(head, 3, MPI_INT, 0, comm), "MPI_Bcast");
  d.status = static_cast<canopy_status_t>(head[0]);
  d.mapped = head[1] != 0;
  d.message.resize(static_cast<size_t>(head[2]));
  check_mpi(PMPI_Bcast(d.message.data(), head[2], MPI_CHAR, 0, comm), "MPI_Bcast");
  d.new_rank.resize(static_cast<size_t>(size));
  check_mpi(PMPI_Bcast(d.new_rank.data(), size, MPI_INT, 0, comm), "MPI_Bcast");
}

Decision failure(canopy_status_t status, std::string message, int size) {
  Decision d;
  d.status = status;
  d.message = std::move(message);
  d.new_rank = identity(size);
  return d;
}

Decision decide_collectively(MPI_Comm comm, const std::string &algorithm, const std::string &argument_error, int rank,
                             int size) {
  MPI_Comm priv = MPI_COMM_NULL;  // Canopy's messages never meet the application's
  check_mpi(PMPI_Comm_dup(comm, &priv), "MPI_Comm_dup");
  check_mpi(PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  Decision d;
  try {
    Gathered g = gather_parts(local_part(comm, argument_error), rank, size, priv);
    if (rank == 0) d = decide_on_root(g, algorithm, size);
    broadcast(d, size, priv);
  } catch (...) {
    PMPI_Comm_free(&priv);
    throw;
  }
  PMPI_Comm_free(&priv);
  return d;
}

// Both ways of an int vector of unknown length, on @p comm.
std::vector<int> sendrecv_ints(const std::vector<int> &send, int to, int from, MPI_Comm comm) {
  int send_count = static_cast<int>(send.size()), recv_count = 0;
  check_mpi(PMPI_Sendrecv(&send_count, 1, MPI_INT, to, 0, &recv_count, 1, MPI_INT, from, 0, comm, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
  std::vector<int> received(static_cast<size_t>(recv_count));
  check_mpi(PMPI_Sendrecv(send.data(), send_count, MPI_INT, to, 1, received.data(), recv_count, MPI_INT, from, 1, comm,
                          MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
  return received;
}

std::vector<int> pack(const Adjacency &a) {
  std::vector<int> p{a.weighted, static_cast<int>(a.sources.size()), static_cast<int>(a.destinations.size())};
  for (const std::vector<int> *part : {&a.sources, &a.source_weights, &a.destinations, &a.destination_weights})
    p.insert(p.end(), part->begin(), part->end());
  return p;
}

Adjacency unpack(const std::vector<int> &p) {
  Adjacency a;
  a.weighted = p.at(0);
  size_t in = static_cast<size_t>(p.at(1)), out = static_cast<size_t>(p.at(2)), at = 3;
  auto take = [&](size_t n) {
    std::vector<int> part(p.begin() + static_cast<long>(at), p.begin() + static_cast<long>(at + n));
    at += n;
    return part;
  };
  a.sources = take(in);
  a.source_weights = take(in);
  a.destinations = take(out);
  a.destination_weights = take(out);
  return a;
}

// Pointer arguments of MPI_Dist_graph_create_adjacent for a possibly empty list.
const int *ranks_arg(const std::vector<int> &ranks) {
  static const int none = 0;
  return ranks.empty() ? &none : ranks.data();
}
const int *weights_arg(const Adjacency &a, const std::vector<int> &weights) {
  if (!a.weighted) return MPI_UNWEIGHTED;
  return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}

// The reordered communicator: the ranks of @p topology split by new rank, then the same
// topology built on them without reordering, so that vertex v (grid position v) is played
// by new rank v; neighbours keep their numbers. On a distributed graph, the process that
// takes new rank v gets vertex v's adjacency (Cartesian and MPI-1 graph communicators
// know every rank's neighbours from the shared description).
void build_renumbered(MPI_Comm topology, const std::vector<int> &new_rank, MPI_Info info, MPI_Comm *out) {
  int rank = 0, kind = MPI_UNDEFINED;
  check_mpi(PMPI_Comm_rank(topology, &rank), "MPI_Comm_rank");
  check_mpi(PMPI_Topo_test(topology, &kind), "MPI_Topo_test");
  Adjacency vertex;
  if (kind == MPI_DIST_GRAPH) {
    std::vector<int> old_of_new(new_rank.size());
    for (size_t r = 0; r < new_rank.size(); ++r) old_of_new[static_cast<size_t>(new_rank[r])] = static_cast<int>(r);
    // This rank holds vertex `rank`, which goes to its new owner; it becomes vertex new_rank[rank].
    vertex = unpack(sendrecv_ints(pack(adjacency_of(topology)), old_of_new[static_cast<size_t>(rank)],
                                  new_rank[static_cast<size_t>(rank)], topology));
  }
  MPI_Comm split = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split(topology, 0, new_rank[static_cast<size_t>(rank)], &split), "MPI_Comm_split");
  int rc = MPI_SUCCESS;
  const char *call = "MPI_Dist_graph_create_adjacent";
  if (kind == MPI_DIST_GRAPH) {
    rc = PMPI_Dist_graph_create_adjacent(
        split, static_cast<int>(vertex.sources.size()), ranks_arg(vertex.sources),
        weights_arg(vertex, vertex.source_weights), static_cast<int>(vertex.destinations.size()),
        ranks_arg(vertex.destinations), weights_arg(vertex, vertex.destination_weights), info, 0, out);
  } else if (kind == MPI_CART) {
    int ndims = 0;
    call = "MPI_Cart_create";
    if ((rc = PMPI_Cartdim_get(topology, &ndims)) == MPI_SUCCESS) {
      std::vector<int> dims(static_cast<size_t>(std::max(ndims, 1))), periods(dims.size()), coords(dims.size());
      if ((rc = PMPI_Cart_get(topology, ndims, dims.data(), periods.data(), coords.data())) == MPI_SUCCESS)
        rc = PMPI_Cart_create(split, ndims, dims.data(), periods.data(), 0, out);
    }
  } else {
    int nodes = 0, edges = 0;
    call = "MPI_Graph_create";
    if ((rc = PMPI_Graphdims_get(topology, &nodes, &edges)) == MPI_SUCCESS) {
      std::vector<int> index(static_cast<size_t>(std::max(nodes, 1))), targets(static_cast<size_t>(std::max(edges, 1)));
      if ((rc = PMPI_Graph_get(topology, nodes, edges, index.data(), targets.data())) == MPI_SUCCESS)
        rc = PMPI_Graph_create(split, nodes, index.data(), targets.data(), 0, out);
    }
  }
  PMPI_Comm_free(&split);
  check_mpi(rc, call);
}

}  // namespace

Decision decide(MPI_Comm comm, const std::string &algorithm, const std::string &argument_error) noexcept {
  int initialized = 0, finalized = 0;  // both may be asked at any time
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized)
    return failure(CANOPY_ERR_INVALID_ARG,
                   std::string("task mapping: MPI is ") + (finalized ? "finalized" : "not initialized"), 0);
  if (comm == MPI_COMM_NULL) return failure(CANOPY_ERR_INVALID_ARG, "task mapping: MPI_COMM_NULL", 0);
  int inter = 0, topology = MPI_UNDEFINED, rank = 0, size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS || PMPI_Topo_test(comm, &topology) != MPI_SUCCESS)
    return failure(CANOPY_ERR_INVALID_ARG, "task mapping: not a valid communicator", 0);
  auto local_failure = [&](canopy_status_t status, const char *message) {
    Decision d = failure(status, message, size);
    d.rank = rank;
    return d;
  };
  if (inter) return local_failure(CANOPY_ERR_UNSUPPORTED, "task mapping: an inter-communicator has no graph to map");
  if (topology != MPI_DIST_GRAPH && topology != MPI_CART && topology != MPI_GRAPH)
    return local_failure(CANOPY_ERR_INVALID_ARG, "task mapping: not a graph or Cartesian communicator (make one with "
                                                 "MPI_Dist_graph_create_adjacent or MPI_Cart_create)");
  Decision d;
  try {
    d = decide_collectively(comm, algorithm, argument_error, rank, size);
  } catch (const std::exception &e) {  // MPI failed midway: nothing better to agree on
    d = failure(CANOPY_ERR_INTERNAL, std::string("task mapping: ") + e.what(), size);
  }
  d.rank = rank;
  return d;
}

bool should_reorder(MPI_Comm comm_old, int reorder) noexcept {
  static const bool wanted =
      param_bool_or("map_reorder", false, log::Level::Warn, "topology constructors keep the ranks' order");
  int inter = 1;
  return reorder && wanted && !coll::disabled() && comm_old != MPI_COMM_NULL &&
         PMPI_Comm_test_inter(comm_old, &inter) == MPI_SUCCESS && !inter;
}

namespace {

// decide() for @p call on @p topology, its outcome logged on rank 0: a warning where the
// mapping failed (every rank then keeps its place), its summary otherwise.
Decision decide_logged(const char *call, MPI_Comm topology) {
  Decision d = decide(topology, "");
  if (d.rank != 0) return d;
  if (d.status != CANOPY_SUCCESS)
    CANOPY_LOG(Warn, "%s: task mapping failed (%s: %s); ranks keep their order", call, canopy_status_string(d.status),
               d.message.c_str());
  else
    CANOPY_LOG(Info, "%s: %s", call, d.message.c_str());
  return d;
}

}  // namespace

int reorder(const char *call, MPI_Comm topology, MPI_Info info, MPI_Comm *out) {
  if (topology == MPI_COMM_NULL) {  // this rank is not in the grid or graph (fewer places than ranks)
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Decision d = decide_logged(call, topology);
  if (d.status != CANOPY_SUCCESS || !d.mapped) {
    *out = topology;
    return MPI_SUCCESS;
  }
  try {
    build_renumbered(topology, d.new_rank, info, out);
  } catch (const std::exception &e) {
    CANOPY_LOG(Error, "%s: %s", call, e.what());
    PMPI_Comm_free(&topology);
    return MPI_ERR_OTHER;
  }
  PMPI_Comm_free(&topology);
  return MPI_SUCCESS;
}

int map_rank(const char *call, MPI_Comm topology, int *newrank) {
  if (topology == MPI_COMM_NULL) {
    *newrank = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  Decision d = decide_logged(call, topology);
  *newrank = d.status == CANOPY_SUCCESS ? d.new_rank[static_cast<size_t>(d.rank)] : d.rank;
  PMPI_Comm_free(&topology);
  return MPI_SUCCESS;
}

}  // namespace canopy::topomap
