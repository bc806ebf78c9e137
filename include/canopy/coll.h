/**
 * @file canopy/coll.h  Canopy's collectives, called directly.
 *
 * The functions take the arguments of their MPI counterparts and return an MPI
 * error code (MPI_SUCCESS, or the code of the PMPI call they fell back to, or
 * MPI_ERR_OTHER when a Canopy algorithm failed midway; the message then is on
 * stderr). They live in libcanopy-mpi.so, which needs MPI; libcanopy.so and
 * canopy.h do not include this header.
 *
 * Each call picks an algorithm by the selection rules (docs/collectives.md):
 * CANOPY_<COLL>_ALGORITHM, then the tuning file, then the built-in table.
 * Derived datatypes are packed and unpacked around Canopy's algorithms. They
 * fall back to PMPI_* for inter-communicators, messages over 2 GiB, reductions
 * Canopy does not combine itself (user-defined operations, types other than
 * the C basic types, derived types) and invalid arguments, which MPI then
 * reports. Not thread-safe: call them from one thread per process (as
 * MPI_THREAD_FUNNELED or SERIALIZED programs do).
 */
#ifndef CANOPY_COLL_H
#define CANOPY_COLL_H

#include <mpi.h>

#include <canopy/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** MPI_Bcast. */
CANOPY_API int canopy_bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
/** MPI_Allgather, MPI_IN_PLACE included. */
CANOPY_API int canopy_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
/** MPI_Barrier. */
CANOPY_API int canopy_barrier(MPI_Comm comm);
/** MPI_Scatter, MPI_IN_PLACE (recvbuf at the root) included. */
CANOPY_API int canopy_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm);
/** MPI_Gather, MPI_IN_PLACE (sendbuf at the root) included. */
CANOPY_API int canopy_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm);
/** MPI_Alltoall, MPI_IN_PLACE (sendbuf) included. */
CANOPY_API int canopy_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm);
/** MPI_Reduce, MPI_IN_PLACE at the root included. Predefined operations on the C basic
    types run in Canopy; user-defined operations and other types fall back to PMPI_Reduce. */
CANOPY_API int canopy_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm);
/** MPI_Allreduce, MPI_IN_PLACE included; the same operations and fall-backs as canopy_reduce. */
CANOPY_API int canopy_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
