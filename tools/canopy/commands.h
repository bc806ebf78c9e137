// The `canopy` subcommands. Each registers its options on the parent app and
// returns the function that runs it once the command line is parsed.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace canopy::cli {

using CommandRunner = std::function<int()>;

CommandRunner add_topo_command(CLI::App &app);
CommandRunner add_route_command(CLI::App &app);
CommandRunner add_info_command(CLI::App &app);
CommandRunner add_query_command(CLI::App &app);
CommandRunner add_map_command(CLI::App &app);
CommandRunner add_bench_command(CLI::App &app);
CommandRunner add_bind_command(CLI::App &app);

}  // namespace canopy::cli
