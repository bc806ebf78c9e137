// Shared by the collective correctness suites (suite_*.cpp, one per collective
// family, all linked into test_coll_correctness): tallies, data patterns,
// datatypes, and the algorithm names to force. Each suite registers itself with
// CANOPY_COLL_SUITE and is run by main() on every virtual layout and communicator.
#pragma once
#include <mpi.h>

#include <cstddef>
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
};

/** Byte i of the data owned by (a, b), e.g. (rank, count). */
inline unsigned char pattern(size_t i, int a, int b) { return static_cast<unsigned char>(i * 131 + a * 17 + b * 7 + 1); }

/** Every catalogue name of @p coll, then "" for the selection rules. */
std::vector<std::string> algorithms(Collective coll);
/** nullptr for "" (selection rules), else the name. */
inline const char *forced(const std::string &name) { return name.empty() ? nullptr : name.c_str(); }
/** "bcast knomial layout=uneven p=5 " for failure messages. */
std::string describe(const char *coll, const std::string &alg, const Context &ctx, MPI_Comm comm);

using SuiteFn = void (*)(Context &ctx, MPI_Comm comm);
struct SuiteRegistration {
  SuiteRegistration(const char *name, SuiteFn fn);
};

}  // namespace coll_test

#define CANOPY_COLL_SUITE(name, fn) static const coll_test::SuiteRegistration suite_registration_##fn(name, fn)
