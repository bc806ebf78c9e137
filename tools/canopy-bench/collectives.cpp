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

// --- Bcast: the root's buffer, everywhere.
int bcast_canopy(const Call &c, const char *algorithm) {
  return coll::bcast(c.recv, static_cast<int>(c.bytes), MPI_BYTE, c.root, c.comm, algorithm);
}
int bcast_mpi(const Call &c) { return PMPI_Bcast(c.recv, static_cast<int>(c.bytes), MPI_BYTE, c.root, c.comm); }
std::string bcast_why_not(const coll::Hierarchy &h, const std::string &name) {
  return why_not(coll::bcast_implementation(name), h);
}
void bcast_fill(const Call &c, uint32_t seed) { fill_pattern(c.recv, c.bytes, seed, c.rank == c.root ? c.root : kPoison); }
size_t bcast_errors(const Call &c, uint32_t seed) { return count_mismatches(c.recv, c.bytes, seed, c.root); }

// --- Allgather: every rank's block, in rank order, everywhere.
int allgather_canopy(const Call &c, const char *algorithm) {
  int n = static_cast<int>(c.bytes);
  return coll::allgather(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm, algorithm);
}
int allgather_mpi(const Call &c) {
  int n = static_cast<int>(c.bytes);
  return PMPI_Allgather(c.send, n, MPI_BYTE, c.recv, n, MPI_BYTE, c.comm);
}
std::string allgather_why_not(const coll::Hierarchy &h, const std::string &name) {
  return why_not(coll::allgather_implementation(name), h);
}
void allgather_fill(const Call &c, uint32_t seed) {
  fill_pattern(c.send, c.bytes, seed, c.rank);
  fill_pattern(c.recv, c.bytes * static_cast<size_t>(c.size), seed, kPoison);
}
size_t allgather_errors(const Call &c, uint32_t seed) {
  size_t wrong = 0;
  for (int r = 0; r < c.size; ++r) wrong += count_mismatches(c.recv + static_cast<size_t>(r) * c.bytes, c.bytes, seed, r);
  return wrong;
}

// --- Barrier: no data (its ordering guarantee is checked by the MPI test suite).
int barrier_canopy(const Call &c, const char *algorithm) { return coll::barrier(c.comm, algorithm); }
int barrier_mpi(const Call &c) { return PMPI_Barrier(c.comm); }
std::string barrier_why_not(const coll::Hierarchy &h, const std::string &name) {
  return why_not(coll::barrier_implementation(name), h);
}

const std::vector<CollectiveEntry> kTable = {
    {"bcast", "Broadcast", coll::Collective::Bcast, true, true, no_bytes, one_block, bcast_canopy, bcast_mpi,
     bcast_why_not, bcast_fill, bcast_errors},
    {"allgather", "Allgather", coll::Collective::Allgather, false, true, one_block, all_blocks, allgather_canopy,
     allgather_mpi, allgather_why_not, allgather_fill, allgather_errors},
    {"barrier", "Barrier", coll::Collective::Barrier, false, false, no_bytes, no_bytes, barrier_canopy, barrier_mpi,
     barrier_why_not, nullptr, nullptr},
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
