// libFuzzer target: load_slurm_topology on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "loader_fuzz_checks.h"
#include "topo/loaders/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    canopy::topo::Topology topo = canopy::topo::load_slurm_topology(text, "fuzz.conf");
    canopy::fuzz::expect_consistent_links(topo);
  });
  canopy::fuzz::expect_success_or_parse_error(status, "fuzz.conf:");
  return 0;
}
