// libFuzzer target: OpenSM's opensm-subnet.lst. Any input must give a topology
// or a canopy::Error, never a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"
#include "topo/loaders/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    canopy::topo::Topology topo =
        canopy::topo::load_subnet_lst(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.lst");
    // What a caller does next: look things up.
    for (int host : topo.hosts()) topo.find_host(topo.node(host).name);
  } catch (const canopy::Error &) {
  }
  return 0;
}
