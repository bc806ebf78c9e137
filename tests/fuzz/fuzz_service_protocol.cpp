// libFuzzer target: canopyd's request handling. The input is split into lines
// and answered one by one on one session (so "json on" and later requests
// combine), from the recorded two-switch dump. Every request, however hostile,
// must be answered with exactly one line and nothing may escape but bad_alloc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "service/protocol.h"
#include "topo/source.h"

using namespace canopy;

namespace {
const service::Snapshot &snapshot() {
  static const service::Snapshot loaded{topo::load_topology(CANOPY_FUZZ_DUMP), 1, 0};
  return loaded;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  service::AnswerContext context{&snapshot(), nullptr, 8};
  service::Session session;
  std::string_view input(reinterpret_cast<const char *>(data), size);
  std::string out;
  while (!input.empty() && !session.quit) {
    size_t end = input.find('\n');
    std::string_view line = input.substr(0, end);
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
    out.clear();
    service::answer_request(line, context, session, out);
    if (out.empty() || out.back() != '\n' || out.find('\n') != out.size() - 1) std::abort();
  }
  return 0;
}
