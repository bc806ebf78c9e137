// The C API of task mapping inside an MPI job (include/canopy/topomap.h).
#include "canopy/topomap.h"

#include "common/error.h"
#include "common/log.h"
#include "topomap/topomap.h"

namespace {

canopy_status_t topomap(MPI_Comm comm, int *newrank, const char *algorithm, const char *caller) {
  canopy::topomap::Decision d = canopy::topomap::decide(comm, algorithm);
  int rank = MPI_UNDEFINED;
  if (comm != MPI_COMM_NULL && PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) rank = MPI_UNDEFINED;
  if (d.status == CANOPY_SUCCESS && !newrank) {  // found after the collective part, which every rank ran
    d.status = CANOPY_ERR_INVALID_ARG;
    d.message = std::string(caller) + ": newrank is NULL";
  }
  if (newrank) *newrank = d.status == CANOPY_SUCCESS && rank >= 0 ? d.new_rank[static_cast<size_t>(rank)] : rank;
  if (d.status != CANOPY_SUCCESS) {
    canopy::set_last_error(d.message);
  } else if (rank == 0) {
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
