#include "topomap/recorder.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coll/dispatch.h"
#include "coll/p2p.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/params.h"
#include "topomap/gather.h"
#include "topomap/topomap.h"

namespace canopy::topomap {
namespace {

std::atomic<bool> g_recording{false};  // read without the lock on every send
std::mutex g_mutex;  // sends from several threads (MPI_THREAD_MULTIPLE) add up one at a time
std::string g_path;
std::vector<uint64_t> g_bytes;  // bytes this rank sent to each MPI_COMM_WORLD rank
int g_comm_keyval = MPI_KEYVAL_INVALID;  // on a communicator: its CommRecord
int g_finalize_keyval = MPI_KEYVAL_INVALID;

// What the recorder keeps of a communicator until it is freed, so that a send asks MPI about
// its communicator once, not each time.
struct CommRecord {
  // The MPI_COMM_WORLD rank of every rank (MPI_UNDEFINED for a process outside the world);
  // none for an inter-communicator, whose sends are not counted.
  std::vector<int> world;
  // A topology communicator's out-neighbours, in the order of the neighbourhood collectives'
  // blocks (MPI_PROC_NULL where a Cartesian dimension ends); read at the first such collective.
  std::optional<std::vector<int>> out_neighbours;
};
// The communicator of the last send and its record (an attribute lookup takes a lock and a hash).
MPI_Comm g_last_comm = MPI_COMM_NULL;
CommRecord *g_last_record = nullptr;

int delete_record(MPI_Comm, int, void *value, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (value == g_last_record) g_last_comm = MPI_COMM_NULL, g_last_record = nullptr;
  delete static_cast<CommRecord *>(value);
  return MPI_SUCCESS;
}

// @p comm's record, made at its first send; nullptr for a handle that is no communicator (MPI's
// own call says so).
CommRecord *comm_record(MPI_Comm comm) {
  if (comm == g_last_comm) return g_last_record;
  void *value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_comm_keyval, &value, &found) != MPI_SUCCESS) return nullptr;
  if (!found) {
    int size = 0, inter = 1;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
    std::vector<int> ranks(inter ? 0 : static_cast<size_t>(size)), world(ranks.size(), MPI_UNDEFINED);
    std::iota(ranks.begin(), ranks.end(), 0);
    MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    PMPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world_group, world.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
    value = new CommRecord{std::move(world), std::nullopt};
    PMPI_Comm_set_attr(comm, g_comm_keyval, value);
  }
  g_last_comm = comm;
  g_last_record = static_cast<CommRecord *>(value);
  return g_last_record;
}

// The out-neighbours of topology communicator @p comm in the order of its neighbourhood
// collectives' send blocks: a distributed graph's destinations, or neighbour_order's. Empty for a
// communicator without a topology (MPI's own call refuses it).
std::vector<int> out_neighbours(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  coll::check_mpi(PMPI_Topo_test(comm, &kind), "MPI_Topo_test");
  if (kind == MPI_CART || kind == MPI_GRAPH) return neighbour_order(comm, kind);
  if (kind != MPI_DIST_GRAPH) return {};
  int indegree = 0, outdegree = 0, weighted = 0;
  coll::check_mpi(PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted),
                  "MPI_Dist_graph_neighbors_count");
  std::vector<int> sources(static_cast<size_t>(indegree) + 1), weights(sources.size() + outdegree),
      out(static_cast<size_t>(outdegree) + 1);  // never empty: data() is no MPI_UNWEIGHTED
  coll::check_mpi(PMPI_Dist_graph_neighbors(comm, indegree, sources.data(), weights.data(), outdegree, out.data(),
                                            weights.data() + indegree + 1),
                  "MPI_Dist_graph_neighbors");
  out.pop_back();
  return out;
}

// The counts of every rank on rank 0, written as an edge list.
void gather_and_write() {
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<uint64_t> mine;  // (destination, bytes) pairs
  for (size_t dst = 0; dst < g_bytes.size(); ++dst)
    if (g_bytes[dst] > 0) mine.insert(mine.end(), {dst, g_bytes[dst]});
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? static_cast<size_t>(size) : 0);
  coll::check_mpi(PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<uint64_t> all = gather(mine, counts, MPI_UINT64_T, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::string text = "# the bytes each rank sent each other point to point and by neighbourhood collectives "
                     "(MPI_COMM_WORLD ranks), recorded by libcanopy-mpi.so (map_record_graph)\nprocesses " +
                     std::to_string(size) + "\n";
  uint64_t total = 0;
  size_t at = 0;
  for (size_t src = 0; src < counts.size(); ++src)
    for (int i = 0; i < counts[src]; i += 2, at += 2) {
      text += std::to_string(src) + " " + std::to_string(all[at]) + " " + std::to_string(all[at + 1]) + "\n";
      total += all[at + 1];
    }
  size_t edges = all.size() / 2;
  write_file_atomic(g_path, text);
  CANOPY_LOG(Info, "map_record_graph: %zu edges between %d ranks, %llu bytes, written to %s", edges, size,
             static_cast<unsigned long long>(total), g_path.c_str());
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works, on every rank.
int write_at_finalize(MPI_Comm, int, void *, void *) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_recording = false;  // what the application's own finalize callbacks send is not counted
  }
  try {
    gather_and_write();
  } catch (const std::exception &e) {
    CANOPY_LOG(Warn, "map_record_graph: the graph was not written: %s", e.what());
  }
  PMPI_Comm_free_keyval(&g_comm_keyval);
  PMPI_Comm_free_keyval(&g_finalize_keyval);
  return MPI_SUCCESS;
}

}  // namespace

void start_recording() noexcept {
  try {
    if (coll::disabled() || (g_path = param_string("map_record_graph")).empty()) return;
    int size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    g_bytes.assign(static_cast<size_t>(size), 0);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_record, &g_comm_keyval, nullptr);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, write_at_finalize, &g_finalize_keyval, nullptr);
    PMPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_keyval, nullptr);
    g_recording = true;
  } catch (const std::exception &e) {
    CANOPY_LOG(Warn, "map_record_graph: not recording: %s", e.what());
  }
}

namespace {

// A send's destination as an MPI_COMM_WORLD rank and its bytes; {-1, 0} for one not counted
// (MPI_PROC_NULL, an inter-communicator, arguments MPI will refuse). Under g_mutex.
std::pair<int, uint64_t> destination(int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  int type_size = 0;
  if (count <= 0 || dest < 0 || comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL ||
      PMPI_Type_size(type, &type_size) != MPI_SUCCESS)
    return {-1, 0};
  int world = dest;
  if (comm != MPI_COMM_WORLD) {
    const CommRecord *record = comm_record(comm);
    world = record && static_cast<size_t>(dest) < record->world.size() ? record->world[static_cast<size_t>(dest)] : -1;
  }
  if (world < 0 || static_cast<size_t>(world) >= g_bytes.size()) return {-1, 0};
  return {world, static_cast<uint64_t>(count) * static_cast<uint64_t>(type_size)};
}

void add(std::pair<int, uint64_t> sent) {
  if (sent.first >= 0) g_bytes[static_cast<size_t>(sent.first)] += sent.second;
}

// Persistent sends (MPI_Send_init and its forms): where each goes, counted at every start.
std::unordered_map<MPI_Request, std::pair<int, uint64_t>> g_persistent;

}  // namespace

bool recording() noexcept { return g_recording.load(std::memory_order_relaxed); }

void record_send(int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_recording) add(destination(count, type, dest, comm));
  } catch (...) {  // out of memory for a communicator's ranks: that send is not counted
  }
}

void record_neighbor_sends(MPI_Comm comm, const std::function<std::pair<int, MPI_Datatype>(int)> &block) noexcept {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    CommRecord *record = g_recording && comm != MPI_COMM_NULL ? comm_record(comm) : nullptr;
    if (!record) return;
    if (!record->out_neighbours) record->out_neighbours = out_neighbours(comm);
    const std::vector<int> &out = *record->out_neighbours;
    for (size_t i = 0; i < out.size(); ++i) {
      auto [count, type] = block(static_cast<int>(i));
      add(destination(count, type, out[i], comm));
    }
  } catch (...) {
  }
}

void record_persistent_send(MPI_Request request, int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept {
  if (!g_recording.load(std::memory_order_relaxed) || request == MPI_REQUEST_NULL) return;
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (std::pair<int, uint64_t> sent = destination(count, type, dest, comm); g_recording && sent.first >= 0)
      g_persistent[request] = sent;
  } catch (...) {
  }
}

void record_starts(int count, const MPI_Request *requests) noexcept {
  if (!g_recording.load(std::memory_order_relaxed) || count <= 0 || !requests) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_recording || g_persistent.empty()) return;
  for (int i = 0; i < count; ++i)
    if (auto it = g_persistent.find(requests[i]); it != g_persistent.end()) add(it->second);
}

void forget_request(MPI_Request request) noexcept {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_persistent.erase(request);
}

}  // namespace canopy::topomap
