// Waiting on a shared-memory flag. A few busy polls catch the fast case when
// every rank has its own core; after that each poll yields the CPU, because
// when ranks outnumber cores (2 cores, 16 ranks in the tests) the rank we wait
// for cannot run until we step aside: pure spinning turns microseconds into
// whole scheduler time slices per step.
#pragma once
#include <sched.h>

namespace canopy::coll::shm {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/** Polls @p ready until true: @p spins busy polls, then sched_yield between polls. */
template <class Ready>
void poll_until(Ready &&ready, int spins) {
  for (int i = 0; !ready(); ++i) {
    if (i < spins)
      cpu_relax();
    else
      sched_yield();
  }
}

}  // namespace canopy::coll::shm
