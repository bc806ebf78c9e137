// Fortran entry points of libcanopy-mpi.so, for Open MPI: its Fortran bindings call PMPI_* (or
// its internal functions) directly, so a Fortran program would pass by every MPI_* of
// mpi_entry.cpp. The same calls are intercepted here under their Fortran names, twice: mpi_NAME_
// (mpif.h and `use mpi`; lower case with one trailing underscore, as gfortran and Intel's and
// LLVM's compilers name them) and mpi_NAME_f08_ (`use mpi_f08`, where ierror is optional: a
// null pointer when absent). The collectives convert their arguments and call the C entry
// points; the topology constructors, the point-to-point sends, the neighbourhood collectives
// and MPI_Init add Canopy's part (the mapping, the graph recorder) to Open MPI's own binding of
// the same name with p in front (pmpi_NAME_, pmpi_NAME_f08_; looked up at the first call, since
// only a Fortran program has them loaded), which takes the same arguments.
// MPICH's mpif.h and `use mpi` bindings call MPI_*, which reach mpi_entry.cpp without this file.
#include <mpi.h>

#if defined(OPEN_MPI)
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interpose/entry_points.h"
#include "topomap/recorder.h"

namespace {

using F = MPI_Fint;

// Open MPI's Fortran binding @p name (pmpi_send_ and the like).
template <class Function>
Function *open_mpi_binding(const char *name) {
  void *found = dlsym(RTLD_DEFAULT, name);
  if (!found) {
    std::fprintf(stderr, "libcanopy-mpi.so: Open MPI's Fortran binding %s is not loaded\n", name);
    std::abort();
  }
  return reinterpret_cast<Function *>(found);
}

// Fortran's MPI_IN_PLACE and MPI_BOTTOM (all three bindings) are the addresses of common
// blocks in libmpi.
extern "C" char mpi_fortran_in_place_, mpi_fortran_bottom_;

void *c_buffer(void *buffer) {
  if (buffer == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buffer == &mpi_fortran_bottom_) return MPI_BOTTOM;
  return buffer;
}

// A constructor with Fortran handles: @p create(reorder, out, ierr) calls Open MPI's binding,
// with the caller's own .true. (its value is the compiler's) or 0 for reorder.
template <class Create>
int fortran_topology(const char *call, F comm_old, F reorder, MPI_Info info, F *out, Create create) {
  MPI_Comm c_out = MPI_COMM_NULL;
  int rc = create_topology(call, MPI_Comm_f2c(comm_old), reorder != 0, info, &c_out, [&](int flag, MPI_Comm *made) {
    F f_flag = flag ? reorder : 0, f_made = 0, err = MPI_SUCCESS;
    create(&f_flag, &f_made, &err);
    if (err == MPI_SUCCESS) *made = MPI_Comm_f2c(f_made);
    return static_cast<int>(err);
  });
  if (rc == MPI_SUCCESS) *out = MPI_Comm_c2f(c_out);
  return rc;
}

}  // namespace

// One entry point SYMBOL with parameters PARAMS (the last one `F *ierror`): BINDING (nothing,
// or CANOPY_OPEN_MPI_BINDING), then the body (the rest), with `ierr` never null.
#define CANOPY_FORTRAN_ENTRY(SYMBOL, PARAMS, BINDING, ...)    \
  CANOPY_MPI_EXPORT void SYMBOL PARAMS {                       \
    BINDING                                                    \
    F absent = MPI_SUCCESS, *ierr = ierror ? ierror : &absent; \
    __VA_ARGS__                                                \
  }
// `open_mpi`: Open MPI's binding NAME, of the same type as SYMBOL.
#define CANOPY_OPEN_MPI_BINDING(SYMBOL, NAME) \
  static auto *const open_mpi = open_mpi_binding<decltype(SYMBOL)>(NAME);
// Both names of a call, mpi_NAME_ and mpi_NAME_f08_.
#define CANOPY_FORTRAN(NAME, PARAMS, ...)                      \
  CANOPY_FORTRAN_ENTRY(mpi_##NAME##_, PARAMS, , __VA_ARGS__)   \
  CANOPY_FORTRAN_ENTRY(mpi_##NAME##_f08_, PARAMS, , __VA_ARGS__)
// The same where the body hands MPI's part to `open_mpi`: pmpi_NAME_ or pmpi_NAME_f08_.
#define CANOPY_FORTRAN_BOUND(NAME, PARAMS, ...)                                                                 \
  CANOPY_FORTRAN_ENTRY(mpi_##NAME##_, PARAMS, CANOPY_OPEN_MPI_BINDING(mpi_##NAME##_, "pmpi_" #NAME "_"),        \
                       __VA_ARGS__)                                                                             \
  CANOPY_FORTRAN_ENTRY(mpi_##NAME##_f08_, PARAMS,                                                               \
                       CANOPY_OPEN_MPI_BINDING(mpi_##NAME##_f08_, "pmpi_" #NAME "_f08_"), __VA_ARGS__)

CANOPY_FORTRAN_BOUND(init, (F *ierror), open_mpi(ierr); if (*ierr == MPI_SUCCESS) canopy::topomap::start_recording();)

CANOPY_FORTRAN_BOUND(init_thread, (F *required, F *provided, F *ierror),
                     open_mpi(required, provided, ierr);
                     if (*ierr == MPI_SUCCESS) canopy::topomap::start_recording();)

// Point-to-point sends: counted by the graph recorder (src/topomap/recorder.h), then Open MPI's.
#define CANOPY_RECORD_SEND(count, type, dest, comm) \
  if (canopy::topomap::recording())                 \
    canopy::topomap::record_send(*count, MPI_Type_f2c(*type), *dest, MPI_Comm_f2c(*comm));
#define CANOPY_FORTRAN_SEND(NAME)                                                                         \
  CANOPY_FORTRAN_BOUND(NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierror),         \
                       CANOPY_RECORD_SEND(count, type, dest, comm) open_mpi(buf, count, type, dest, tag, comm, ierr);)
#define CANOPY_FORTRAN_NONBLOCKING_SEND(NAME)                                                                  \
  CANOPY_FORTRAN_BOUND(NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *request, F *ierror),  \
                       CANOPY_RECORD_SEND(count, type, dest, comm)                                             \
                       open_mpi(buf, count, type, dest, tag, comm, request, ierr);)
#define CANOPY_FORTRAN_PERSISTENT_SEND(NAME)                                                                   \
  CANOPY_FORTRAN_BOUND(NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *request, F *ierror),  \
                       open_mpi(buf, count, type, dest, tag, comm, request, ierr);                             \
                       if (*ierr == MPI_SUCCESS && canopy::topomap::recording())                               \
                         canopy::topomap::record_persistent_send(MPI_Request_f2c(*request), *count,            \
                                                                 MPI_Type_f2c(*type), *dest, MPI_Comm_f2c(*comm));)
CANOPY_FORTRAN_SEND(send)
CANOPY_FORTRAN_SEND(ssend)
CANOPY_FORTRAN_SEND(rsend)
CANOPY_FORTRAN_SEND(bsend)
CANOPY_FORTRAN_NONBLOCKING_SEND(isend)
CANOPY_FORTRAN_NONBLOCKING_SEND(issend)
CANOPY_FORTRAN_NONBLOCKING_SEND(irsend)
CANOPY_FORTRAN_NONBLOCKING_SEND(ibsend)
CANOPY_FORTRAN_PERSISTENT_SEND(send_init)
CANOPY_FORTRAN_PERSISTENT_SEND(ssend_init)
CANOPY_FORTRAN_PERSISTENT_SEND(rsend_init)
CANOPY_FORTRAN_PERSISTENT_SEND(bsend_init)

CANOPY_FORTRAN_BOUND(start, (F *request, F *ierror),
                     if (canopy::topomap::recording()) {
                       MPI_Request c_request = MPI_Request_f2c(*request);
                       canopy::topomap::record_starts(1, &c_request);
                     }
                     open_mpi(request, ierr);)

CANOPY_FORTRAN_BOUND(startall, (F *count, F *requests, F *ierror),
                     if (canopy::topomap::recording() && *count > 0) {
                       std::vector<MPI_Request> c_requests(static_cast<size_t>(*count));
                       for (size_t i = 0; i < c_requests.size(); ++i) c_requests[i] = MPI_Request_f2c(requests[i]);
                       canopy::topomap::record_starts(*count, c_requests.data());
                     }
                     open_mpi(count, requests, ierr);)

CANOPY_FORTRAN_BOUND(request_free, (F *request, F *ierror),
                     if (canopy::topomap::recording()) canopy::topomap::forget_request(MPI_Request_f2c(*request));
                     open_mpi(request, ierr);)

CANOPY_FORTRAN_BOUND(sendrecv,
                     (void *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, void *recvbuf, F *recvcount,
                      F *recvtype, F *source, F *recvtag, F *comm, F *status, F *ierror),
                     CANOPY_RECORD_SEND(sendcount, sendtype, dest, comm)
                     open_mpi(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, status, ierr);)

CANOPY_FORTRAN_BOUND(sendrecv_replace,
                     (void *buf, F *count, F *type, F *dest, F *sendtag, F *source, F *recvtag, F *comm, F *status,
                      F *ierror),
                     CANOPY_RECORD_SEND(count, type, dest, comm)
                     open_mpi(buf, count, type, dest, sendtag, source, recvtag, comm, status, ierr);)

// Neighbourhood collectives, blocking and not: counted for the recorder (BLOCK: what goes to
// out-neighbour i), then Open MPI's.
#define CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK)                                                   \
  if (canopy::topomap::recording())                                                           \
    canopy::topomap::record_neighbor_sends(MPI_Comm_f2c(*comm), [&]([[maybe_unused]] int i) { \
      return std::pair<int, MPI_Datatype> BLOCK;                                              \
    });
#define CANOPY_FORTRAN_NEIGHBOR(NAME, BLOCK, PARAMS, ARGS)                                                   \
  CANOPY_FORTRAN_BOUND(neighbor_##NAME, (CANOPY_UNPARENTHESIZED PARAMS, F *ierror),                          \
                       CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK) open_mpi(CANOPY_UNPARENTHESIZED ARGS, ierr);)     \
  CANOPY_FORTRAN_BOUND(ineighbor_##NAME, (CANOPY_UNPARENTHESIZED PARAMS, F *request, F *ierror),             \
                       CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK) open_mpi(CANOPY_UNPARENTHESIZED ARGS, request, ierr);)
CANOPY_FORTRAN_NEIGHBOR(allgather, (*sendcount, MPI_Type_f2c(*sendtype)),
                        (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm),
                        (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
CANOPY_FORTRAN_NEIGHBOR(allgatherv, (*sendcount, MPI_Type_f2c(*sendtype)),
                        (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcounts, F *displs,
                         F *recvtype, F *comm),
                        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
CANOPY_FORTRAN_NEIGHBOR(alltoall, (*sendcount, MPI_Type_f2c(*sendtype)),
                        (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm),
                        (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
CANOPY_FORTRAN_NEIGHBOR(alltoallv, (sendcounts[i], MPI_Type_f2c(*sendtype)),
                        (void *sendbuf, F *sendcounts, F *sdispls, F *sendtype, void *recvbuf, F *recvcounts,
                         F *rdispls, F *recvtype, F *comm),
                        (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
CANOPY_FORTRAN_NEIGHBOR(alltoallw, (sendcounts[i], MPI_Type_f2c(sendtypes[i])),
                        (void *sendbuf, F *sendcounts, MPI_Aint *sdispls, F *sendtypes, void *recvbuf,
                         F *recvcounts, MPI_Aint *rdispls, F *recvtypes, F *comm),
                        (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))

// Collectives: the C entry points with C handles.
CANOPY_FORTRAN(bcast, (void *buf, F *count, F *type, F *root, F *comm, F *ierror),
               *ierr = MPI_Bcast(c_buffer(buf), *count, MPI_Type_f2c(*type), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(allgather,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm,
                F *ierror),
               *ierr = MPI_Allgather(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                     *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(barrier, (F *comm, F *ierror), *ierr = MPI_Barrier(MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(scatter,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm,
                F *ierror),
               *ierr = MPI_Scatter(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                   *recvcount, MPI_Type_f2c(*recvtype), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(gather,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm,
                F *ierror),
               *ierr = MPI_Gather(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                  *recvcount, MPI_Type_f2c(*recvtype), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(alltoall,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm,
                F *ierror),
               *ierr = MPI_Alltoall(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                    *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(reduce, (void *sendbuf, void *recvbuf, F *count, F *type, F *op, F *root, F *comm, F *ierror),
               *ierr = MPI_Reduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, MPI_Type_f2c(*type),
                                  MPI_Op_f2c(*op), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(allreduce, (void *sendbuf, void *recvbuf, F *count, F *type, F *op, F *comm, F *ierror),
               *ierr = MPI_Allreduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, MPI_Type_f2c(*type),
                                     MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));)

// Topology constructors (entry_points.h), Open MPI's binding building the topology.
CANOPY_FORTRAN_BOUND(dist_graph_create_adjacent,
                     (F *comm_old, F *indegree, F *sources, F *sourceweights, F *outdegree, F *destinations,
                      F *destweights, F *info, F *reorder, F *comm_dist_graph, F *ierror),
                     *ierr = fortran_topology("MPI_Dist_graph_create", *comm_old, *reorder, MPI_Info_f2c(*info),
                                              comm_dist_graph, [&](F *flag, F *out, F *err) {
                                                open_mpi(comm_old, indegree, sources, sourceweights, outdegree,
                                                         destinations, destweights, info, flag, out, err);
                                              });)

CANOPY_FORTRAN_BOUND(dist_graph_create,
                     (F *comm_old, F *n, F *sources, F *degrees, F *destinations, F *weights, F *info, F *reorder,
                      F *comm_dist_graph, F *ierror),
                     *ierr = fortran_topology("MPI_Dist_graph_create", *comm_old, *reorder, MPI_Info_f2c(*info),
                                              comm_dist_graph, [&](F *flag, F *out, F *err) {
                                                open_mpi(comm_old, n, sources, degrees, destinations, weights, info,
                                                         flag, out, err);
                                              });)

CANOPY_FORTRAN_BOUND(cart_create, (F *comm_old, F *ndims, F *dims, F *periods, F *reorder, F *comm_cart, F *ierror),
                     *ierr = fortran_topology("MPI_Cart_create", *comm_old, *reorder, MPI_INFO_NULL, comm_cart,
                                              [&](F *flag, F *out, F *err) {
                                                open_mpi(comm_old, ndims, dims, periods, flag, out, err);
                                              });)

CANOPY_FORTRAN_BOUND(graph_create, (F *comm_old, F *nnodes, F *index, F *edges, F *reorder, F *comm_graph, F *ierror),
                     *ierr = fortran_topology("MPI_Graph_create", *comm_old, *reorder, MPI_INFO_NULL, comm_graph,
                                              [&](F *flag, F *out, F *err) {
                                                open_mpi(comm_old, nnodes, index, edges, flag, out, err);
                                              });)

#endif  // OPEN_MPI
