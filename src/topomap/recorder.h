// The communication graph of a running job, for `canopy map`: with the parameter
// map_record_graph set (CANOPY_MAP_RECORD_GRAPH=FILE), the point-to-point sends the
// application makes through libcanopy-mpi.so add their bytes per destination (a rank of
// MPI_COMM_WORLD), and MPI_Finalize gathers every rank's counts on rank 0, which writes FILE
// as an edge list ("processes N", then "SRC DST BYTES", the bytes SRC sent DST).
// Counted: MPI_Send, Isend, Ssend, Issend, Rsend, Irsend, Bsend, Ibsend, Sendrecv,
// Sendrecv_replace, and the persistent sends (Send_init, Ssend_init, Rsend_init, Bsend_init)
// at every MPI_Start / MPI_Startall, on intra-communicators. Not counted: collectives,
// neighbourhood collectives, one-sided and inter-communicator traffic.
#pragma once
#include <mpi.h>

namespace canopy::topomap {

/** Called once MPI_Init(_thread) succeeded, on every rank: starts recording where
    map_record_graph names a file (and CANOPY_DISABLE is off). Never throws. */
void start_recording() noexcept;

/** Whether sends are being counted now (callers that must convert handles first ask). */
bool recording() noexcept;

/** A send of @p count elements of @p type to rank @p dest of @p comm. Nothing unless
    recording (one branch after the first call); MPI_PROC_NULL, inter-communicators and
    anything MPI would refuse are left to MPI. Never throws. */
void record_send(int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept;

/** A persistent send made (MPI_Send_init and its forms): counted at each start. */
void record_persistent_send(MPI_Request request, int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept;
/** MPI_Start / MPI_Startall of @p requests (any kind; the persistent sends among them count). */
void record_starts(int count, const MPI_Request *requests) noexcept;
/** MPI_Request_free of @p request, before MPI may hand its handle out again. */
void forget_request(MPI_Request request) noexcept;

}  // namespace canopy::topomap
