// Fortran entry points of libcanopy-mpi.so. Open MPI's Fortran bindings call PMPI_* (or its
// internal functions) directly, so a Fortran program would pass by every MPI_* of mpi_entry.cpp;
// MPICH's mpif.h and `use mpi` bindings call MPI_*, which reach mpi_entry.cpp as they are, but its
// `use mpi_f08` ones call PMPI_* for some calls (MPI_Init(_thread), MPI_Start(all),
// MPI_Request_free, MPI_Barrier, the topology constructors, MPI_Cart_map and MPI_Graph_map;
// checked on MPICH 4.0). Those calls
// are intercepted here under their Fortran names: under Open MPI mpi_NAME_ (mpif.h, `use mpi`;
// lower case with one trailing underscore, as gfortran and Intel's and LLVM's compilers name
// them) and mpi_NAME_f08_ (`use mpi_f08`, where ierror is optional: a null pointer when absent),
// under MPICH the mpi_NAME_f08_ of the calls above. The collectives, MPI_Barrier and the map
// functions convert their arguments and call the C entry points; the topology constructors, the
// point-to-point sends, the neighbourhood collectives, MPI_Init and the requests add Canopy's
// part (the mapping, the graph recorder) to the MPI library's own definition of the same name
// (looked up at the first call, since only a Fortran program has it loaded).
#include <mpi.h>

#if defined(OPEN_MPI) || defined(MPICH)
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interpose/entry_points.h"
#include "topomap/recorder.h"

namespace {

using F = MPI_Fint;

// The MPI library's own definition of @p name: the next one after this library's, which is
// LD_PRELOADed or linked before the MPI library.
template <class Function>
Function *mpi_library_definition(const char *name) {
  void *found = dlsym(RTLD_NEXT, name);
  if (!found) {
    std::fprintf(stderr, "libcanopy-mpi.so: the MPI library's %s is not loaded\n", name);
    std::abort();
  }
  return reinterpret_cast<Function *>(found);
}

#if defined(OPEN_MPI)
// Fortran's MPI_IN_PLACE and MPI_BOTTOM (all three bindings) are the addresses of common
// blocks in libmpi.
extern "C" char mpi_fortran_in_place_, mpi_fortran_bottom_;

void *c_buffer(void *buffer) {
  if (buffer == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buffer == &mpi_fortran_bottom_) return MPI_BOTTOM;
  return buffer;
}
#endif

// A constructor with Fortran handles: @p create(reorder, out, ierr) calls the MPI library's
// binding, with the caller's own .true. (its value is the compiler's) or 0 for reorder.
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

// Entry point SYMBOL(PARAMS), the last parameter `F *ierror`: the body (the rest) sees `ierr`,
// never null; CANOPY_DELEGATED's also `mpi_library`, the MPI library's own SYMBOL.
#define CANOPY_CONVERTED(SYMBOL, PARAMS, ...)                  \
  CANOPY_MPI_EXPORT void SYMBOL PARAMS {                       \
    F absent = MPI_SUCCESS, *ierr = ierror ? ierror : &absent; \
    __VA_ARGS__                                                \
  }
#define CANOPY_DELEGATED(SYMBOL, PARAMS, ...)                                           \
  CANOPY_MPI_EXPORT void SYMBOL PARAMS {                                                 \
    static auto *const mpi_library = mpi_library_definition<decltype(SYMBOL)>(#SYMBOL);  \
    F absent = MPI_SUCCESS, *ierr = ierror ? ierror : &absent;                           \
    __VA_ARGS__                                                                          \
  }
// The names call NAME is defined under by ENTRY (one of the two above): CANOPY_FORTRAN for the
// calls that every MPICH binding makes through MPI_*, CANOPY_FORTRAN_F08_PMPI for those that
// MPICH's mpi_f08 binding makes through PMPI_*.
#if defined(OPEN_MPI)
#define CANOPY_FORTRAN(ENTRY, NAME, ...) ENTRY(mpi_##NAME##_, __VA_ARGS__) ENTRY(mpi_##NAME##_f08_, __VA_ARGS__)
#define CANOPY_FORTRAN_F08_PMPI CANOPY_FORTRAN
#else
#define CANOPY_FORTRAN(ENTRY, NAME, ...)
#define CANOPY_FORTRAN_F08_PMPI(ENTRY, NAME, ...) ENTRY(mpi_##NAME##_f08_, __VA_ARGS__)
#endif

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, init, (F *ierror),
                        mpi_library(ierr);
                        if (*ierr == MPI_SUCCESS) canopy::topomap::start_recording();)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, init_thread, (F *required, F *provided, F *ierror),
                        mpi_library(required, provided, ierr);
                        if (*ierr == MPI_SUCCESS) canopy::topomap::start_recording();)

// Point-to-point sends: counted by the graph recorder (src/topomap/recorder.h), then the MPI
// library's.
#define CANOPY_RECORD_SEND(count, type, dest, comm) \
  if (canopy::topomap::recording())                 \
    canopy::topomap::record_send(*count, MPI_Type_f2c(*type), *dest, MPI_Comm_f2c(*comm));
#define CANOPY_FORTRAN_SEND(NAME)                                                                   \
  CANOPY_FORTRAN(CANOPY_DELEGATED, NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm,  \
                                          F *ierror),                                               \
                 CANOPY_RECORD_SEND(count, type, dest, comm)                                        \
                 mpi_library(buf, count, type, dest, tag, comm, ierr);)
#define CANOPY_FORTRAN_NONBLOCKING_SEND(NAME)                                                       \
  CANOPY_FORTRAN(CANOPY_DELEGATED, NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm,  \
                                          F *request, F *ierror),                                   \
                 CANOPY_RECORD_SEND(count, type, dest, comm)                                        \
                 mpi_library(buf, count, type, dest, tag, comm, request, ierr);)
#define CANOPY_FORTRAN_PERSISTENT_SEND(NAME)                                                        \
  CANOPY_FORTRAN(CANOPY_DELEGATED, NAME, (void *buf, F *count, F *type, F *dest, F *tag, F *comm,  \
                                          F *request, F *ierror),                                   \
                 mpi_library(buf, count, type, dest, tag, comm, request, ierr);                     \
                 if (*ierr == MPI_SUCCESS && canopy::topomap::recording())                          \
                   canopy::topomap::record_persistent_send(MPI_Request_f2c(*request), *count,       \
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

CANOPY_FORTRAN(CANOPY_DELEGATED, sendrecv,
               (void *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, void *recvbuf, F *recvcount,
                F *recvtype, F *source, F *recvtag, F *comm, F *status, F *ierror),
               CANOPY_RECORD_SEND(sendcount, sendtype, dest, comm)
               mpi_library(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, status, ierr);)

CANOPY_FORTRAN(CANOPY_DELEGATED, sendrecv_replace,
               (void *buf, F *count, F *type, F *dest, F *sendtag, F *source, F *recvtag, F *comm, F *status,
                F *ierror),
               CANOPY_RECORD_SEND(count, type, dest, comm)
               mpi_library(buf, count, type, dest, sendtag, source, recvtag, comm, status, ierr);)

// Persistent requests: where each persistent send goes is counted at every start.
CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, start, (F *request, F *ierror),
                        if (canopy::topomap::recording()) {
                          MPI_Request c_request = MPI_Request_f2c(*request);
                          canopy::topomap::record_starts(1, &c_request);
                        }
                        mpi_library(request, ierr);)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, startall, (F *count, F *requests, F *ierror),
                        if (canopy::topomap::recording() && *count > 0) {
                          std::vector<MPI_Request> c_requests(static_cast<size_t>(*count));
                          for (size_t i = 0; i < c_requests.size(); ++i) c_requests[i] = MPI_Request_f2c(requests[i]);
                          canopy::topomap::record_starts(*count, c_requests.data());
                        }
                        mpi_library(count, requests, ierr);)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, request_free, (F *request, F *ierror),
                        if (canopy::topomap::recording()) canopy::topomap::forget_request(MPI_Request_f2c(*request));
                        mpi_library(request, ierr);)

// Neighbourhood collectives, blocking and not: counted for the recorder (BLOCK: what goes to
// out-neighbour i), then the MPI library's.
#define CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK)                                                   \
  if (canopy::topomap::recording())                                                           \
    canopy::topomap::record_neighbor_sends(MPI_Comm_f2c(*comm), [&]([[maybe_unused]] int i) { \
      return std::pair<int, MPI_Datatype> BLOCK;                                              \
    });
#define CANOPY_FORTRAN_NEIGHBOR(NAME, BLOCK, PARAMS, ARGS)                                               \
  CANOPY_FORTRAN(CANOPY_DELEGATED, neighbor_##NAME, (CANOPY_UNPARENTHESIZED PARAMS, F *ierror),          \
                 CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK) mpi_library(CANOPY_UNPARENTHESIZED ARGS, ierr);)    \
  CANOPY_FORTRAN(CANOPY_DELEGATED, ineighbor_##NAME, (CANOPY_UNPARENTHESIZED PARAMS, F *request, F *ierror), \
                 CANOPY_RECORD_NEIGHBOR_SENDS(BLOCK) mpi_library(CANOPY_UNPARENTHESIZED ARGS, request, ierr);)
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
CANOPY_FORTRAN(CANOPY_CONVERTED, bcast, (void *buf, F *count, F *type, F *root, F *comm, F *ierror),
               *ierr = MPI_Bcast(c_buffer(buf), *count, MPI_Type_f2c(*type), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, allgather,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm,
                F *ierror),
               *ierr = MPI_Allgather(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                     *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN_F08_PMPI(CANOPY_CONVERTED, barrier, (F *comm, F *ierror), *ierr = MPI_Barrier(MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, scatter,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm,
                F *ierror),
               *ierr = MPI_Scatter(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                   *recvcount, MPI_Type_f2c(*recvtype), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, gather,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm,
                F *ierror),
               *ierr = MPI_Gather(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                  *recvcount, MPI_Type_f2c(*recvtype), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, alltoall,
               (void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm,
                F *ierror),
               *ierr = MPI_Alltoall(c_buffer(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                    *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, reduce,
               (void *sendbuf, void *recvbuf, F *count, F *type, F *op, F *root, F *comm, F *ierror),
               *ierr = MPI_Reduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, MPI_Type_f2c(*type),
                                  MPI_Op_f2c(*op), *root, MPI_Comm_f2c(*comm));)

CANOPY_FORTRAN(CANOPY_CONVERTED, allreduce,
               (void *sendbuf, void *recvbuf, F *count, F *type, F *op, F *comm, F *ierror),
               *ierr = MPI_Allreduce(c_buffer(sendbuf), c_buffer(recvbuf), *count, MPI_Type_f2c(*type),
                                     MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));)

// Topology constructors (entry_points.h), the MPI library's own building the topology (its
// Fortran side of MPI_UNWEIGHTED and the logicals included).
CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, dist_graph_create_adjacent,
                        (F *comm_old, F *indegree, F *sources, F *sourceweights, F *outdegree, F *destinations,
                         F *destweights, F *info, F *reorder, F *comm_dist_graph, F *ierror),
                        *ierr = fortran_topology("MPI_Dist_graph_create", *comm_old, *reorder, MPI_Info_f2c(*info),
                                                 comm_dist_graph, [&](F *flag, F *out, F *err) {
                                                   mpi_library(comm_old, indegree, sources, sourceweights, outdegree,
                                                               destinations, destweights, info, flag, out, err);
                                                 });)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, dist_graph_create,
                        (F *comm_old, F *n, F *sources, F *degrees, F *destinations, F *weights, F *info,
                         F *reorder, F *comm_dist_graph, F *ierror),
                        *ierr = fortran_topology("MPI_Dist_graph_create", *comm_old, *reorder, MPI_Info_f2c(*info),
                                                 comm_dist_graph, [&](F *flag, F *out, F *err) {
                                                   mpi_library(comm_old, n, sources, degrees, destinations, weights,
                                                               info, flag, out, err);
                                                 });)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, cart_create,
                        (F *comm_old, F *ndims, F *dims, F *periods, F *reorder, F *comm_cart, F *ierror),
                        *ierr = fortran_topology("MPI_Cart_create", *comm_old, *reorder, MPI_INFO_NULL, comm_cart,
                                                 [&](F *flag, F *out, F *err) {
                                                   mpi_library(comm_old, ndims, dims, periods, flag, out, err);
                                                 });)

CANOPY_FORTRAN_F08_PMPI(CANOPY_DELEGATED, graph_create,
                        (F *comm_old, F *nnodes, F *index, F *edges, F *reorder, F *comm_graph, F *ierror),
                        *ierr = fortran_topology("MPI_Graph_create", *comm_old, *reorder, MPI_INFO_NULL, comm_graph,
                                                 [&](F *flag, F *out, F *err) {
                                                   mpi_library(comm_old, nnodes, index, edges, flag, out, err);
                                                 });)

// MPI_Cart_map and MPI_Graph_map: the C entry points, the logicals as C's 0 or 1.
CANOPY_FORTRAN_F08_PMPI(CANOPY_CONVERTED, cart_map, (F *comm, F *ndims, F *dims, F *periods, F *newrank, F *ierror),
                        std::vector<int> c_periods(static_cast<size_t>(std::max(*ndims, 0)));
                        for (size_t d = 0; d < c_periods.size(); ++d) c_periods[d] = periods[d] != 0;
                        *ierr = MPI_Cart_map(MPI_Comm_f2c(*comm), *ndims, dims, c_periods.data(), newrank);)

CANOPY_FORTRAN_F08_PMPI(CANOPY_CONVERTED, graph_map, (F *comm, F *nnodes, F *index, F *edges, F *newrank, F *ierror),
                        *ierr = MPI_Graph_map(MPI_Comm_f2c(*comm), *nnodes, index, edges, newrank);)

#endif  // OPEN_MPI || MPICH
