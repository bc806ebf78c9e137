// Allgather: every algorithm, sizes and types, with and without MPI_IN_PLACE, against PMPI_Allgather;
// the multi-leader algorithms again under several leader-group shapes.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "coll/dispatch.h"
#include "coll/hierarchy.h"
#include "coll_harness.h"

namespace coll_test {
namespace {

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
  if (in_place && block) std::memcpy(recv.data() + rank * block, send.data(), block);  // data() may be null
  int rc = canopy::coll::allgather(in_place ? MPI_IN_PLACE : send.data(), count, t.type, recv.data(), count, t.type,
                                   comm, forced(alg));
  bool ok = rc == MPI_SUCCESS;
  for (int r = 0; ok && r < size; ++r)
    for (size_t i = 0; ok && i < block; ++i) ok = recv[r * block + i] == pattern(i, r, count);
  for (size_t i = total; ok && i < total + guard; ++i) ok = recv[i] == 0xA5;
  const std::vector<unsigned char> &want =
      pmpi_reference(ctx, comm, "allgather " + std::to_string(count) + " " + t.name, [&] {
        PMPI_Allgather(send.data(), count, t.type, ref.data(), count, t.type, comm);
        return ref;
      });
  ok = ok && want == recv;
  ctx.tally.check(ok, describe("allgather", alg, ctx, comm) + "count=" + std::to_string(count) + " " + t.name +
                          (in_place ? " in_place" : ""));
}

// Sets an environment variable for one scope and restores the previous value (a CTest
// variant may have set it).
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

// Leader-group shapes beyond the default (one group per socket; one group when unbound, as in
// these tests): N groups per node, uneven with the uneven and cyclic host layouts, groups of
// synthetic two-socket nodes, one per socket (uneven once a node has 4 or 5 ranks) or three
// over two sockets (one group spans both), and a one-socket node of two NUMA nodes, grouped
// by NUMA node (as the two sockets) or by package (one group).
struct GroupShape {
  int leaders;
  const char *node_layout, *domain;
  int domains;  // on the node layout, 3 cores each
  /** Groups on a node of @p ranks ranks (local rank i on core i, wrapping around). */
  int groups(int ranks) const { return leaders > 0 ? std::min(leaders, ranks) : std::min(domains, (ranks + 2) / 3); }
};
const GroupShape kGroupShapes[] = {{2, "", "package", 1},
                                   {3, "", "package", 1},
                                   {0, "pack:2 core:3 pu:1", "package", 2},
                                   {3, "pack:2 core:2 pu:1", "package", 2},
                                   {0, "pack:1 numa:2 core:3 pu:1", "numa", 2},
                                   {0, "pack:1 numa:2 core:3 pu:1", "package", 1}};

// The shape reached the hierarchy: as many groups as the shape cuts the nodes into.
void check_groups(Context &ctx, MPI_Comm comm, const GroupShape &shape) {
  const canopy::coll::Hierarchy &h = canopy::coll::hierarchy_of(comm);
  int expected = 0;
  for (int ranks : h.node_size_of) expected += shape.groups(ranks);
  ctx.tally.check(h.group_order.groups() == expected && h.groups_per_node == shape.groups(h.node_size),
                  describe("allgather", "multi_leader", ctx, comm) + "groups=" +
                      std::to_string(h.group_order.groups()) + " expected " + std::to_string(expected));
}

void test_multi_leader_shapes(Context &ctx, MPI_Comm comm) {
  if (ctx.layout == "single") return;  // one rank per node: every shape is one group of one rank
  for (const GroupShape &shape : kGroupShapes) {
    ScopedEnv leaders("CANOPY_COLL_LEADERS_PER_NODE", std::to_string(shape.leaders).c_str());
    ScopedEnv layout("CANOPY_COLL_NODE_LAYOUT", shape.node_layout);
    ScopedEnv domain("CANOPY_COLL_LEADER_DOMAIN", shape.domain);
    MPI_Comm shaped;  // a fresh communicator: parameters are read when its hierarchy is built
    MPI_Comm_dup(comm, &shaped);
    std::string saved = ctx.layout;
    ctx.layout += " leaders=" + std::to_string(shape.leaders) + " node_layout=" + shape.node_layout + " domain=" + shape.domain;
    check_groups(ctx, shaped, shape);
    for (const char *alg : {"multi_leader_p2p", "multi_leader_shm"})
      for (int count : {1, 7, 4099}) test_allgather_case(ctx, shaped, alg, ctx.types[count % 4], count, count == 7);
    ctx.layout = saved;
    MPI_Comm_free(&shaped);
  }
}

void test_allgather(Context &ctx, MPI_Comm comm) {
  const std::vector<TypeCase> &types = ctx.types;
  int size;
  MPI_Comm_size(comm, &size);
  for (const std::string &alg : algorithms(Collective::Allgather)) {
    int t = 0;
    for (int count : {0, 1, 7, 4099})
      for (bool in_place : {false, true}) test_allgather_case(ctx, comm, alg, types[t++ % types.size()], count, in_place);
    if (size <= 8) test_allgather_case(ctx, comm, alg, types[0], 65539, t % 2);
    if (size <= 4 && !ctx.quick) test_allgather_case(ctx, comm, alg, types[0], 1048581, false);
  }
  test_multi_leader_shapes(ctx, comm);
}

}  // namespace

CANOPY_COLL_SUITE("allgather", test_allgather);

}  // namespace coll_test
