// Rank 0 gathering every rank's variable-length part, for the task mapping's MPI side
// (topomap.cpp's decision, recorder.cpp's graph).
#pragma once
#include <mpi.h>

#include <vector>

#include "coll/p2p.h"

namespace canopy::topomap {

/** MPI_Gatherv of @p mine to rank 0, @p counts[r] elements from rank r (read on rank 0 only;
    empty elsewhere), in rank order. Throws Error when MPI fails. */
template <class T>
std::vector<T> gather(const std::vector<T> &mine, const std::vector<int> &counts, MPI_Datatype type, MPI_Comm comm) {
  std::vector<int> displs(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<T> all(counts.empty() ? 0 : static_cast<size_t>(displs.back() + counts.back()));
  coll::check_mpi(PMPI_Gatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), counts.data(),
                               displs.data(), type, 0, comm),
                  "MPI_Gatherv");
  return all;
}

}  // namespace canopy::topomap
