// The C API of task mapping inside an MPI job (include/canopy/topomap.h).
#include "canopy/topomap.h"

#include "common/error.h"
#include "common/log.h"
#include "topomap/topomap.h"

namespace {

canopy_status_t topomap(MPI_Comm comm, int *newrank, const char *algorithm, const char *caller) {
  // A NULL newrank fails the mapping on every rank: the others must not take new ranks it never learns.
  canopy::topomap::Decision d =
      canopy::topomap::decide(comm, algorithm, newrank ? "" : std::string(caller) + ": newrank is NULL");
  if (newrank) *newrank = d.status == CANOPY_SUCCESS ? d.new_rank[static_cast<size_t>(d.rank)] : d.rank;
  if (d.status != CANOPY_SUCCESS) {
    canopy::set_last_error(d.message);
  } else if (d.rank == 0) {
    CANOPY_LOG(Info, "%s: %s", caller, d.message.c_str());
  }
  return d.status;
}

}  // namespace

extern "C" {

canopy_status_t canopy_topomap(MPI_Comm distgraph_comm, int *newrank) {
  return topomap(distgraph_comm, newrank, "", "canopy_topomap");
}

canopy_status_t canopy_topomap_tree(MPI_Comm distgraph_comm, int *newrank) {
  return topomap(distgraph_comm, newrank, "rt", "canopy_topomap_tree");
}

canopy_status_t canopy_topomap_bipartition(MPI_Comm distgraph_comm, int *newrank) {
  return topomap(distgraph_comm, newrank, "rb", "canopy_topomap_bipartition");
}

}  // extern "C"
