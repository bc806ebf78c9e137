// Every collective algorithm, forced by name, against PMPI and against the data
// MPI semantics require: sizes 0, 1, odd, 64 KiB+3, 1 MiB+5; every root (a few at
// large sizes or with --quick); MPI_BYTE, MPI_INT, MPI_DOUBLE and a contiguous
// derived type; MPI_IN_PLACE; virtual node layouts imposed with CANOPY_HOSTMAP
// (real, even, uneven, cyclic, one rank per host); communicators from
// MPI_Comm_dup and from MPI_Comm_split with reversed rank order.
// Usage: mpirun -np N test_coll_correctness SCRATCH_DIR [--quick]
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "coll/algorithms.h"
#include "coll/dispatch.h"
#include "coll/plan/catalog.h"

namespace {

using canopy::coll::Collective;

struct Tally {
  long passed = 0, failed = 0;
  void check(bool ok, const std::string &what) {
    if (ok) {
      ++passed;
      return;
    }
    if (++failed <= 10) std::fprintf(stderr, "FAIL %s\n", what.c_str());
  }
};

struct Context {
  int world_rank = 0, world_size = 1;
  bool quick = false;
  std::string layout;
  Tally tally;
};

unsigned char pattern(size_t i, int a, int b) { return static_cast<unsigned char>(i * 131 + a * 17 + b * 7 + 1); }

std::vector<std::string> algorithms(Collective coll) {
  std::vector<std::string> names;
  for (const auto &info : canopy::coll::algorithm_catalog())
    if (info.coll == coll) names.push_back(info.name);
  names.push_back("");  // the selection rules (nullptr)
  return names;
}

const char *forced(const std::string &name) { return name.empty() ? nullptr : name.c_str(); }

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

struct TypeCase {
  MPI_Datatype type;
  const char *name;
};

void test_bcast_case(Context &ctx, MPI_Comm comm, const std::string &alg, const TypeCase &t, int count, int root) {
  int rank, size, type_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Type_size(t.type, &type_size);
  size_t bytes = static_cast<size_t>(count) * type_size, guard = 64;
  std::vector<unsigned char> buf(bytes + guard, 0xEE), ref(bytes + guard, 0xEE);
  if (rank == root)
    for (size_t i = 0; i < bytes; ++i) buf[i] = ref[i] = pattern(i, root, count);
  for (size_t i = bytes; i < bytes + guard; ++i) buf[i] = ref[i] = 0xA5;
  int rc = canopy::coll::bcast(buf.data(), count, t.type, root, comm, forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (size_t i = 0; ok && i < bytes; ++i) ok = buf[i] == pattern(i, root, count);
  for (size_t i = bytes; ok && i < bytes + guard; ++i) ok = buf[i] == 0xA5;
  if (bytes <= 65539) {  // PMPI reference for the sizes where it is cheap
    PMPI_Bcast(ref.data(), count, t.type, root, comm);
    ok = ok && std::memcmp(ref.data(), buf.data(), bytes + guard) == 0;
  }
  ctx.tally.check(ok, "bcast " + (alg.empty() ? "auto" : alg) + " layout=" + ctx.layout + " p=" +
                          std::to_string(size) + " count=" + std::to_string(count) + " " + t.name + " root=" +
                          std::to_string(root));
}

void test_bcast(Context &ctx, MPI_Comm comm, const std::vector<TypeCase> &types) {
  int size;
  MPI_Comm_size(comm, &size);
  const int small[] = {0, 1, 7, 4099};
  for (const std::string &alg : algorithms(Collective::Bcast)) {
    int t = 0;
    for (int count : small)
      for (int root = 0; root < size; ++root)
        if (!ctx.quick || root == 0 || root == size - 1 || root == size / 2)
          test_bcast_case(ctx, comm, alg, types[t++ % types.size()], count, root);
    for (int count : {65539, 1048581})
      if (!ctx.quick || count == 65539)
        for (int root : {0, size - 1}) test_bcast_case(ctx, comm, alg, types[0], count, root);
  }
}

void test_allgather_case(Context &ctx, MPI_Comm comm, const std::string &alg, const TypeCase &t, int count,
                         bool in_place) {
  int rank, size, type_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Type_size(t.type, &type_size);
  size_t block = static_cast<size_t>(count) * type_size, total = block * size, guard = 64;
  std::vector<unsigned char> send(block), recv(total + guard, 0xEE), ref(total + guard, 0xEE);
  for (size_t i = 0; i < block; ++i) send[i] = pattern(i, rank, count);
  for (size_t i = total; i < total + guard; ++i) recv[i] = ref[i] = 0xA5;
  if (in_place) std::memcpy(recv.data() + rank * block, send.data(), block);
  int rc = canopy::coll::allgather(in_place ? MPI_IN_PLACE : send.data(), count, t.type, recv.data(), count, t.type,
                                   comm, forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (int r = 0; ok && r < size; ++r)
    for (size_t i = 0; ok && i < block; ++i) ok = recv[r * block + i] == pattern(i, r, count);
  for (size_t i = total; ok && i < total + guard; ++i) ok = recv[i] == 0xA5;
  PMPI_Allgather(send.data(), count, t.type, ref.data(), count, t.type, comm);
  ok = ok && std::memcmp(ref.data(), recv.data(), total + guard) == 0;
  ctx.tally.check(ok, "allgather " + (alg.empty() ? "auto" : alg) + " layout=" + ctx.layout + " p=" +
                          std::to_string(size) + " count=" + std::to_string(count) + " " + t.name +
                          (in_place ? " in_place" : ""));
}

void test_allgather(Context &ctx, MPI_Comm comm, const std::vector<TypeCase> &types) {
  int size;
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Allgather)) {
    int t = 0;
    for (int count : {0, 1, 7, 4099})
      for (bool in_place : {false, true}) test_allgather_case(ctx, comm, alg, types[t++ % types.size()], count, in_place);
    if (size <= 8) test_allgather_case(ctx, comm, alg, types[0], 65539, t % 2);
    if (size <= 4 && !ctx.quick) test_allgather_case(ctx, comm, alg, types[0], 1048581, false);
  }
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A barrier is correct when nobody leaves before the last rank has entered.
void test_barrier(Context &ctx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Barrier)) {
    for (int round = 0; round < 3; ++round) {
      int late = (round * 5 + 1) % size;
      double entered = 0;
      if (rank == late) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        entered = now();
      }
      int rc = canopy::coll::barrier(comm, forced(alg));
      double left = now();
      PMPI_Bcast(&entered, 1, MPI_DOUBLE, late, comm);
      ctx.tally.check(rc == MPI_SUCCESS && left >= entered,
                      "barrier " + (alg.empty() ? "auto" : alg) + " layout=" + ctx.layout + " p=" + std::to_string(size));
    }
    bool ok = true;
    for (int i = 0; i < 50; ++i) ok = ok && canopy::coll::barrier(comm, forced(alg)) == MPI_SUCCESS;
    ctx.tally.check(ok, "50 barriers " + (alg.empty() ? "auto" : alg));
  }
}

void test_catalog_matches_implementations(Context &ctx) {
  for (const auto &info : canopy::coll::algorithm_catalog()) {
    bool found = (info.coll == Collective::Bcast && canopy::coll::bcast_implementation(info.name)) ||
                 (info.coll == Collective::Allgather && canopy::coll::allgather_implementation(info.name)) ||
                 (info.coll == Collective::Barrier && canopy::coll::barrier_implementation(info.name));
    ctx.tally.check(found, std::string("implementation of ") + info.name);
  }
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Context ctx;
  MPI_Comm_rank(MPI_COMM_WORLD, &ctx.world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ctx.world_size);
  std::string dir = argc > 1 ? argv[1] : "/tmp";
  ctx.quick = argc > 2 && std::string(argv[2]) == "--quick";
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  std::vector<TypeCase> types = {{MPI_BYTE, "MPI_BYTE"}, {MPI_INT, "MPI_INT"}, {MPI_DOUBLE, "MPI_DOUBLE"},
                                 {triple, "contiguous(3,MPI_INT)"}};
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
      test_bcast(ctx, comm, types);
      test_allgather(ctx, comm, types);
      test_barrier(ctx, comm);
      MPI_Comm_free(&comm);
    }
  }
  long local[2] = {ctx.tally.passed, ctx.tally.failed}, total[2];
  MPI_Reduce(local, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (ctx.world_rank == 0)
    std::printf("coll correctness, %d ranks%s: %ld passed, %ld failed\n", ctx.world_size, ctx.quick ? " (quick)" : "",
                total[0], total[1]);
  MPI_Type_free(&triple);
  MPI_Finalize();
  return ctx.world_rank == 0 && total[1] ? 1 : 0;
}
