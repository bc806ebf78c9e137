// The communication graph of a running job, for `canopy map`: with the parameter
// map_record_graph set (CANOPY_MAP_RECORD_GRAPH=FILE), the point-to-point sends the
// application makes through libcanopy-mpi.so add their bytes per destination (a rank of
// MPI_COMM_WORLD), and MPI_Finalize gathers every rank's counts on rank 0, which writes FILE
// as an edge list ("processes N", then "SRC DST BYTES", the bytes SRC sent DST).
// Counted: MPI_Send, Isend, Ssend, Issend, Rsend, Irsend, Bsend, Ibsend, Sendrecv and
// Sendrecv_replace on intra-communicators. Not counted: collectives, persistent requests,
// neighbourhood collectives, one-sided and inter-communicator traffic.
#pragma once
#include <mpi.h>

namespace canopy::topomap {

/** Called once MPI_Init(_thread) succeeded, on every rank: starts recording where
    map_record_graph names a file (and CANOPY_DISABLE is off). Never throws. */
void start_recording() noexcept;

/** A send of @p count elements of @p type to rank @p dest of @p comm. Nothing unless
    recording (one branch after the first call); MPI_PROC_NULL, inter-communicators and
    anything MPI would refuse are left to MPI. Never throws. */
void record_send(int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept;

}  // namespace canopy::topomap
