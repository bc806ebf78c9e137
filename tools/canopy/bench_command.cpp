// canopy bench: the canopy tool does not link MPI, so the benchmark is a separate MPI program,
// canopy-bench, which this command execs in place with the same arguments. Under mpirun each
// rank starts as `canopy` and becomes `canopy-bench` (same process, same environment), so
// `mpirun -np 4 canopy bench bcast` works; options and --help belong to canopy-bench.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "common/error.h"

namespace canopy::cli {
namespace {

std::string own_folder() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string self(path, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/'));
}

// Beside canopy (the build tree's bin/), then the installed libexec/canopy/ (relative to bin/,
// so an installed tree can move, then the configured prefix).
std::vector<std::string> bench_candidates() {
  std::string here = own_folder();
  std::vector<std::string> paths = {here + "/canopy-bench", here + "/../libexec/canopy/canopy-bench"};
#ifdef CANOPY_BENCH_INSTALLED
  paths.push_back(CANOPY_BENCH_INSTALLED);
#endif
  return paths;
}

[[noreturn]] void exec_bench(const std::vector<std::string> &args) {
#ifndef CANOPY_BENCH_BUILT
  (void)args;
  throw Error(CANOPY_ERR_UNSUPPORTED,
              "canopy bench needs MPI, and this Canopy was built without it (CANOPY_WITH_MPI=OFF); "
              "install an MPI (scripts/setup.sh) and rebuild");
#else
  std::string tried;
  for (const std::string &path : bench_candidates()) {
    if (::access(path.c_str(), X_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    std::vector<char *> argv = {const_cast<char *>(path.c_str())};
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(path.c_str(), argv.data());
    throw Error(CANOPY_ERR_IO, "cannot run " + path + ": " + std::string(std::strerror(errno)));
  }
  throw Error(CANOPY_ERR_IO, "canopy-bench not found (looked for " + tried + ")");
#endif
}

}  // namespace

CommandRunner add_bench_command(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand(
      "bench", "Measure collectives' latency OSU-style under mpirun (canopy bench --help for its options)");
  // Everything after `bench`, --help included, is canopy-bench's to parse.
  cmd->set_help_flag();
  cmd->allow_extras();
  cmd->prefix_command();
  return [cmd]() -> int { exec_bench(cmd->remaining()); };
}

}  // namespace canopy::cli
