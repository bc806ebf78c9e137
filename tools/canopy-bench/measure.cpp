#include "measure.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "coll/hierarchy.h"
#include "common/error.h"

namespace canopy::bench {
namespace {

// Same on every rank: the validated data changes with the size, the algorithm and the
// call, so a stale buffer from an earlier call never passes.
uint32_t validation_seed(size_t bytes, size_t algorithm, long iteration) {
  return static_cast<uint32_t>(bytes * 2654435761u + algorithm * 40503u + static_cast<uint64_t>(iteration) + 1);
}

// Nearest-rank percentiles of @p times (copied: sorted here).
void percentiles(std::vector<double> times, double out[3]) {
  std::sort(times.begin(), times.end());
  const double wanted[3] = {50, 90, 99};
  for (int k = 0; k < 3; ++k) {
    size_t rank = static_cast<size_t>(std::ceil(wanted[k] / 100 * static_cast<double>(times.size())));
    out[k] = times[std::max<size_t>(rank, 1) - 1];
  }
}

}  // namespace

size_t default_purge_bytes() {
  long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? static_cast<size_t>(l2) : size_t{4} << 20;
}

Measurement::Measurement(const Options &opts, MPI_Comm comm) : opts_(opts), comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  size_t largest = opts.collective->sized ? opts.max_bytes : 0;
  // Allocated and touched once, so no call pays for first-touch page faults.
  send_.assign(std::max<size_t>(1, opts.collective->send_bytes(largest, size_)), 0);
  recv_.assign(std::max<size_t>(1, opts.collective->recv_bytes(largest, size_)), 0);
  if (opts.method == Method::SmpPaper) purge_.assign(opts.purge_bytes ? opts.purge_bytes : default_purge_bytes(), 0);
}

void Measurement::purge_caches() {
  // The paper's purge: write every byte of a cache-sized block, so the message's data
  // comes from memory. The barrier on the pointer keeps the compiler from dropping the writes.
  std::memset(purge_.data(), 0, purge_.size());
  asm volatile("" : : "r"(purge_.data()) : "memory");
}

double Measurement::timed_call(size_t algorithm, Call &call, long iteration, long &errors) {
  const CollectiveEntry &coll = *opts_.collective;
  const Algorithm &alg = opts_.algorithms[algorithm];
  call.root = opts_.rotate_root ? static_cast<int>(iteration % size_) : opts_.root;
  uint32_t seed = validation_seed(call.bytes, algorithm, iteration);
  if (opts_.validate) coll.fill(call, seed);
  if (opts_.method == Method::SmpPaper) purge_caches();
  PMPI_Barrier(comm_);
  double start = MPI_Wtime();
  int rc = alg.is_mpi() ? coll.run_mpi(call) : coll.run_canopy(call, alg.forced());
  double elapsed = MPI_Wtime() - start;
  if (rc != MPI_SUCCESS && failed_ == MPI_SUCCESS) failed_ = rc;
  if (alg.is_auto() && auto_choice_.empty())  // the same at every call of one size
    auto_choice_ = coll::hierarchy_of(comm_).last_choice[static_cast<size_t>(coll.catalog)].selection.algorithm;
  if (opts_.validate) errors += static_cast<long>(coll.count_errors(call, seed));
  return elapsed * 1e6;
}

Row Measurement::measure(size_t bytes) {
  const std::vector<Algorithm> &algs = opts_.algorithms;
  Row row{bytes, opts_.iterations_for(bytes), opts_.warmup_for(bytes), {}, {}};
  Call call{comm_, rank_, size_, bytes, opts_.root, send_.data(), recv_.data()};
  std::vector<std::vector<double>> times(algs.size());
  std::vector<long> errors(algs.size(), 0), calls(algs.size(), 0);
  auto_choice_.clear();
  for (size_t a = 0; a < algs.size(); ++a)
    for (int i = 0; i < row.warmup; ++i) timed_call(a, call, calls[a]++, errors[a]);
  int rounds = std::min(opts_.rounds, row.iterations);
  for (int r = 0; r < rounds; ++r) {
    // Round r runs its share of the iterations; the shares add up to exactly -i.
    int share = row.iterations * (r + 1) / rounds - row.iterations * r / rounds;
    for (size_t a = 0; a < algs.size(); ++a)
      for (int i = 0; i < share; ++i) times[a].push_back(timed_call(a, call, calls[a]++, errors[a]));
  }
  int failed = 0, mine = failed_ != MPI_SUCCESS;
  PMPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, comm_);
  if (failed) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (mine) MPI_Error_string(failed_, text, &len);
    throw Error(CANOPY_ERR_INTERNAL, std::string(opts_.collective->name) + " failed at " + std::to_string(bytes) +
                                         " bytes" + (mine ? std::string(": ") + text : " on another rank"));
  }
  for (size_t a = 0; a < algs.size(); ++a) row.stats.push_back(reduce(times[a], errors[a]));
  row.auto_choice = auto_choice_;
  return row;
}

Stats Measurement::reduce(const std::vector<double> &times, long errors) const {
  Stats s;
  PMPI_Reduce(&errors, &s.errors, 1, MPI_LONG, MPI_SUM, 0, comm_);
  int n = static_cast<int>(times.size());
  if (opts_.method == Method::Osu) {
    double mean = 0;
    for (double t : times) mean += t;
    mean /= n;
    double mine[4] = {mean}, sums[4] = {};
    percentiles(times, mine + 1);
    PMPI_Reduce(mine, sums, 4, MPI_DOUBLE, MPI_SUM, 0, comm_);
    PMPI_Reduce(&mean, &s.min_us, 1, MPI_DOUBLE, MPI_MIN, 0, comm_);
    PMPI_Reduce(&mean, &s.max_us, 1, MPI_DOUBLE, MPI_MAX, 0, comm_);
    s.avg_us = sums[0] / size_;
    s.p50_us = sums[1] / size_;
    s.p90_us = sums[2] / size_;
    s.p99_us = sums[3] / size_;
    return s;
  }
  std::vector<double> slowest(times.size());
  PMPI_Reduce(times.data(), slowest.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm_);
  if (rank_ == 0) {
    double sum = 0;
    for (double t : slowest) sum += t;
    s.avg_us = sum / n;
    s.min_us = *std::min_element(slowest.begin(), slowest.end());
    s.max_us = *std::max_element(slowest.begin(), slowest.end());
    double p[3];
    percentiles(slowest, p);
    s.p50_us = p[0], s.p90_us = p[1], s.p99_us = p[2];
  }
  return s;
}

}  // namespace canopy::bench
