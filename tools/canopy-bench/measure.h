// The measurement loop of `canopy bench`, for one message size:
//   warm-up: each algorithm in turn, -x calls;
//   timed:   rounds (several with --compare), each running every algorithm in turn, so that
//            noise on a shared machine hits all algorithms alike (the interleaving of the
//            topology-aware Bcast paper) instead of whichever ran during a quiet spell;
//   a call:  [fill inputs for -c] [purge caches: smp-paper] barrier, time the collective,
//            [check the result for -c].
// Statistics (rank 0):
//   osu        each rank averages its own call times; Avg is the mean of those averages over
//              ranks, Min/Max the smallest and largest of them (what osu_bcast prints);
//   smp-paper  every call's time is the maximum over ranks (first rank starting to last rank
//              finishing, as the tunable SMP collectives paper measures); Avg/Min/Max over calls.
// Percentiles (nearest rank): osu averages each rank's own percentiles over ranks; smp-paper takes
// them over the calls' maxima.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "options.h"

namespace canopy::bench {

struct Stats {
  double avg_us = 0, min_us = 0, max_us = 0;
  double p50_us = 0, p90_us = 0, p99_us = 0;  // percentiles (-z): robust where the mean is not
  long errors = 0;  // wrong bytes over all validated calls and ranks (-c)
};

struct Row {
  size_t bytes = 0;
  int iterations = 0, warmup = 0;
  std::vector<Stats> stats;  // one per algorithm, in Options::algorithms order (valid on rank 0)
  std::string auto_choice;   // the algorithm "auto" ran at this size (its selection); "" without auto
};

class Measurement {
 public:
  /** Buffers for the largest size; @p comm: the communicator to measure on (all ranks). */
  Measurement(const Options &opts, MPI_Comm comm);

  /** Collective over the communicator. Throws Error on every rank when a collective
      returned an MPI error on any rank. */
  Row measure(size_t bytes);

 private:
  /** One call of algorithm number @p algorithm; its time on this rank in microseconds. */
  double timed_call(size_t algorithm, Call &call, long iteration, long &errors);
  Stats reduce(const std::vector<double> &times, long errors) const;
  void purge_caches();

  const Options &opts_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<char> send_, recv_, purge_;
  int failed_ = MPI_SUCCESS;  // the first MPI error a call returned on this rank
  std::string auto_choice_;  // what "auto" ran at the size being measured
};

/** Bytes written before each call by smp-paper when --purge-bytes is not given: the L2 size. */
size_t default_purge_bytes();

}  // namespace canopy::bench
