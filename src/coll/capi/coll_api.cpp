// The C API of the collectives (include/canopy/coll.h).
#include "canopy/coll.h"

#include "coll/dispatch.h"

extern "C" {

int canopy_bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return canopy::coll::bcast(buf, count, datatype, root, comm);
}

int canopy_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return canopy::coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int canopy_barrier(MPI_Comm comm) { return canopy::coll::barrier(comm); }

int canopy_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return canopy::coll::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int canopy_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return canopy::coll::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int canopy_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return canopy::coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int canopy_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm) {
  return canopy::coll::reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int canopy_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return canopy::coll::allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

}  // extern "C"
