#include "common/params.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "canopy/config.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/json_file.h"
#include "common/text.h"

namespace canopy {
namespace {

// The registry. Keep it sorted by component, then name. Every number has its range
// (the values a lookup accepts), so that no reader checks its own.
const std::vector<ParamDef> kRegistry = {
    // Collectives runtime (src/coll, libcanopy-mpi.so). The <coll>_algorithm names
    // follow the CANOPY_BCAST_ALGORITHM form rather than a coll_ prefix.
    {"allgather_algorithm", ParamType::String, "",
     "Force the Allgather algorithm by name (canopy info --algorithms); empty: selection rules."},
    {"allreduce_algorithm", ParamType::String, "",
     "Force the Allreduce algorithm by name; empty: selection rules."},
    {"alltoall_algorithm", ParamType::String, "",
     "Force the Alltoall algorithm by name; empty: selection rules."},
    {"barrier_algorithm", ParamType::String, "",
     "Force the Barrier algorithm by name; empty: selection rules."},
    {"bcast_algorithm", ParamType::String, "",
     "Force the Bcast algorithm by name; empty: selection rules."},
    {"coll_allgather_inter_algorithm", ParamType::String, "recursive_doubling",
     "Allgather between node leaders in leader, and between group leaders in multi_leader_p2p/multi_leader_shm: recursive_doubling or ring (bundles may differ in size, so no bruck)."},
    {"coll_allgather_intra_algorithm", ParamType::String, "recursive_doubling",
     "Aggregation inside a leader group in multi_leader_p2p: recursive_doubling or ring (every member ends with the group's blocks, so the distribution sends only the rest) or gather (binomial gather to the leader, which then sends everything)."},
    {"coll_allreduce_inter_algorithm", ParamType::String, "recursive_doubling",
     "Allreduce between node leaders in two_level: recursive_doubling, reduce_scatter_allgather or ring."},
    {"coll_bcast_chain_segment_bytes", ParamType::Int, "65536",
     "Segment size (bytes) of the pipelined chain Bcast.", 1, 2147483648.0},
    {"coll_bcast_inter_algorithm", ParamType::String, "knomial",
     "Bcast between node leaders in two_level: binomial, knomial, scatter_rd_allgather, scatter_ring_allgather or chain."},
    {"coll_bcast_intra_algorithm", ParamType::String, "shm",
     "Bcast inside a node in two_level (Bcast, Allreduce) and leader: shm or any flat Bcast algorithm (binomial, knomial, ...)."},
    {"coll_bcast_leader_order", ParamType::String, "none",
     "Topology-aware Bcast between node leaders in two_level: none, dft or bft (the tree's positions visited depth or breadth first from the root, each taking the leader with the least delay from its parent for the message's size, by the hops and rates topo_server answers for the leaders' hosts; without topo_server, by the slower of two leaders' HCA rates (coll_hca_port); in SMPI bft paid where HCA speeds differ)."},
    {"coll_bcast_knomial_radix", ParamType::Int, "4",
     "Radix k of the k-nomial Bcast tree (2 gives the binomial tree).", 2, 64},
    {"coll_hca_port", ParamType::String, "",
     "The InfiniBand port whose rate stands for a node leader's host in coll_bcast_leader_order when topo_server is not set: DEVICE (its first active port) or DEVICE:PORT (mlx5_0:1); empty: the first active port under /sys/class/infiniband (devices by name)."},
    {"coll_leader_domain", ParamType::String, "package",
     "What a leader group of the multi-leader Allgather holds with coll_leaders_per_node=0, and what groups avoid spanning otherwise: package (one leader per socket, the paper's choice) or numa (one per NUMA node: AMD NPS2/NPS4, Intel SNC, where a package has several memory domains; not measured yet)."},
    {"coll_leaders_per_node", ParamType::Int, "0",
     "Leader groups per node for the multi-leader Allgather, cut in (domain, rank) order; 0: one leader per coll_leader_domain (one group when the binding is unknown).", 0, 65536},
    {"coll_node_layout", ParamType::String, "",
     "hwloc synthetic node description (\"pack:2 core:4 pu:1\") imposed for leader groups (and taken by MPI task mapping as the node); local rank i sits on core i. Empty: real bindings (hwloc live)."},
    {"coll_reduce_inter_algorithm", ParamType::String, "binomial",
     "Reduce between node leaders in two_level: binomial or reduce_scatter_gather."},
    {"coll_reduce_segment_bytes", ParamType::Int, "1048576",
     "Piece size (bytes, rounded down to whole elements) of the pipelined point-to-point reductions (Reduce binomial and reduce_scatter_gather, Allreduce reduce_scatter_allgather, and their use between node leaders).", 1, 2147483648.0},
    {"coll_shm_buffer_bytes", ParamType::Int, "16384",
     "Size (bytes) of one shared-memory buffer (pipeline chunk); read when a node segment is created.", 64, 1 << 30},
    {"coll_shm_buffers", ParamType::Int, "16",
     "Number of shared-memory buffers per node segment (pipeline depth); read when the segment is created.", 1, 4096},
    {"coll_shm_cell_bytes", ParamType::Int, "1024",
     "Largest shared-memory Allgather block and Allreduce message exchanged through per-rank cells (no barrier; 2 cells per rank of this size in each node segment); 0: none, every exchange in stages. Read when a node segment is created.", 0, 65536},
    {"coll_shm_mode", ParamType::String, "pipelined",
     "Shared-memory Bcast: pipelined (one buffer-sized chunk after another, each announced by Pair_sync) or one_stage (Sender_put, Group_sync, Group_get)."},
    {"coll_shm_spins", ParamType::Int, "64",
     "Busy polls of a shared-memory flag before each sched_yield (keep small when ranks outnumber cores).", 0, 1 << 30},
    {"coll_tuning_file", ParamType::String, "",
     "JSON tuning file whose rules are tried before the built-in selection table."},
    {"disable", ParamType::Bool, "0",
     "libcanopy-mpi.so passes every MPI call straight to PMPI (CANOPY_DISABLE=1)."},
    {"gather_algorithm", ParamType::String, "",
     "Force the Gather algorithm by name; empty: selection rules."},
    {"hostmap", ParamType::String, "",
     "File naming the host of each MPI_COMM_WORLD rank (one per line, NAME or NAME:COUNT); ranks then act as if on those hosts."},
    {"log_level", ParamType::String, "warn",
     "Messages written to stderr: error, warn, info, debug or trace."},
    {"map_algorithm", ParamType::String, "rt",
     "Task mapping algorithm of canopy_topomap() and of MPI_Dist_graph_create(_adjacent), MPI_Cart_create and MPI_Graph_create with reorder=1 under libcanopy-mpi.so: identity, block, greedy, rt, rb or scotch."},
    {"map_analytic_iterations", ParamType::Int, "10",
     "MPI task mapping (greedy, rt, rb) on a fabric with coordinates (torus:) and hosts of equal slots: after the refinement, at most this many iterations of analytic placement of the host groups, as canopy map --analytic-placement; 0: none. Outside 0-1000 an error: the ranks keep their order.", 0, 1000},
    {"map_anneal_moves", ParamType::Int, "0",
     "MPI task mapping (greedy, rt, rb): after the refinement, anneal where the host groups go with this many moves per host, as canopy map --anneal-moves; slow (seconds to minutes), 0: none.", 0, 1e9},
    {"map_anneal_process_moves", ParamType::Int, "0",
     "MPI task mapping (greedy, rt, rb): last, anneal single processes between hosts with this many moves per process, as canopy map --anneal-processes; slow (about a second per 10 million moves), 0: none.", 0, 1e9},
    {"map_fabric", ParamType::String, "",
     "Topology source (as canopy map --fabric takes it) that MPI task mapping loads on rank 0; empty: the job's hosts on a single switch."},
    {"map_record_graph", ParamType::String, "",
     "File that libcanopy-mpi.so writes at MPI_Finalize (rank 0): the bytes each rank sent each other point to point and by neighbourhood collectives, as an edge list for canopy map --graph; empty: nothing recorded."},
    {"map_reorder", ParamType::Bool, "1",
     "0: MPI_Dist_graph_create(_adjacent), MPI_Cart_create and MPI_Graph_create with reorder=1 keep the ranks' order under libcanopy-mpi.so (MPI's own constructors; the collectives stay Canopy's)."},
    {"progress_after_s", ParamType::Double, "1",
     "Seconds a long command (canopy map, canopy topo --simgrid) runs before it shows its stages on stderr, when stderr is a terminal; 0: from the start.", 0, 1e9},
    {"reduce_algorithm", ParamType::String, "",
     "Force the Reduce algorithm by name; empty: selection rules."},
    {"scatter_algorithm", ParamType::String, "",
     "Force the Scatter algorithm by name; empty: selection rules."},
    {"service_client_matrix_hosts", ParamType::Int, "256",
     "Most hosts a topology service client names in one matrix request; longer lists are asked in blocks.", 2, 1e6},
    {"service_client_max_answer_bytes", ParamType::Int, "67108864",
     "Longest answer line a topology service client accepts (a matrix for n hosts takes about 30 n^2 bytes).", 64, 1099511627776.0},
    {"service_client_timeout_s", ParamType::Double, "10",
     "Seconds a topology service client waits to resolve and connect, and for each answer, before giving up.", 0.001, 1e6},
    {"service_idle_timeout_s", ParamType::Int, "300",
     "canopyd closes a connection that sent nothing and received nothing for this many seconds.", 0, 1 << 30},
    {"service_listen", ParamType::String, "127.0.0.1:7470",
     "Address and port canopyd listens on (ADDR:PORT; [ADDR]:PORT for IPv6)."},
    {"service_max_clients", ParamType::Int, "10000",
     "Connections canopyd serves at once; one more is answered ERR and closed.", 1, 1 << 24},
    {"service_max_line_bytes", ParamType::Int, "1048576",
     "Longest canopyd request line; a longer one is answered ERR and the connection closed.", 64, 1 << 30},
    {"service_max_matrix_hosts", ParamType::Int, "256",
     "Most hosts in one canopyd matrix request (its cost grows with the square).", 1, 65536},
    {"service_max_pending_bytes", ParamType::Int, "16777216",
     "Answers canopyd holds for a client before it stops answering and reading that client until it reads.", 1024, 17179869184.0},
    // At most a day: far beyond, the reloader's deadline would overflow the clock.
    {"service_poll_ms", ParamType::Int, "1000",
     "How often canopyd checks its dump directory for a new dump (milliseconds).", 10, 86400000},
    {"service_route_cache_bytes", ParamType::Int, "268435456",
     "Memory canopyd keeps, per loaded fabric, for the routes found answering matrix requests (from a switch to a host, 16 bytes each; a switch's row holds one per node of the fabric); 0 keeps none.", 0, 1099511627776.0},
    {"service_threads", ParamType::Int, "0",
     "Threads answering canopyd connections; 0: one per core but one (at least 1), leaving a core to the rest.", 0, 256},
    {"simgrid_core_bandwidth_gbps", ParamType::Double, "80",
     "Per-core SimGrid platforms: bandwidth (Gb/s, each direction) of a core's own link.", 0.001, 1e9},
    {"simgrid_core_latency_us", ParamType::Double, "0.11",
     "Per-core SimGrid platforms: latency (microseconds) of a core's own link; a message between cores crosses two.", 0, 1e9},
    {"simgrid_intersocket_bandwidth_gbps", ParamType::Double, "256",
     "Per-core SimGrid platforms: bandwidth (Gb/s, each direction) between two sockets.", 0.001, 1e9},
    {"simgrid_intersocket_latency_us", ParamType::Double, "0.08",
     "Per-core SimGrid platforms: latency (microseconds) of crossing from one socket to another.", 0, 1e9},
    {"simgrid_socket_bandwidth_gbps", ParamType::Double, "400",
     "Per-core SimGrid platforms: bandwidth (Gb/s) of a socket's memory link, shared by all its traffic.", 0.001, 1e9},
    {"topo_default_gbps", ParamType::Double, "100",
     "Link data rate (Gb/s) assumed where a topology source gives none (Slurm, torus files).", 0.001, 1e9},
    {"topo_delay_bytes", ParamType::Int, "65536",
     "Message size whose transfer time the delay matrix models.", 0, 1099511627776.0},
    {"topo_hop_latency_us", ParamType::Double, "0.1",
     "Per-link latency (microseconds) used by the delay matrix.", 0, 1e9},
    {"topo_server", ParamType::String, "",
     "Topology service (canopyd) address HOST:PORT used when none is given: canopy_service_matrices(), "
     "`canopy query`, and the delays of coll_bcast_leader_order (without it, the leaders' HCA rates)."},
};

const ParamDef *lookup_def(const std::string &name) {
  for (const ParamDef &def : kRegistry)
    if (name == def.name) return &def;
  return nullptr;
}

const ParamDef &find_def(const std::string &name) {
  if (const ParamDef *def = lookup_def(name)) return *def;
  throw Error(CANOPY_ERR_NOT_FOUND, "unknown parameter '" + name + "'");
}

// The config file is read once per path; the environment is read on every lookup.
const nlohmann::json &config_file(const std::string &path) {
  static std::mutex mutex;
  static std::string loaded_path;
  static nlohmann::json loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (path != loaded_path) {
    nlohmann::json parsed = parse_json_object(read_file(path), path, "a JSON object of parameters");
    for (const auto &item : parsed.items())  // a misspelt name would otherwise be ignored without a word
      if (!lookup_def(item.key()))
        throw Error(CANOPY_ERR_PARSE, path + ": unknown parameter '" + printable(item.key()) +
                                          "' (canopy info --config lists them)");
    loaded = std::move(parsed);
    loaded_path = path;
  }
  return loaded;
}

// A bound as people write it: 65536 rather than 65536.000000, 1e+09 beyond 2^53.
std::string bound_text(double bound) {
  if (std::abs(bound) < 9007199254740992.0 && bound == std::floor(bound)) return std::to_string(static_cast<long long>(bound));
  char text[32];
  std::snprintf(text, sizeof text, "%g", bound);
  return text;
}

void check_value(const ParamDef &def, const std::string &text, const std::string &source) {
  const char *s = text.c_str();
  char *end = nullptr;
  bool ok = true;
  double number = 0;
  switch (def.type) {
    case ParamType::Int: number = static_cast<double>(std::strtoll(s, &end, 10)); ok = !text.empty() && *end == 0; break;
    case ParamType::Double: ok = parse_double(text, number) && std::isfinite(number); break;
    case ParamType::Bool: ok = text == "0" || text == "1" || text == "true" || text == "false"; break;
    case ParamType::String: break;
  }
  if (!ok)
    throw Error(CANOPY_ERR_INVALID_ARG, source + ": '" + text + "' is not a valid " +
                                            param_type_name(def.type) + " for " + def.name);
  if ((def.type == ParamType::Int || def.type == ParamType::Double) && !(number >= def.min && number <= def.max))
    throw Error(CANOPY_ERR_INVALID_ARG, source + ": " + def.name + " must be " + param_range(def) + ", not " + text);
}

}  // namespace

const std::vector<ParamDef> &param_registry() { return kRegistry; }

const char *param_type_name(ParamType type) {
  switch (type) {
    case ParamType::Int: return "int";
    case ParamType::Double: return "double";
    case ParamType::Bool: return "bool";
    case ParamType::String: return "string";
  }
  return "?";
}

std::string param_range(const ParamDef &def) {
  if ((def.type != ParamType::Int && def.type != ParamType::Double) || (def.min == -HUGE_VAL && def.max == HUGE_VAL))
    return "";
  return bound_text(def.min) + ".." + bound_text(def.max);
}

std::string param_env_name(const std::string &name) {
  std::string env = "CANOPY_";
  for (char c : name) env += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

std::string param_config_file() {
  const char *path = std::getenv("CANOPY_CONFIG_FILE");
  if (!path || !*path) return "";
  config_file(path);
  return path;
}

ParamValue param_lookup(const std::string &name) {
  const ParamDef &def = find_def(name);
  ParamValue value{def.default_value, "default"};
  if (std::string path = param_config_file(); !path.empty()) {
    const nlohmann::json &config = config_file(path);
    if (auto it = config.find(name); it != config.end()) {
      value = {it->is_string() ? it->get<std::string>() : it->dump(), "config file " + path};
      if (value.text == "true" || value.text == "false") value.text = value.text == "true" ? "1" : "0";
    }
  }
  std::string env = param_env_name(name);
  if (const char *text = std::getenv(env.c_str())) value = {text, "environment " + env};
  check_value(def, value.text, value.source);
  return value;
}

std::string param_string(const std::string &name) { return param_lookup(name).text; }
long long param_int(const std::string &name) { return std::strtoll(param_lookup(name).text.c_str(), nullptr, 10); }
double param_double(const std::string &name) {
  double value = 0;
  parse_double(param_lookup(name).text, value);  // checked when it was set
  return value;
}
bool param_bool(const std::string &name) {
  std::string text = param_lookup(name).text;
  return text == "1" || text == "true";
}

bool param_bool_or(const std::string &name, bool fallback, log::Level level, const char *consequence) noexcept {
  try {
    return param_bool(name);
  } catch (const std::exception &e) {
    if (log::enabled(level)) log::write(level, "%s; %s", e.what(), consequence);
    return fallback;
  }
}

}  // namespace canopy

extern "C" canopy_status_t canopy_config_get(const char *name, char *buf, int len) {
  return canopy::guard([&] {
    if (!name) throw canopy::Error(CANOPY_ERR_INVALID_ARG, "canopy_config_get: the name is NULL");
    if (!buf || len <= 0) throw canopy::Error(CANOPY_ERR_INVALID_ARG, "canopy_config_get: null or empty buffer");
    std::string text = canopy::param_lookup(name).text;
    std::snprintf(buf, static_cast<size_t>(len), "%s", text.c_str());
  });
}
