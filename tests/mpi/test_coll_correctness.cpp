// Every collective algorithm, forced by name, against PMPI and against the data
// MPI semantics require (the suites are suite_*.cpp): sizes 0, 1, odd,
// 64 KiB+3, 1 MiB+5; every root (a few at large sizes or with --quick);
// MPI_BYTE, MPI_INT, MPI_DOUBLE and a contiguous derived type; MPI_IN_PLACE;
// virtual node layouts imposed with CANOPY_HOSTMAP (real, even, uneven, cyclic,
// one rank per host); communicators from MPI_Comm_dup and from MPI_Comm_split
// with reversed rank order.
// Usage: mpirun -np N test_coll_correctness [SCRATCH_DIR] [--quick]   (SCRATCH_DIR: default /tmp)
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

struct Suite {
  std::string name;
  SuiteFn run;
  double seconds = 0;  // on rank 0, over every layout and communicator
};

std::vector<Suite> &suites() {
  static std::vector<Suite> all;
  return all;
}

// Host of world rank r in each virtual layout ("" = real machine, no host map).
std::string host_of(const std::string &layout, int r) {
  if (layout == "even") return "h" + std::to_string(r / 2);
  if (layout == "cyclic") return "h" + std::to_string(r % 2);
  if (layout == "single") return "h" + std::to_string(r);
  // uneven: hosts of 1, 3, 2, 1, 3, 2, ... ranks
  static const int sizes[] = {1, 3, 2};
  int host = 0, start = 0;
  while (start + sizes[host % 3] <= r) start += sizes[host++ % 3];
  return "h" + std::to_string(host);
}

void use_layout(Context &ctx, const std::string &dir, const std::string &layout) {
  ctx.layout = layout;
  if (layout == "real") {
    unsetenv("CANOPY_HOSTMAP");
    return;
  }
  int id = static_cast<int>(getpid());
  MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string path = dir + "/hostmap-" + std::to_string(id) + "-" + layout;
  if (ctx.world_rank == 0) {
    std::ofstream out(path);
    out << "# " << layout << "\n";
    for (int r = 0; r < ctx.world_size; ++r) out << host_of(layout, r) << "\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("CANOPY_HOSTMAP", path.c_str(), 1);
}

void test_catalog_matches_implementations(Context &ctx) {
  for (const auto &info : canopy::coll::algorithm_catalog())
    ctx.tally.check(canopy::coll::has_implementation(info.coll, info.name),
                    std::string("implementation of ") + info.name);
}

}  // namespace

void Tally::check(bool ok, const std::string &what) {
  if (ok) {
    ++passed;
    return;
  }
  if (++failed <= 10) std::fprintf(stderr, "FAIL %s\n", what.c_str());
}

std::vector<std::string> algorithms(Collective coll) {
  std::vector<std::string> names;
  for (const auto &info : canopy::coll::algorithm_catalog())
    if (info.coll == coll && info.name != std::string(canopy::coll::kLibraryAlgorithm)) names.push_back(info.name);
  names.push_back("");  // the selection rules (nullptr)
  return names;
}

std::string describe(const char *coll, const std::string &alg, const Context &ctx, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return std::string(coll) + " " + (alg.empty() ? "auto" : alg) + " layout=" + ctx.layout + " p=" +
         std::to_string(size) + " ";
}

const std::vector<unsigned char> &pmpi_reference(Context &ctx, MPI_Comm comm, const std::string &key,
                                                 const std::function<std::vector<unsigned char>()> &compute) {
  // The communicator as the world ranks it holds, in its rank order (MPI_Comm_dup copies of
  // one communicator, under any layout, share their references).
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int size;
  MPI_Group_size(group, &size);
  std::vector<int> ranks(size), in_world(size);
  for (int r = 0; r < size; ++r) ranks[r] = r;
  MPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  std::string full = key + " on";
  for (int r : in_world) full += " " + std::to_string(r);
  auto it = ctx.references.find(full);
  if (it == ctx.references.end()) it = ctx.references.emplace(full, compute()).first;
  return it->second;
}

SuiteRegistration::SuiteRegistration(const char *name, SuiteFn fn) { suites().push_back({name, fn}); }

}  // namespace coll_test

int main(int argc, char **argv) {
  using namespace coll_test;
  MPI_Init(&argc, &argv);
  Context ctx;
  MPI_Comm_rank(MPI_COMM_WORLD, &ctx.world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ctx.world_size);
  std::string dir = "/tmp";  // for the host maps
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick")
      ctx.quick = true;
    else
      dir = argv[i];
  }
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  ctx.types = {{MPI_BYTE, "MPI_BYTE"}, {MPI_INT, "MPI_INT"}, {MPI_DOUBLE, "MPI_DOUBLE"}, {triple, "contiguous(3,MPI_INT)"}};
  // Static registration order differs between link orders, never between ranks; sorted anyway.
  std::sort(suites().begin(), suites().end(), [](const Suite &a, const Suite &b) { return a.name < b.name; });
  test_catalog_matches_implementations(ctx);
  for (const char *layout : {"real", "even", "uneven", "cyclic", "single"}) {
    if (ctx.quick && std::string(layout) != "uneven" && std::string(layout) != "cyclic") continue;
    use_layout(ctx, dir, layout);
    for (int split = 0; split < 2; ++split) {
      MPI_Comm comm;
      if (split)  // reversed rank order, two halves: ranks of one host are no longer consecutive
        MPI_Comm_split(MPI_COMM_WORLD, ctx.world_rank % 2, -ctx.world_rank, &comm);
      else
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
      for (Suite &suite : suites()) {
        double start = MPI_Wtime();
        suite.run(ctx, comm);
        suite.seconds += MPI_Wtime() - start;
      }
      MPI_Comm_free(&comm);
    }
  }
  long local[2] = {ctx.tally.passed, ctx.tally.failed}, total[2];
  MPI_Reduce(local, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (ctx.world_rank == 0) {
    std::printf("seconds per suite:");
    for (const Suite &suite : suites()) std::printf(" %s %.1f", suite.name.c_str(), suite.seconds);
    std::printf("\n");
    std::printf("coll correctness, %d ranks%s: %ld passed, %ld failed\n", ctx.world_size, ctx.quick ? " (quick)" : "",
                total[0], total[1]);
  }
  MPI_Type_free(&triple);
  MPI_Finalize();
  return ctx.world_rank == 0 && total[1] ? 1 : 0;
}
