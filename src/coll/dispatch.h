// The entry points behind canopy_bcast() & co. and libcanopy-mpi.so's MPI_*:
// argument checks, hierarchy, algorithm selection, and the fall-back to PMPI_*
// for what Canopy does not handle (inter-communicators, non-contiguous
// datatypes, messages over 2 GiB, user-defined reduction operations, invalid
// arguments so that MPI reports them).
// They return MPI error codes and never throw.
//
// Whether a call falls back is decided from the local arguments only, so every
// rank must describe the data with contiguous types or none does (MPI allows a
// contiguous type on one rank and a matching vector type on another; Canopy
// does not, yet).
#pragma once
#include <mpi.h>

#include <string>

namespace canopy::coll {

/** @p algorithm: a catalogue name to force, or nullptr for the selection rules. */
int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char *algorithm = nullptr) noexcept;
int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm = nullptr) noexcept;
int barrier(MPI_Comm comm, const char *algorithm = nullptr) noexcept;
/** MPI_IN_PLACE: recvbuf at the root (scatter), sendbuf at the root (gather), sendbuf (alltoall). */
int scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, const char *algorithm = nullptr) noexcept;
int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, const char *algorithm = nullptr) noexcept;
int alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, const char *algorithm = nullptr) noexcept;
/** MPI_Reduce / MPI_Allreduce: predefined operations on the C basic types run in Canopy;
    user-defined operations and other types go to PMPI (mpi_reduction.h). */
int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
           const char *algorithm = nullptr) noexcept;
int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              const char *algorithm = nullptr) noexcept;

/** The MPI behind PMPI_*, as the selection rules name it: "open_mpi", "mpich" or "other" (a rule
    measured under one MPI holds there only). */
const std::string &mpi_library();

/** CANOPY_DISABLE=1: libcanopy-mpi.so passes everything to PMPI (read once per process). */
bool disabled() noexcept;

}  // namespace canopy::coll
