// libFuzzer target: ibnetdiscover default output. Any input must either load or
// fail with canopy::Error; crashes, leaks, UB and hangs are bugs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "topo/loaders/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  (void)canopy::guard([&] { (void)canopy::topo::load_ibnetdiscover(text, "fuzz.txt"); });
  return 0;
}
