// libFuzzer target: the rate text of an InfiniBand port (/sys/class/infiniband/*/ports/*/rate)
// on arbitrary bytes. A text taken must give a positive, finite rate; an IB rate (width set)
// must be the width times its lanes' data rate.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "loader_fuzz_checks.h"
#include "topo/local_hca.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    canopy::topo::LinkRate rate;
    if (!canopy::topo::parse_sysfs_rate(text, rate)) return;
    if (!(rate.gbps > 0) || !std::isfinite(rate.gbps)) canopy::fuzz::finding("rate not positive and finite");
    if (rate.width != 0 && rate.gbps != rate.width * canopy::topo::lane_gbps(rate.speed))
      canopy::fuzz::finding("width x lane rate differs from the rate");
  });
  if (status != CANOPY_SUCCESS) canopy::fuzz::finding("parse_sysfs_rate threw");
  return 0;
}
