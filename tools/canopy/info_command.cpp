// canopy info: version; --config: every parameter with its value and source;
// --algorithms: every collective algorithm with the parameters it reads; --hca: this host's
// InfiniBand ports and the one whose rate the Bcast between node leaders takes.
#include <cstdio>
#include <memory>

#include "cli.h"
#include "commands.h"
#include "coll/plan/catalog.h"
#include "coll/plan/selection.h"
#include "common/error.h"
#include "common/params.h"
#include "topo/local_hca.h"

namespace canopy::cli {
namespace {

struct InfoOptions {
  bool config = false, algorithms = false, hca = false, json = false;
};

std::string range_text(const coll::Range &r) {
  return std::to_string(r.min) + ".." + (r.max < 0 ? std::string("") : std::to_string(r.max));
}

nlohmann::json algorithm_json(const coll::AlgorithmInfo &info) {
  nlohmann::json params = nlohmann::json::array();
  for (const char *name : info.params) params.push_back({{"name", name}, {"value", param_lookup(name).text}});
  return {{"collective", coll::collective_name(info.coll)}, {"name", info.name}, {"summary", info.summary},
          {"params", params}};
}

// The catalogue (algorithms and their parameters' current values) and the built-in rules.
int print_algorithms(bool json) {
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const coll::AlgorithmInfo &info : coll::algorithm_catalog()) all.push_back(algorithm_json(info));
    print_json(all);
    return 0;
  }
  for (coll::Collective c : coll::all_collectives()) {
    std::printf("%s (force with %s):\n", coll::collective_name(c),
                param_env_name(std::string(coll::collective_name(c)) + "_algorithm").c_str());
    for (const coll::AlgorithmInfo &info : coll::algorithm_catalog()) {
      if (info.coll != c) continue;
      std::printf("  %-24s %s\n", info.name, info.summary);
      for (const char *name : info.params) std::printf("  %-24s   %s = %s\n", "", name, param_lookup(name).text.c_str());
    }
    std::printf("  built-in rules (first match; comm size, nodes, ranks per node, bytes, MPI library):\n");
    for (const coll::Rule &r : coll::builtin_rules(c))
      std::printf("    %-10s %-10s %-10s %-16s %-9s -> %s\n", range_text(r.comm_size).c_str(),
                  range_text(r.nodes).c_str(), range_text(r.ranks_per_node).c_str(), range_text(r.bytes).c_str(),
                  r.library.empty() ? "any" : r.library.c_str(), r.algorithm.c_str());
  }
  return 0;
}

// The ports under /sys/class/infiniband, and the one coll_hca_port picks (none: said, exit 0,
// since a host without InfiniBand is no error of this command).
int print_hca_ports(bool json) {
  std::vector<topo::HcaPort> ports = topo::local_hca_ports();
  std::string wanted = param_string("coll_hca_port"), chosen, why;
  try {
    chosen = topo::host_hca_port(ports, wanted).name();
  } catch (const Error &e) {
    why = e.what();
  }
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const topo::HcaPort &p : ports)
      all.push_back({{"device", p.device}, {"port", p.port}, {"active", p.active}, {"rate", p.rate_text},
                     {"gbps", p.rate.gbps}});
    auto text_or_null = [](const std::string &s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); };
    print_json({{"ports", all}, {"coll_hca_port", wanted}, {"chosen", text_or_null(chosen)}, {"reason", text_or_null(why)}});
    return 0;
  }
  for (const topo::HcaPort &p : ports)
    std::printf("%s  %-10s  %-24s  %g Gb/s data\n", p.name().c_str(), p.active ? "active" : "not active",
                p.rate_text.c_str(), p.rate.gbps);
  if (chosen.empty())
    std::printf("the Bcast between node leaders takes none without topo_server: %s\n", why.c_str());
  else
    std::printf("the Bcast between node leaders takes %s without topo_server (coll_hca_port '%s')\n", chosen.c_str(),
                wanted.c_str());
  return 0;
}

int run_info(const InfoOptions &o) {
  if (o.algorithms) return print_algorithms(o.json);
  if (o.hca) return print_hca_ports(o.json);
  if (!o.config) {
    std::string config = param_config_file();  // read, so that a broken one is reported here too
    if (o.json)
      print_json({{"version", CANOPY_VERSION_STRING}, {"config_file", config.empty() ? nlohmann::json() : nlohmann::json(config)}});
    else
      std::printf("canopy %s\n%sUse --config for the parameters, --algorithms for the collective algorithms.\n",
                  CANOPY_VERSION_STRING, config.empty() ? "" : ("config file: " + config + "\n").c_str());
    return 0;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const ParamDef &def : param_registry()) {
    ParamValue value = param_lookup(def.name);
    std::string range = param_range(def);
    if (o.json) {
      bool bounded = !range.empty();
      all.push_back({{"name", def.name}, {"type", param_type_name(def.type)}, {"value", value.text},
                     {"default", def.default_value}, {"source", value.source},
                     {"environment", param_env_name(def.name)}, {"doc", def.doc},
                     {"min", bounded ? nlohmann::json(def.min) : nlohmann::json()},
                     {"max", bounded ? nlohmann::json(def.max) : nlohmann::json()}});
    } else {
      std::printf("%-24s = %-10s (%s)\n    %s [%s%s%s, env %s]\n", def.name, value.text.c_str(), value.source.c_str(),
                  def.doc, param_type_name(def.type), range.empty() ? "" : " ", range.c_str(),
                  param_env_name(def.name).c_str());
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
  cmd->add_flag("--algorithms", o->algorithms, "Collective algorithms, the parameters they read, the built-in selection rules");
  cmd->add_flag("--hca", o->hca, "This host's InfiniBand ports, state and rate, and the one whose rate stands for it "
                                 "in the Bcast between node leaders without topo_server (coll_hca_port)");
  add_json_flag(*cmd, o->json);
  return [o] { return run_info(*o); };
}

}  // namespace canopy::cli
