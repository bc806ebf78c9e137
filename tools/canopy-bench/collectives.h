// The collectives `canopy bench` measures, as a table: one entry per collective
// says how big its buffers are, how to call it through Canopy (an algorithm by
// name, or the selection rules) and through the MPI library (PMPI_*), and how to
// fill inputs and check results for -c. Adding a collective is adding one entry
// (see docs/cli.md, "Adding a collective to canopy bench").
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coll/hierarchy.h"
#include "coll/plan/catalog.h"

namespace canopy::bench {

/** One call's arguments. bytes is the size a row reports, as OSU reports it: the Bcast, Reduce
    and Allreduce message, one rank's block for Allgather, Scatter, Gather and Alltoall (0 for
    Barrier). */
struct Call {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  size_t bytes = 0;
  int root = 0;
  char *send = nullptr, *recv = nullptr;  // send_bytes() and recv_bytes() long
};

struct CollectiveEntry {
  const char *name;   // command-line name, as in the catalogue ("bcast")
  const char *title;  // for the OSU header: "# Canopy MPI <title> Latency Test"
  coll::Collective catalog;
  bool rooted;        // takes -k (root rank)
  bool sized;         // false: a single row without a size (Barrier), -m does not apply
  const char *datatype;   // for the OSU header: "MPI_CHAR", "MPI_FLOAT" (reductions, as osu_reduce)
  size_t element_bytes;   // sizes are multiples of the datatype's size (4 B and up for MPI_FLOAT)

  size_t (*send_bytes)(size_t bytes, int ranks);
  size_t (*recv_bytes)(size_t bytes, int ranks);
  /** Canopy's entry point; @p algorithm: a catalogue name, or nullptr for the selection rules. */
  int (*run_canopy)(const Call &c, const char *algorithm);
  /** The MPI library's own collective (PMPI_*). */
  int (*run_mpi)(const Call &c);
  /** Why @p algorithm (a catalogue name) cannot run on @p h, "" if it can. */
  std::string (*why_not)(const coll::Hierarchy &h, const std::string &algorithm);
  /** Inputs for a validated call (and a poison in the outputs); nullptr: nothing to validate. */
  void (*fill)(const Call &c, uint32_t seed);
  /** Wrong bytes after a validated call. */
  size_t (*count_errors)(const Call &c, uint32_t seed);
};

const std::vector<CollectiveEntry> &collective_table();
/** nullptr when @p name is not in the table. */
const CollectiveEntry *find_collective(const std::string &name);
/** "bcast, allgather, barrier, ..." for messages. */
std::string collective_names();

/** Byte @p i of the data rank @p origin contributes in the call validated with @p seed. */
uint8_t pattern(uint32_t seed, int origin, size_t i);

}  // namespace canopy::bench
