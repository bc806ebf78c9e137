#include "common/params.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <nlohmann/json.hpp>

#include "canopy/config.h"
#include "common/error.h"
#include "common/file_io.h"

namespace canopy {
namespace {

// The registry. Keep it sorted by component, then name.
const std::vector<ParamDef> kRegistry = {
    {"log_level", ParamType::String, "warn",
     "Messages written to stderr: error, warn, info, debug or trace."},
    {"service_client_matrix_hosts", ParamType::Int, "256",
     "Most hosts a topology service client names in one matrix request; longer lists are asked in blocks."},
    {"service_client_max_answer_bytes", ParamType::Int, "67108864",
     "Longest answer line a topology service client accepts (a matrix for n hosts takes about 30 n^2 bytes)."},
    {"service_client_timeout_s", ParamType::Double, "10",
     "Seconds a topology service client waits to resolve and connect, and for each answer, before giving up."},
    {"service_idle_timeout_s", ParamType::Int, "300",
     "canopyd closes a connection that sent nothing and received nothing for this many seconds."},
    {"service_listen", ParamType::String, "127.0.0.1:7470",
     "Address and port canopyd listens on (ADDR:PORT; [ADDR]:PORT for IPv6)."},
    {"service_max_clients", ParamType::Int, "10000",
     "Connections canopyd serves at once; one more is answered ERR and closed."},
    {"service_max_line_bytes", ParamType::Int, "1048576",
     "Longest canopyd request line; a longer one is answered ERR and the connection closed."},
    {"service_max_matrix_hosts", ParamType::Int, "256",
     "Most hosts in one canopyd matrix request (its cost grows with the square)."},
    {"service_max_pending_bytes", ParamType::Int, "16777216",
     "Answers canopyd holds for a client that does not read them before closing it."},
    {"service_poll_ms", ParamType::Int, "1000",
     "How often canopyd checks its dump directory for a new dump (milliseconds)."},
    {"service_threads", ParamType::Int, "2",
     "Threads answering canopyd connections."},
    {"topo_default_gbps", ParamType::Double, "100",
     "Link data rate (Gb/s) assumed where a topology source gives none (Slurm, torus files)."},
    {"topo_delay_bytes", ParamType::Int, "65536",
     "Message size whose transfer time the delay matrix models."},
    {"topo_hop_latency_us", ParamType::Double, "0.1",
     "Per-link latency (microseconds) used by the delay matrix."},
    {"topo_server", ParamType::String, "",
     "Topology service (canopyd) address HOST:PORT used when none is given: canopy_service_matrices(), "
     "`canopy query`."},
};

const ParamDef &find_def(const std::string &name) {
  for (const ParamDef &def : kRegistry)
    if (name == def.name) return def;
  throw Error(CANOPY_ERR_NOT_FOUND, "unknown parameter '" + name + "'");
}

// The config file is read once per path; the environment is read on every lookup.
const nlohmann::json &config_file(const std::string &path) {
  static std::mutex mutex;
  static std::string loaded_path;
  static nlohmann::json loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (path != loaded_path) {
    nlohmann::json parsed = nlohmann::json::parse(read_file(path), nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      throw Error(CANOPY_ERR_PARSE, path + ": CANOPY_CONFIG_FILE must hold a JSON object");
    loaded = std::move(parsed);
    loaded_path = path;
  }
  return loaded;
}

void check_type(const ParamDef &def, const std::string &text, const std::string &source) {
  const char *s = text.c_str();
  char *end = nullptr;
  bool ok = true;
  switch (def.type) {
    case ParamType::Int: std::strtoll(s, &end, 0); ok = !text.empty() && *end == 0; break;
    case ParamType::Double: std::strtod(s, &end); ok = !text.empty() && *end == 0; break;
    case ParamType::Bool: ok = text == "0" || text == "1" || text == "true" || text == "false"; break;
    case ParamType::String: break;
  }
  if (!ok)
    throw Error(CANOPY_ERR_INVALID_ARG, source + ": '" + text + "' is not a valid " +
                                            param_type_name(def.type) + " for " + def.name);
}

}  // namespace

const std::vector<ParamDef> &param_registry() { return kRegistry; }

const char *param_type_name(ParamType type) {
  switch (type) {
    case ParamType::Int: return "int";
    case ParamType::Double: return "double";
    case ParamType::Bool: return "bool";
    case ParamType::String: return "string";
  }
  return "?";
}

std::string param_env_name(const std::string &name) {
  std::string env = "CANOPY_";
  for (char c : name) env += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

ParamValue param_lookup(const std::string &name) {
  const ParamDef &def = find_def(name);
  ParamValue value{def.default_value, "default"};
  if (const char *path = std::getenv("CANOPY_CONFIG_FILE"); path && *path) {
    const nlohmann::json &config = config_file(path);
    if (auto it = config.find(name); it != config.end()) {
      value = {it->is_string() ? it->get<std::string>() : it->dump(), std::string("config file ") + path};
      if (value.text == "true" || value.text == "false") value.text = value.text == "true" ? "1" : "0";
    }
  }
  std::string env = param_env_name(name);
  if (const char *text = std::getenv(env.c_str())) value = {text, "environment " + env};
  check_type(def, value.text, value.source);
  return value;
}

std::string param_string(const std::string &name) { return param_lookup(name).text; }
long long param_int(const std::string &name) { return std::strtoll(param_lookup(name).text.c_str(), nullptr, 0); }
double param_double(const std::string &name) { return std::strtod(param_lookup(name).text.c_str(), nullptr); }
bool param_bool(const std::string &name) {
  std::string text = param_lookup(name).text;
  return text == "1" || text == "true";
}

}  // namespace canopy

extern "C" canopy_status_t canopy_config_get(const char *name, char *buf, int len) {
  return canopy::guard([&] {
    if (!name || !buf || len <= 0) throw canopy::Error(CANOPY_ERR_INVALID_ARG, "canopy_config_get: null or empty buffer");
    std::string text = canopy::param_lookup(name).text;
    std::snprintf(buf, static_cast<size_t>(len), "%s", text.c_str());
  });
}
