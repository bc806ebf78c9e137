// canopy info: version, and with --config every parameter with its value and source.
#include <cstdio>
#include <memory>

#include "cli.h"
#include "commands.h"
#include "common/params.h"

namespace canopy::cli {
namespace {

struct InfoOptions {
  bool config = false, json = false;
};

int run_info(const InfoOptions &o) {
  if (!o.config) {
    if (o.json)
      print_json({{"version", CANOPY_VERSION_STRING}});
    else
      std::printf("canopy %s\nUse --config for the parameters.\n", CANOPY_VERSION_STRING);
    return 0;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const ParamDef &def : param_registry()) {
    ParamValue value = param_lookup(def.name);
    if (o.json) {
      all.push_back({{"name", def.name}, {"type", param_type_name(def.type)}, {"value", value.text},
                     {"default", def.default_value}, {"source", value.source},
                     {"environment", param_env_name(def.name)}, {"doc", def.doc}});
    } else {
      std::printf("%-24s = %-10s (%s)\n    %s [%s, env %s]\n", def.name, value.text.c_str(), value.source.c_str(),
                  def.doc, param_type_name(def.type), param_env_name(def.name).c_str());
    }
  }
  if (o.json) print_json(all);
  return 0;
}

}  // namespace

CommandRunner add_info_command(CLI::App &app) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App *cmd = app.add_subcommand("info", "Version and configuration");
  cmd->add_flag("--config", o->config, "Every parameter: value, source (default, config file, environment) and doc");
  add_json_flag(*cmd, o->json);
  return [o] { return run_info(*o); };
}

}  // namespace canopy::cli
