#include "collectives.h"

#include <cstring>

#include "coll/algorithms.h"
#include "coll/dispatch.h"

namespace canopy::bench {
namespace {

template <class Fn>
std::string why_not(const coll::Implementation<Fn> *impl, const coll::Hierarchy &h) {
  if (!impl) return "has no implementation";
  return impl->applicable ? impl->applicable(h) : "";
}
/** why_not for the collective whose implementations @p Lookup finds. */
template <auto Lookup>
std::string why_not_in(const coll::Hierarchy &h, const std::string &name) {
  return why_not(Lookup(name), h);
}

size_t no_bytes(size_t, int) { return 0; }
size_t one_block(size_t bytes, int) { return bytes; }
size_t all_blocks(size_t bytes, int ranks) { return bytes * static_cast<size_t>(ranks); }

void fill_pattern(char *buf, size_t bytes, uint32_t seed, int origin) {
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<char>(pattern(seed, origin, i));
}

size_t count_mismatches(const char *buf, size_t bytes, uint32_t seed, int origin) {
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i) wrong += static_cast<uint8_t>(buf[i]) != pattern(seed, origin, i);
  return wrong;
}

// A poison no rank contributes (origins are ranks, -1 is none), so a byte a collective
// forgot to write is always counted wrong.
constexpr int kPoison = -1;

// Block j (of c.bytes) of a p-block buffer holds the pattern of origin(j).
int rank_of_block(const Call &, int j) { return j; }
template <class Origin>
void fill_blocks(const Call &c, char *buf, uint32_t seed, Origin origin) {
  for (int j = 0; j < c.size; ++j) fill_pattern(buf + static_cast<size_t>(j) * c.bytes, c.bytes, seed, origin(c, j));
}
template <class Origin>
size_t block_errors(const Call &c, const char *buf, uint32_t seed, Origin origin) {
  size_t wrong = 0;
  for (int j = 0; j < c.size; ++j)
    wrong += count_mismatches(buf + static_cast<size_t>(j) * c.bytes, c.bytes, seed, origin(c, j));
  return wrong;
}
void poison_blocks(const Call &c, char *buf) { fill_pattern(buf, all_blocks(c.bytes, c.size), 0, kPoison); }
/** The result lives at the root only (MPI leaves the other ranks' receive buffers alone). */
template <size_t (*Errors)(const Call &, uint32_t)>
size_t at_root(const Call &c, uint32_t seed) {
  return c.rank == c.root ? Errors(c, seed) : 0;
}

// --- Bcast: the root's buffer, everywhere.
int bcast_canopy(const Call &c, const char *algorithm) {
  return coll::bcast(c.recv, static_cast<int>(c.bytes), MPI_BYTE, c.root, c.comm, algorithm);
}
int bcast_mpi(const Call &c) { return PMPI_Bcast(c.recv, static_cast<int>(c.bytes), MPI_BYTE, c.root, c.comm); }
void bcast_fill(const Call &c, uint32_t seed) { fill_pattern(c.recv, c.bytes, seed, c.rank == c.root ? c.root : kPoison); }
size_t bcast_errors(const Call &c, uint32_t seed) { return count_mismatches(c.recv, c.bytes, seed, c.root); }

// --- Allgather: every rank's block, in rank order, everywhere. Gather: the same at the root.
int allgather_canopy(const Call &c, const char *algorithm) {
  int n = static_cast<int>(c.bytes);
  return coll::allgather(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm, algorithm);
}
int allgather_mpi(const Call &c) {
  int n = static_cast<int>(c.bytes);
  return PMPI_Allgather(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm);
}
void gathered_fill(const Call &c, uint32_t seed) {
  fill_pattern(c.send, c.bytes, seed, c.rank);
  poison_blocks(c, c.recv);
}
size_t gathered_errors(const Call &c, uint32_t seed) { return block_errors(c, c.recv, seed, rank_of_block); }

// --- Scatter and Gather share MPI's signature: p blocks of c.bytes at the root, one elsewhere.
template <auto Canopy>
int rooted_blocks_canopy(const Call &c, const char *algorithm) {
  int n = static_cast<int>(c.bytes);
  return Canopy(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.root, c.comm, algorithm);
}
template <auto Mpi>
int rooted_blocks_mpi(const Call &c) {
  int n = static_cast<int>(c.bytes);
  return Mpi(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.root, c.comm);
}
// Scatter: the root's block j, on rank j.
void scatter_fill(const Call &c, uint32_t seed) {
  if (c.rank == c.root) fill_blocks(c, c.send, seed, rank_of_block);
  fill_pattern(c.recv, c.bytes, seed, kPoison);
}
size_t scatter_errors(const Call &c, uint32_t seed) { return count_mismatches(c.recv, c.bytes, seed, c.rank); }

// --- Alltoall: block j of rank i's send buffer is block i of rank j's receive buffer; its
// pattern names both ends (origin i * p + j), so a block delivered to the wrong place fails.
int alltoall_canopy(const Call &c, const char *algorithm) {
  int n = static_cast<int>(c.bytes);
  return coll::alltoall(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm, algorithm);
}
int alltoall_mpi(const Call &c) {
  int n = static_cast<int>(c.bytes);
  return PMPI_Alltoall(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm);
}
int sent_to(const Call &c, int j) { return c.rank * c.size + j; }
int received_from(const Call &c, int i) { return i * c.size + c.rank; }
void alltoall_fill(const Call &c, uint32_t seed) {
  fill_blocks(c, c.send, seed, sent_to);
  poison_blocks(c, c.recv);
}
size_t alltoall_errors(const Call &c, uint32_t seed) { return block_errors(c, c.recv, seed, received_from); }

// --- Reduce and Allreduce: MPI_SUM over MPI_FLOAT (osu_reduce's type). Every element is a
// small integer, so every summation order gives the exact sum and the check can be bitwise.
int floats(const Call &c) { return static_cast<int>(c.bytes / sizeof(float)); }
float contribution(uint32_t seed, int origin, size_t k) { return static_cast<float>(pattern(seed, origin, k) % 16); }
int reduce_canopy(const Call &c, const char *algorithm) {
  return coll::reduce(c.send, c.recv, floats(c), MPI_FLOAT, MPI_SUM, c.root, c.comm, algorithm);
}
int reduce_mpi(const Call &c) { return PMPI_Reduce(c.send, c.recv, floats(c), MPI_FLOAT, MPI_SUM, c.root, c.comm); }
int allreduce_canopy(const Call &c, const char *algorithm) {
  return coll::allreduce(c.send, c.recv, floats(c), MPI_FLOAT, MPI_SUM, c.comm, algorithm);
}
int allreduce_mpi(const Call &c) { return PMPI_Allreduce(c.send, c.recv, floats(c), MPI_FLOAT, MPI_SUM, c.comm); }
void sum_fill(const Call &c, uint32_t seed) {
  const float poison = -1;  // no sum of non-negative contributions
  for (size_t k = 0; k < static_cast<size_t>(floats(c)); ++k) {
    float mine = contribution(seed, c.rank, k);
    std::memcpy(c.send + k * sizeof(float), &mine, sizeof(float));  // memcpy: the buffers are bytes
    std::memcpy(c.recv + k * sizeof(float), &poison, sizeof(float));
  }
}
size_t sum_errors(const Call &c, uint32_t seed) {
  size_t wrong = 0;
  for (size_t k = 0; k < static_cast<size_t>(floats(c)); ++k) {
    float sum = 0;
    for (int r = 0; r < c.size; ++r) sum += contribution(seed, r, k);
    char expected[sizeof(float)];
    std::memcpy(expected, &sum, sizeof(float));
    for (size_t b = 0; b < sizeof(float); ++b) wrong += c.recv[k * sizeof(float) + b] != expected[b];
  }
  return wrong;
}

// --- Barrier: no data (its ordering guarantee is checked by the MPI test suite).
int barrier_canopy(const Call &c, const char *algorithm) { return coll::barrier(c.comm, algorithm); }
int barrier_mpi(const Call &c) { return PMPI_Barrier(c.comm); }

using coll::Collective;
// Titles and datatypes as OSU's osu_<name> prints them.
const std::vector<CollectiveEntry> kTable = {
    {"bcast", "Broadcast", Collective::Bcast, true, true, "MPI_CHAR", 1, no_bytes, one_block, bcast_canopy, bcast_mpi,
     why_not_in<coll::bcast_implementation>, bcast_fill, bcast_errors},
    {"allgather", "Allgather", Collective::Allgather, false, true, "MPI_CHAR", 1, one_block, all_blocks,
     allgather_canopy, allgather_mpi, why_not_in<coll::allgather_implementation>, gathered_fill, gathered_errors},
    {"barrier", "Barrier", Collective::Barrier, false, false, "MPI_CHAR", 1, no_bytes, no_bytes, barrier_canopy,
     barrier_mpi, why_not_in<coll::barrier_implementation>, nullptr, nullptr},
    {"scatter", "Scatter", Collective::Scatter, true, true, "MPI_CHAR", 1, all_blocks, one_block,
     rooted_blocks_canopy<coll::scatter>, rooted_blocks_mpi<PMPI_Scatter>, why_not_in<coll::scatter_implementation>,
     scatter_fill, scatter_errors},
    {"gather", "Gather", Collective::Gather, true, true, "MPI_CHAR", 1, one_block, all_blocks,
     rooted_blocks_canopy<coll::gather>, rooted_blocks_mpi<PMPI_Gather>, why_not_in<coll::gather_implementation>,
     gathered_fill, at_root<gathered_errors>},
    {"alltoall", "All-to-All Personalized Exchange", Collective::Alltoall, false, true, "MPI_CHAR", 1, all_blocks,
     all_blocks, alltoall_canopy, alltoall_mpi, why_not_in<coll::alltoall_implementation>, alltoall_fill,
     alltoall_errors},
    {"reduce", "Reduce", Collective::Reduce, true, true, "MPI_FLOAT", sizeof(float), one_block, one_block,
     reduce_canopy, reduce_mpi, why_not_in<coll::reduce_implementation>, sum_fill, at_root<sum_errors>},
    {"allreduce", "Allreduce", Collective::Allreduce, false, true, "MPI_FLOAT", sizeof(float), one_block, one_block,
     allreduce_canopy, allreduce_mpi, why_not_in<coll::allreduce_implementation>, sum_fill, sum_errors},
};

}  // namespace

uint8_t pattern(uint32_t seed, int origin, size_t i) {
  uint32_t x = seed * 0x9E3779B1u ^ static_cast<uint32_t>(origin + 2) * 0x85EBCA6Bu ^ static_cast<uint32_t>(i) * 0xC2B2AE35u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<uint8_t>(x);
}

const std::vector<CollectiveEntry> &collective_table() { return kTable; }

const CollectiveEntry *find_collective(const std::string &name) {
  for (const CollectiveEntry &entry : kTable)
    if (name == entry.name) return &entry;
  return nullptr;
}

std::string collective_names() {
  std::string names;
  for (const CollectiveEntry &entry : kTable) names += (names.empty() ? "" : ", ") + std::string(entry.name);
  return names;
}

}  // namespace canopy::bench
