// canopy: the command-line front end to Canopy's topology, mapping and collectives.
#include <map>

#include "cli.h"
#include "common/file_io.h"
#include "commands.h"

int main(int argc, char **argv) {
  canopy::remove_temporaries_on_signals();  // an interrupted map or topo leaves no temporaries
  CLI::App app{"Canopy: topology-aware communication toolkit for MPI clusters"};
  canopy::cli::setup_app(app, "canopy");
  app.require_subcommand(1);
  std::map<CLI::App *, canopy::cli::CommandRunner> commands;
  for (auto add : {canopy::cli::add_topo_command, canopy::cli::add_route_command,
                    canopy::cli::add_query_command, canopy::cli::add_map_command,
                    canopy::cli::add_bind_command, canopy::cli::add_info_command, canopy::cli::add_bench_command}) {
    size_t before = app.get_subcommands({}).size();
    canopy::cli::CommandRunner run = add(app);
    commands[app.get_subcommands({}).at(before)] = run;
  }
  return canopy::cli::run(app, argc, argv, [&] {
    for (auto &[command, run] : commands)
      if (command->parsed()) return run();
    return 2;
  });
}
