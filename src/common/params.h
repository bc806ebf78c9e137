// The parameter registry: every tunable of Canopy, declared once in params.cpp
// with its type, default and documentation. Values come from (lowest to highest
// priority) the default, the JSON object in CANOPY_CONFIG_FILE, and the
// environment variable CANOPY_<NAME>.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "common/log.h"

namespace canopy {

enum class ParamType { Int, Double, Bool, String };

struct ParamDef {
  const char *name;
  ParamType type;
  const char *default_value;
  const char *doc;
  double min = -HUGE_VAL, max = HUGE_VAL;  // Int and Double: the values allowed
};

struct ParamValue {
  std::string text;    // the value, as text
  std::string source;  // "default", "config file PATH" or "environment CANOPY_NAME"
};

const std::vector<ParamDef> &param_registry();
const char *param_type_name(ParamType type);
/** "2..64" for a numeric parameter with bounds, "" otherwise. */
std::string param_range(const ParamDef &def);
std::string param_env_name(const std::string &name);

/** The config file CANOPY_CONFIG_FILE names, "" for none; read and checked (Error(PARSE), Error(IO)). */
std::string param_config_file();

/** Current value and its source; throws Error(NOT_FOUND) or Error(INVALID_ARG) on a bad value
    (the wrong type, not finite, or outside the parameter's range). */
ParamValue param_lookup(const std::string &name);

std::string param_string(const std::string &name);
long long param_int(const std::string &name);
double param_double(const std::string &name);
bool param_bool(const std::string &name);
/** param_bool(@p name), or @p fallback where its value is bad, which is logged at @p level as
    "REASON; @p consequence". For switches read once. */
bool param_bool_or(const std::string &name, bool fallback, log::Level level, const char *consequence) noexcept;

}  // namespace canopy
