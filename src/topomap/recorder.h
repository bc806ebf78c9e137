// The communication graph of a running job, for `canopy map`: with the parameter
// map_record_graph set (CANOPY_MAP_RECORD_GRAPH=FILE), the point-to-point sends and
// neighbourhood collectives the application makes through libcanopy-mpi.so add their bytes per
// destination (a rank of MPI_COMM_WORLD), and MPI_Finalize gathers every rank's counts on
// rank 0, which writes FILE as an edge list ("processes N", then "SRC DST BYTES", the bytes SRC
// sent DST).
// Counted: MPI_Send, Isend, Ssend, Issend, Rsend, Irsend, Bsend, Ibsend, Sendrecv,
// Sendrecv_replace, the persistent sends (Send_init, Ssend_init, Rsend_init, Bsend_init)
// at every MPI_Start / MPI_Startall, and the neighbourhood collectives (MPI_Neighbor_allgather(v),
// alltoall(v,w) and their MPI_Ineighbor_ forms: each block to its out-neighbour), on
// intra-communicators. Not counted: the other collectives, one-sided and inter-communicator
// traffic.
#pragma once
#include <mpi.h>

#include <functional>
#include <utility>

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

/** A neighbourhood collective on the topology communicator @p comm: @p block(i) is what it
    sends its i-th out-neighbour (elements, type), in MPI's order of the send blocks. */
void record_neighbor_sends(MPI_Comm comm, const std::function<std::pair<int, MPI_Datatype>(int)> &block) noexcept;

/** A persistent send made (MPI_Send_init and its forms): counted at each start. */
void record_persistent_send(MPI_Request request, int count, MPI_Datatype type, int dest, MPI_Comm comm) noexcept;
/** MPI_Start / MPI_Startall of @p requests (any kind; the persistent sends among them count). */
void record_starts(int count, const MPI_Request *requests) noexcept;
/** MPI_Request_free of @p request, before MPI may hand its handle out again. */
void forget_request(MPI_Request request) noexcept;

}  // namespace canopy::topomap
