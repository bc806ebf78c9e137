// libFuzzer target: hostlist expansion on arbitrary bytes. The expansion must
// have the size hostlist_size() predicts, and every name must be non-empty
// printable ASCII without separators or brackets.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "loader_fuzz_checks.h"
#include "topo/loaders/hostlist.h"

namespace {
// The limit logic is the same for any bound; a legal expansion near the real
// one (detail::kMaxHostlistNames) takes seconds under the sanitizers.
constexpr uint64_t kMaxNames = 10000;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    std::vector<std::string> names = canopy::topo::detail::expand_hostlist_limited(text, kMaxNames);
    if (names.size() > kMaxNames) canopy::fuzz::finding("more names than the limit");
    if (names.size() != canopy::topo::detail::hostlist_size(text)) canopy::fuzz::finding("size mismatch");
    for (const std::string &name : names) {
      if (name.empty()) canopy::fuzz::finding("empty name");
      for (char c : name)
        if (c == ',' || c == '[' || c == ']' || static_cast<unsigned char>(c) <= ' ' ||
            static_cast<unsigned char>(c) >= 0x7f)
          canopy::fuzz::finding("bad character in name '" + name + "'");
    }
  });
  canopy::fuzz::expect_success_or_parse_error(status, "invalid hostlist '");
  return 0;
}
