// Times loading a topology SOURCE (parse + finalize) and, separately, the
// whole-fabric summary; reports the best and median of N runs and peak RSS.
// Usage: bench_topology_load SOURCE [RUNS]   (RUNS 1-1000, default 5)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "topo/source.h"
#include "topo/views.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const char *what, std::vector<double> times) {
  std::sort(times.begin(), times.end());
  std::printf("%-22s best %8.3f s   median %8.3f s   (%zu runs)\n", what, times.front(), times[times.size() / 2],
              times.size());
}
}  // namespace

int main(int argc, char **argv) {
  const char *help = "usage: bench_topology_load SOURCE [RUNS]   (RUNS 1-1000, default 5)\n";
  if (argc == 2 && (std::string_view(argv[1]) == "-h" || std::string_view(argv[1]) == "--help")) {
    std::fputs(help, stdout);
    return 0;
  }
  uint64_t runs = 5;
  if (argc < 2 || argc > 3 || (argc == 3 && (!canopy::parse_uint(argv[2], runs, 10) || runs < 1 || runs > 1000))) {
    std::fputs(help, stderr);
    return 2;
  }
  std::vector<double> load_times, summary_times;
  canopy::topo::Summary summary;
  canopy_status_t status = canopy::guard([&] {
    for (uint64_t i = 0; i < runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      canopy::topo::Topology topo = canopy::topo::load_topology(argv[1]);
      load_times.push_back(seconds_since(start));
      start = std::chrono::steady_clock::now();
      summary = canopy::topo::summarize(topo);
      summary_times.push_back(seconds_since(start));
    }
  });
  if (status != CANOPY_SUCCESS) {
    std::fprintf(stderr, "bench_topology_load: %s\n", canopy_last_error());
    return 1;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("source: %s\nhosts %d, switches %d, links %d, forwarding tables %d, problems %zu\n", argv[1],
              summary.hosts, summary.switches, summary.links, summary.forwarding_tables, summary.forwarding.problems);
  report("load (parse+finalize)", load_times);
  report("summary (LFT check)", summary_times);
  std::printf("peak RSS %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
