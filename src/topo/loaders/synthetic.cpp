#include "topo/loaders/synthetic.h"

#include <cmath>

#include "common/error.h"
#include "common/params.h"
#include "common/text.h"

namespace canopy::topo::synthetic {

LinkRate default_rate() {
  double gbps = param_double("topo_default_gbps");
  if (!std::isfinite(gbps) || gbps <= 0)
    throw Error(CANOPY_ERR_INVALID_ARG,
                "parameter topo_default_gbps must be a positive number of Gb/s, not " + std::to_string(gbps));
  return plain_rate(gbps);
}

bool parse_gbps(std::string_view text, double &gbps) {
  double value = 0;
  if (!parse_double(text, value) || !std::isfinite(value) || value <= 0) return false;
  gbps = value;
  return true;
}

std::string name_problem(std::string_view name) {
  if (name.empty()) return "empty name";
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return "name contains a space, control or non-ASCII character";
    if (c == '[' || c == ']' || c == ',' || c == '=' || c == '#')
      return std::string("name contains '") + c + "'";
  }
  return "";
}


}  // namespace canopy::topo::synthetic
