/* Shared by the communication-pattern benchmarks (halo3d, spmv_pattern): message
 * buffers that stay small under SimGrid SMPI, the timed exchange loop, and the
 * one result line the scripts read. Plain C99 + MPI, so the same programs build
 * with any mpicc and with smpicc. */
#ifndef CANOPY_PATTERN_COMMON_H
#define CANOPY_PATTERN_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SMPI runs every rank in one process: its shared malloc lets 1,024 ranks
 * "own" megabytes of buffers each without the memory. Payload contents are
 * irrelevant to the timing. */
#ifdef SMPI_SHARED_MALLOC
#define PATTERN_ALLOC(bytes) SMPI_SHARED_MALLOC((bytes) > 0 ? (bytes) : 1)
#define PATTERN_FREE(p) SMPI_SHARED_FREE(p)
#else
#define PATTERN_ALLOC(bytes) malloc((bytes) > 0 ? (bytes) : 1)
#define PATTERN_FREE(p) free(p)
#endif

/* One peer of this rank in the exchange: send to it, or receive from it. */
typedef struct {
  int rank;
  size_t bytes;
} pattern_peer;

typedef struct {
  pattern_peer *sends, *recvs;
  int num_sends, num_recvs;
} pattern_exchange;

/* An error every rank meets alike (options, the graph file): rank 0 prints
 * "PROGRAM: error: ..." once and aborts the job; the others wait for the abort. */
static inline void pattern_fail(const char *program, const char *what) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fprintf(stderr, "%s: error: %s\n", program, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* rank 0 never arrives: it aborted */
  MPI_Abort(MPI_COMM_WORLD, 2); /* not reached */
}

/* An error of this rank alone (out of memory): it prints and aborts the job. */
static inline void pattern_fail_local(const char *program, const char *what) {
  fprintf(stderr, "%s: error: %s\n", program, what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static inline int pattern_parse_count(const char *text, long min, long max, long *value) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) return 0;
  *value = v;
  return 1;
}

/* The time of one exchange step. Every rank leaves a barrier, runs @p warmup
 * untimed steps, notes the time (its start), runs @p iters timed steps and notes
 * the time again (its end). Ranks leave a barrier microseconds apart, as much
 * as a whole step of small messages; the warm-up steps absorb that skew.
 * - With a global clock (MPI_WTIME_IS_GLOBAL, as under SMPI) the step time is the
 *   interval from the moment the last rank finished the warm-up to the moment the
 *   last rank finished the timed steps, divided by @p iters: the period at which
 *   the job as a whole completes steps.
 * - With local clocks (most real MPI jobs) it is the slowest rank's own end minus
 *   start, divided by @p iters. A rank that starts early waits for its neighbours,
 *   so a short run overstates the step; time more steps there.
 * Returns the step time in seconds on every rank; *global_clock says which. */
static inline double pattern_run(const pattern_exchange *x, int warmup, int iters, int *global_clock) {
  size_t send_bytes = 0, recv_bytes = 0;
  for (int i = 0; i < x->num_sends; ++i) send_bytes = x->sends[i].bytes > send_bytes ? x->sends[i].bytes : send_bytes;
  for (int i = 0; i < x->num_recvs; ++i) recv_bytes += x->recvs[i].bytes;
  char *send_buf = (char *)PATTERN_ALLOC(send_bytes), *recv_buf = (char *)PATTERN_ALLOC(recv_bytes);
  int n = x->num_sends + x->num_recvs;
  MPI_Request *requests = (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)(n > 0 ? n : 1));
  int *is_global = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &is_global, &flag);
  *global_clock = flag && is_global && *is_global;
  double start = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int step = 0; step < warmup + iters; ++step) {
    if (step == warmup) start = MPI_Wtime();
    size_t offset = 0;
    for (int i = 0; i < x->num_recvs; ++i) {
      MPI_Irecv(recv_buf + offset, (int)x->recvs[i].bytes, MPI_BYTE, x->recvs[i].rank, 0, MPI_COMM_WORLD, &requests[i]);
      offset += x->recvs[i].bytes;
    }
    for (int i = 0; i < x->num_sends; ++i)
      MPI_Isend(send_buf, (int)x->sends[i].bytes, MPI_BYTE, x->sends[i].rank, 0, MPI_COMM_WORLD,
                &requests[x->num_recvs + i]);
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  }
  double end = MPI_Wtime(), last[2] = {start, end}, step_time = 0;
  if (*global_clock) {
    MPI_Allreduce(MPI_IN_PLACE, last, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    step_time = (last[1] - last[0]) / iters;
  } else {
    double own = (end - start) / iters;
    MPI_Allreduce(&own, &step_time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  free(requests);
  PATTERN_FREE(send_buf);
  PATTERN_FREE(recv_buf);
  return step_time;
}

/* The result line the scripts parse: "per_iter_us=" is pattern_run's step time,
 * "clock=" how it was measured (global or local), "comm_time_s=" the step time
 * times the timed steps. */
static inline void pattern_report(const char *program, const char *details, int iters, double step_seconds,
                                  int global_clock) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    printf("%s ranks=%d %s iters=%d clock=%s comm_time_s=%.9g per_iter_us=%.6g\n", program, size, details, iters,
           global_clock ? "global" : "local", step_seconds * iters, 1e6 * step_seconds);
}

#endif
