#include "map/outputs.h"

#include <cstdint>
#include <string>
#include <unordered_map>

#include "common/error.h"
#include "common/text.h"

namespace canopy::map {

std::string openmpi_rankfile(const Machine &m, const std::vector<int> &slot_of) {
  std::string out;
  for (size_t r = 0; r < slot_of.size(); ++r) {
    int local = m.local_slot(slot_of[r]);
    int cpu = m.node() ? m.node()->slot_cpu[static_cast<size_t>(local)] : local;
    out += "rank " + std::to_string(r) + "=" + m.host_name(m.host_of_slot(slot_of[r])) + " slot=" + std::to_string(cpu) + "\n";
  }
  return out;
}

std::vector<RankfileEntry> read_rankfile(std::string_view text, const std::string &file) {
  std::vector<RankfileEntry> entries;
  std::unordered_map<int, size_t> line_of;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next_content(line)) {
    std::vector<std::string_view> fields = split_fields(line);
    RankfileEntry entry;
    entry.line = cursor.number();
    size_t equals = fields.size() == 3 ? fields[1].find('=') : std::string_view::npos;
    uint64_t rank = 0, cpu = 0;
    if (fields.size() != 3 || fields[0] != "rank" || equals == std::string_view::npos || equals + 1 == fields[1].size() ||
        !parse_uint(fields[1].substr(0, equals), rank, 10) || rank > INT32_MAX || !starts_with(fields[2], "slot=") ||
        !parse_uint(fields[2].substr(5), cpu, 10) || cpu > INT32_MAX)
      throw parse_error(file, entry.line, "expected 'rank R=HOST slot=CPU' (R and CPU numbers), got '" + printable(line) + "'");
    entry.rank = static_cast<int>(rank);
    entry.host = std::string(fields[1].substr(equals + 1));
    entry.cpu = static_cast<int>(cpu);
    auto [it, added] = line_of.emplace(entry.rank, entry.line);
    if (!added)
      throw parse_error(file, entry.line, "rank " + std::to_string(entry.rank) + " is placed again (first on line " +
                                              std::to_string(it->second) + ")");
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string slurm_hostfile(const Machine &m, const std::vector<int> &slot_of) {
  std::string out;
  for (int slot : slot_of) out += m.host_name(m.host_of_slot(slot)) + "\n";
  return out;
}

std::string mpich_machinefile(const Machine &m, const std::vector<int> &slot_of) {
  std::string out;
  for (size_t r = 0; r < slot_of.size();) {
    int host = m.host_of_slot(slot_of[r]);
    size_t run = r;
    while (run < slot_of.size() && m.host_of_slot(slot_of[run]) == host) ++run;
    const std::string &name = m.host_name(host);
    if (name.find(':') != std::string::npos)
      throw Error(CANOPY_ERR_INVALID_ARG, "host '" + name + "' cannot be named in an MPICH machine file: mpiexec reads " +
                                              "what follows its ':' as a process count");
    out += name + ":" + std::to_string(run - r) + "\n";
    r = run;
  }
  return out;
}

namespace {

// The slots of every host: one number when they all have as many, else a list in allocation order.
nlohmann::json slots_per_host(const Machine &m) {
  if (m.uniform_slots()) return m.uniform_slots();
  nlohmann::json slots = nlohmann::json::array();
  for (int h = 0; h < m.num_hosts(); ++h) slots.push_back(m.slots(h));
  return slots;
}

}  // namespace

std::string permutation_text(const std::vector<int> &slot_of) {
  std::string out;
  for (int slot : slot_of) out += std::to_string(slot) + "\n";
  return out;
}

nlohmann::json map_report_json(const Problem &p, const MapResult &r, const Metrics &metrics, const Metrics &identity) {
  nlohmann::json seconds = nlohmann::json::object();
  for (const auto &[phase, s] : r.seconds) seconds[phase] = s;
  nlohmann::json j = {{"algorithm", r.algorithm},
                      {"tree", r.tree.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tree)},
                      {"groups", r.groups.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.groups)},
                      {"coarsening_levels", r.coarsening_levels},
                      {"target", r.target.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.target)},
                      {"intra_node", r.intra_node},
                      {"refined_from", r.refined_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.refined_from)},
                      {"moved_groups", r.moved_groups},
                      {"processes", p.graph.num_vertices()},
                      {"edges", p.graph.num_edges()},
                      {"hosts", p.machine.num_hosts()},
                      {"slots_per_host", slots_per_host(p.machine)},
                      {"node_topology", p.machine.node() ? nlohmann::json(p.machine.node()->spec) : nlohmann::json(nullptr)},
                      {"slots_on", p.machine.node() ? nlohmann::json(topo::cpu_level_name(p.machine.node()->level)) : nlohmann::json(nullptr)},
                      {"seconds", seconds},
                      {"metrics", metrics_json(metrics)},
                      {"identity", metrics_json(identity)}};
  j["hop_bytes_vs_identity"] = identity.hop_bytes > 0 ? nlohmann::json(metrics.hop_bytes / identity.hop_bytes) : nlohmann::json(nullptr);
  return j;
}

}  // namespace canopy::map
