// Shared by the collective correctness suites (suite_*.cpp, one per collective
// family, all linked into test_coll_correctness): tallies, data patterns,
// datatypes, and the algorithm names to force. Each suite registers itself with
// CANOPY_COLL_SUITE and is run by main() on every virtual layout and communicator.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "coll/plan/catalog.h"

namespace coll_test {

using canopy::coll::Collective;

struct Tally {
  long passed = 0, failed = 0;
  void check(bool ok, const std::string &what);
};

struct TypeCase {
  MPI_Datatype type;
  const char *name;
};

struct Context {
  int world_rank = 0, world_size = 1;
  bool quick = false;
  std::string layout;
  std::vector<TypeCase> types;  // MPI_BYTE, MPI_INT, MPI_DOUBLE, contiguous(3, MPI_INT)
  Tally tally;
  std::map<std::string, std::vector<unsigned char>> references;  // see pmpi_reference
};

/** Byte i of the data owned by (a, b), e.g. (rank, count). */
inline unsigned char pattern(size_t i, int a, int b) { return static_cast<unsigned char>(i * 131 + a * 17 + b * 7 + 1); }

/** Every catalogue name of @p coll, then "" for the selection rules. */
std::vector<std::string> algorithms(Collective coll);
/** nullptr for "" (selection rules), else the name. */
inline const char *forced(const std::string &name) { return name.empty() ? nullptr : name.c_str(); }
/** "bcast knomial layout=uneven p=5 " for failure messages. */
std::string describe(const char *coll, const std::string &alg, const Context &ctx, MPI_Comm comm);

/** PMPI's result for one input on @p comm: @p compute (a PMPI call, collective) runs on the
    first use of @p key and its result is kept. It depends on the input and on which world ranks
    @p comm holds in which order, never on the algorithm or the virtual layout, so each reference
    is computed once per run instead of once per algorithm and layout: the same comparisons at a
    fraction of the PMPI calls (MPICH's spin without yielding, which made them most of the suite's
    time on 2 cores). Every rank must pass the same keys in the same order. */
const std::vector<unsigned char> &pmpi_reference(Context &ctx, MPI_Comm comm, const std::string &key,
                                                 const std::function<std::vector<unsigned char>()> &compute);

using SuiteFn = void (*)(Context &ctx, MPI_Comm comm);
struct SuiteRegistration {
  SuiteRegistration(const char *name, SuiteFn fn);
};

}  // namespace coll_test

#define CANOPY_COLL_SUITE(name, fn) static const coll_test::SuiteRegistration suite_registration_##fn(name, fn)
