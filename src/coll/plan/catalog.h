// The catalogue of collective algorithms: names, one-line summaries and the
// parameters each one reads. Pure data without MPI, so `canopy info
// --algorithms` and the selection rules work in builds without MPI; the MPI
// library checks at start-up that it implements exactly these names.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace canopy::coll {

enum class Collective { Bcast, Allgather, Barrier, Scatter, Gather, Alltoall, Reduce, Allreduce };
/** Every collective's algorithm that hands the call to the MPI library (PMPI_*). */
constexpr const char *kLibraryAlgorithm = "mpi";
constexpr size_t kCollectives = static_cast<size_t>(Collective::Allreduce) + 1;

const char *collective_name(Collective coll);  // "bcast", "allgather", "barrier", "scatter", ...
const std::vector<Collective> &all_collectives();

struct AlgorithmInfo {
  Collective coll;
  const char *name;
  const char *summary;
  std::vector<const char *> params;  // registry parameters the algorithm reads
};

const std::vector<AlgorithmInfo> &algorithm_catalog();
/** nullptr when @p name is not an algorithm of @p coll. */
const AlgorithmInfo *find_algorithm(Collective coll, const std::string &name);
/** "binomial, knomial, ..." for error messages. */
std::string algorithm_names(Collective coll);

}  // namespace canopy::coll
