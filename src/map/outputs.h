// What a mapping is handed over as, so that the job launches with it and no code
// change: an Open MPI rankfile, a Slurm arbitrary-distribution host list, an
// MPICH (Hydra) machine file, the bare permutation, and a JSON report.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "map/mapping.h"
#include "map/metrics.h"

namespace canopy::map {

/** "rank R=HOST slot=CPU" per process (mpirun --rankfile FILE): CPU is the slot's
    core (logical index) when the machine knows its nodes, its PU where the slots are
    on PUs (mpirun --use-hwthread-cpus --rankfile FILE), else the local slot number. */
std::string openmpi_rankfile(const Machine &machine, const std::vector<int> &slot_of_process);

/** A line of a rankfile as openmpi_rankfile writes it. */
struct RankfileEntry {
  int rank = 0;
  std::string host;
  int cpu = 0;      // slot=CPU
  size_t line = 0;  // 1-based
};

/** The lines of a rankfile ("rank R=HOST slot=CPU"; blank lines and # comments
    skipped), the inverse of openmpi_rankfile. Error(PARSE) with FILE:LINE for any
    other line or a rank given twice. */
std::vector<RankfileEntry> read_rankfile(std::string_view text, const std::string &file);

/** One host name per line, line r for rank r: SLURM_HOSTFILE=FILE srun --distribution=arbitrary. */
std::string slurm_hostfile(const Machine &machine, const std::vector<int> &slot_of_process);

/** "HOST:COUNT" lines, consecutive ranks on one host joined (mpiexec.hydra -f FILE fills lines in order).
    Throws Error(INVALID_ARG) for a host name with a ':', which Hydra would split. */
std::string mpich_machinefile(const Machine &machine, const std::vector<int> &slot_of_process);

/** Line i: the slot of process i (hosts in allocation order, slots_per_host each). */
std::string permutation_text(const std::vector<int> &slot_of_process);

/** {"algorithm", "tree", "groups", "coarsening_levels", "intra_node", "refined_from", "processes", "hosts",
    "slots_per_host", "node_topology", "slots_on" ("core" or "PU"; null without a node topology), "seconds", "metrics", "identity", "hop_bytes_vs_identity"}. */
nlohmann::json map_report_json(const Problem &problem, const MapResult &result, const Metrics &metrics,
                               const Metrics &identity);

}  // namespace canopy::map
