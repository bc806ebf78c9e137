// What the interposed C (mpi_entry.cpp) and Fortran (mpi_fortran.cpp) entry points share.
#pragma once
#include <mpi.h>

#include "topomap/topomap.h"

#define CANOPY_MPI_EXPORT extern "C" __attribute__((visibility("default")))
// A macro argument's parenthesized list, without its parentheses.
#define CANOPY_UNPARENTHESIZED(...) __VA_ARGS__

// Topology constructors with reorder = 1 (distributed graphs, Cartesian grids, MPI-1
// graphs): MPI builds the topology without reordering (@p create(reorder, out) calls MPI's
// own constructor), then Canopy maps it and returns a renumbered communicator of the same
// topology (src/topomap/topomap.h).
template <class Create>
int create_topology(const char *call, MPI_Comm comm_old, int reorder, MPI_Info info, MPI_Comm *out, Create create) {
  if (!canopy::topomap::should_reorder(comm_old, reorder)) return create(reorder, out);
  MPI_Comm built = MPI_COMM_NULL;
  if (int rc = create(0, &built); rc != MPI_SUCCESS) return rc;
  return canopy::topomap::reorder(call, built, info, out);
}

// MPI_Cart_map and MPI_Graph_map: the caller's place in Canopy's mapping of the grid or graph
// that @p create(out) builds on @p comm without reordering, or MPI's own answer, @p map(),
// where Canopy stays out (as the constructors do).
template <class Create, class Map>
int map_topology(const char *call, MPI_Comm comm, int *newrank, Create create, Map map) {
  if (!canopy::topomap::should_reorder(comm, 1)) return map();
  MPI_Comm built = MPI_COMM_NULL;
  if (int rc = create(&built); rc != MPI_SUCCESS) return rc;
  return canopy::topomap::map_rank(call, built, newrank);
}
