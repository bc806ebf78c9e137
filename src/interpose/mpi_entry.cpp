// MPI_* entry points of libcanopy-mpi.so: linked before libmpi (or LD_PRELOADed),
// these definitions win over the library's, and PMPI_* reaches the real ones.
// Only the collectives, topology constructors and map functions, point-to-point sends and
// neighbourhood collectives listed here are intercepted; CANOPY_DISABLE=1 makes every one a
// plain pass-through. Fortran programs reach them through MPICH's mpif.h and `use mpi`
// bindings, and through mpi_fortran.cpp otherwise.
#include <mpi.h>

#include "coll/dispatch.h"
#include "interpose/entry_points.h"
#include "topomap/recorder.h"

// MPI_Init and MPI_Init_thread start recording the communication graph where map_record_graph
// asks for it; the sends below count their bytes then (src/topomap/recorder.h).
CANOPY_MPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) canopy::topomap::start_recording();
  return rc;
}

CANOPY_MPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) canopy::topomap::start_recording();
  return rc;
}

#define CANOPY_SEND(NAME)                                                                                      \
  CANOPY_MPI_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
    canopy::topomap::record_send(count, type, dest, comm);                                                     \
    return PMPI_##NAME(buf, count, type, dest, tag, comm);                                                     \
  }
#define CANOPY_NONBLOCKING_SEND(NAME)                                                                          \
  CANOPY_MPI_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                                   MPI_Request *request) {                                                     \
    canopy::topomap::record_send(count, type, dest, comm);                                                     \
    return PMPI_##NAME(buf, count, type, dest, tag, comm, request);                                            \
  }
#define CANOPY_PERSISTENT_SEND(NAME)                                                                           \
  CANOPY_MPI_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                                   MPI_Request *request) {                                                     \
    int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, request);                                          \
    if (rc == MPI_SUCCESS) canopy::topomap::record_persistent_send(*request, count, type, dest, comm);         \
    return rc;                                                                                                 \
  }
CANOPY_SEND(Send)
CANOPY_SEND(Ssend)
CANOPY_SEND(Rsend)
CANOPY_SEND(Bsend)
CANOPY_NONBLOCKING_SEND(Isend)
CANOPY_NONBLOCKING_SEND(Issend)
CANOPY_NONBLOCKING_SEND(Irsend)
CANOPY_NONBLOCKING_SEND(Ibsend)
CANOPY_PERSISTENT_SEND(Send_init)
CANOPY_PERSISTENT_SEND(Ssend_init)
CANOPY_PERSISTENT_SEND(Rsend_init)
CANOPY_PERSISTENT_SEND(Bsend_init)

CANOPY_MPI_EXPORT int MPI_Start(MPI_Request *request) {
  if (request) canopy::topomap::record_starts(1, request);
  return PMPI_Start(request);
}

CANOPY_MPI_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  canopy::topomap::record_starts(count, requests);
  return PMPI_Startall(count, requests);
}

CANOPY_MPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  if (request) canopy::topomap::forget_request(*request);
  return PMPI_Request_free(request);
}

CANOPY_MPI_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                   MPI_Comm comm, MPI_Status *status) {
  canopy::topomap::record_send(sendcount, sendtype, dest, comm);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       status);
}

CANOPY_MPI_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                           int recvtag, MPI_Comm comm, MPI_Status *status) {
  canopy::topomap::record_send(count, type, dest, comm);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

// Neighbourhood collectives, blocking and not: each block counted for its out-neighbour
// (BLOCK: what goes to out-neighbour i), then MPI's.
#define CANOPY_NEIGHBOR_BLOCKS(BLOCK)                                                \
  if (canopy::topomap::recording())                                            \
    canopy::topomap::record_neighbor_sends(comm, [&]([[maybe_unused]] int i) { \
      return std::pair<int, MPI_Datatype> BLOCK;                               \
    })
#define CANOPY_NEIGHBOR(NAME, BLOCK, PARAMS, ARGS)                                                \
  CANOPY_MPI_EXPORT int MPI_Neighbor_##NAME(CANOPY_UNPARENTHESIZED PARAMS) {                        \
    CANOPY_NEIGHBOR_BLOCKS(BLOCK);                                                                  \
    return PMPI_Neighbor_##NAME(CANOPY_UNPARENTHESIZED ARGS);                                       \
  }                                                                                                 \
  CANOPY_MPI_EXPORT int MPI_Ineighbor_##NAME(CANOPY_UNPARENTHESIZED PARAMS, MPI_Request *request) { \
    CANOPY_NEIGHBOR_BLOCKS(BLOCK);                                                                  \
    return PMPI_Ineighbor_##NAME(CANOPY_UNPARENTHESIZED ARGS, request);                             \
  }
CANOPY_NEIGHBOR(allgather, (sendcount, sendtype),
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm),
                (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
CANOPY_NEIGHBOR(allgatherv, (sendcount, sendtype),
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
                (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
CANOPY_NEIGHBOR(alltoall, (sendcount, sendtype),
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm),
                (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
CANOPY_NEIGHBOR(alltoallv, (sendcounts[i], sendtype),
                (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
                (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
CANOPY_NEIGHBOR(alltoallw, (sendcounts[i], sendtypes[i]),
                (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                 const MPI_Datatype recvtypes[], MPI_Comm comm),
                (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))

CANOPY_MPI_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Bcast(buf, count, datatype, root, comm);
  return canopy::coll::bcast(buf, count, datatype, root, comm);
}

CANOPY_MPI_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return canopy::coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

CANOPY_MPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Barrier(comm);
  return canopy::coll::barrier(comm);
}

CANOPY_MPI_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (canopy::coll::disabled())
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return canopy::coll::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

CANOPY_MPI_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (canopy::coll::disabled())
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return canopy::coll::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

CANOPY_MPI_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return canopy::coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

CANOPY_MPI_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 int root, MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return canopy::coll::reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

CANOPY_MPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm) {
  if (canopy::coll::disabled()) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return canopy::coll::allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

CANOPY_MPI_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                                     const int sourceweights[], int outdegree,
                                                     const int destinations[], const int destweights[],
                                                     MPI_Info info, int reorder, MPI_Comm *comm_dist_graph) {
  return create_topology("MPI_Dist_graph_create", comm_old, reorder, info, comm_dist_graph, [&](int flag, MPI_Comm *out) {
    return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info, flag, out);
  });
}

CANOPY_MPI_EXPORT int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                            const int destinations[], const int weights[], MPI_Info info,
                                            int reorder, MPI_Comm *comm_dist_graph) {
  return create_topology("MPI_Dist_graph_create", comm_old, reorder, info, comm_dist_graph, [&](int flag, MPI_Comm *out) {
    return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, flag, out);
  });
}

CANOPY_MPI_EXPORT int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                                      MPI_Comm *comm_cart) {
  return create_topology("MPI_Cart_create", comm_old, reorder, MPI_INFO_NULL, comm_cart, [&](int flag, MPI_Comm *out) {
    return PMPI_Cart_create(comm_old, ndims, dims, periods, flag, out);
  });
}

CANOPY_MPI_EXPORT int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                                       MPI_Comm *comm_graph) {
  return create_topology("MPI_Graph_create", comm_old, reorder, MPI_INFO_NULL, comm_graph, [&](int flag, MPI_Comm *out) {
    return PMPI_Graph_create(comm_old, nnodes, index, edges, flag, out);
  });
}

CANOPY_MPI_EXPORT int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank) {
  return map_topology(
      "MPI_Cart_map", comm, newrank, [&](MPI_Comm *out) { return PMPI_Cart_create(comm, ndims, dims, periods, 0, out); },
      [&] { return PMPI_Cart_map(comm, ndims, dims, periods, newrank); });
}

CANOPY_MPI_EXPORT int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
  return map_topology(
      "MPI_Graph_map", comm, newrank, [&](MPI_Comm *out) { return PMPI_Graph_create(comm, nnodes, index, edges, 0, out); },
      [&] { return PMPI_Graph_map(comm, nnodes, index, edges, newrank); });
}
