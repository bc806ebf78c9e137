// libFuzzer target: the service client's answer parsers on arbitrary bytes (an
// answer comes from another process over the network). The first byte picks the
// parser (and the host count for matrices); each must succeed with consistent
// sizes or refuse with Error(PARSE) naming the answer kind. answer_error never throws.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "loader_fuzz_checks.h"
#include "service/client_answers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  std::string_view answer(reinterpret_cast<const char *>(data) + 1, size - 1);
  using namespace canopy::service;
  if (canopy::guard([&] { answer_error(answer); }) != CANOPY_SUCCESS) canopy::fuzz::finding("answer_error threw");
  const char *prefix = "";
  canopy_status_t status = canopy::guard([&] {
    switch (data[0] % 3) {
      case 0: {
        prefix = "matrix answer: ";
        int n = data[0] / 3 % 8;
        canopy::topo::HostMatrices m = parse_matrices_answer(answer, n);
        size_t cells = static_cast<size_t>(n) * n;
        if (m.n != n || m.hops.size() != cells || m.gbps.size() != cells || m.delay_us.size() != cells)
          canopy::fuzz::finding("matrix sizes");
        break;
      }
      case 1: {
        prefix = "route answer: ";
        canopy::topo::RouteView r = parse_route_answer(answer);
        if (r.path.empty()) canopy::fuzz::finding("empty route accepted");
        break;
      }
      default:
        prefix = "info answer: ";
        parse_info_answer(answer);
    }
  });
  canopy::fuzz::expect_success_or_parse_error(status, prefix);
  return 0;
}
