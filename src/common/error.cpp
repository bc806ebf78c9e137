#include "common/error.h"

namespace canopy {
namespace {
thread_local std::string last_error;
}

Error parse_error(const std::string &file, size_t line, const std::string &what) {
  return Error(CANOPY_ERR_PARSE, file + ":" + std::to_string(line) + ": " + what);
}

void set_last_error(const std::string &message) { last_error = message; }

}  // namespace canopy

extern "C" {

const char *canopy_status_string(canopy_status_t status) {
  switch (status) {
    case CANOPY_SUCCESS: return "success";
    case CANOPY_ERR_INVALID_ARG: return "invalid argument";
    case CANOPY_ERR_NO_MEMORY: return "out of memory";
    case CANOPY_ERR_IO: return "input/output error";
    case CANOPY_ERR_PARSE: return "parse error";
    case CANOPY_ERR_NOT_FOUND: return "not found";
    case CANOPY_ERR_ROUTE: return "broken route (forwarding-table hole or loop)";
    case CANOPY_ERR_UNSUPPORTED: return "unsupported";
    case CANOPY_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char *canopy_last_error(void) { return canopy::last_error.c_str(); }

const char *canopy_version(void) { return CANOPY_VERSION_STRING; }
}
