// canopy bind: runs a command bound to the CPU that a rankfile of `canopy map` gives its rank,
// so that the placement inside the nodes holds also under launchers that take only the hosts
// (Slurm's arbitrary distribution, MPICH's machine file):
//   SLURM_HOSTFILE=job.slurmhosts srun --distribution=arbitrary --cpu-bind=none -n P canopy bind job.rankfile -- ./app
// The process binds itself, then becomes the command (exec: same process, same environment).
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "map/outputs.h"
#include "topo/node_topology.h"

namespace canopy::cli {
namespace {

struct BindOptions {
  std::string rankfile;
  bool hwthreads = false, any_host = false;
  std::vector<std::string> command;
};

// Where launchers put a process's rank, in the order asked: under mpirun inside a Slurm
// job SLURM_PROCID is set too, but it numbers Open MPI's daemons, not the ranks.
constexpr const char *kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};

// This process's rank and the variable it came from.
std::pair<int, std::string> launcher_rank() {
  for (const char *name : kRankVariables) {
    const char *value = std::getenv(name);
    if (!value) continue;
    uint64_t rank = 0;
    if (!parse_uint(value, rank, 10) || rank > INT_MAX)
      throw Error(CANOPY_ERR_INVALID_ARG, std::string(name) + "='" + printable(value) + "' is not a rank");
    return {static_cast<int>(rank), name};
  }
  throw Error(CANOPY_ERR_INVALID_ARG,
              "no rank in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or SLURM_PROCID): "
              "run canopy bind under the job's launcher (srun, mpiexec, mpirun)");
}

std::string short_host(const std::string &name) { return name.substr(0, name.find('.')); }

std::string this_host() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) throw Error(CANOPY_ERR_IO, std::string("gethostname: ") + std::strerror(errno));
  return name;
}

int run_bind(const BindOptions &o) {
  auto [rank, variable] = launcher_rank();
  const map::RankfileEntry *mine = nullptr;
  std::vector<map::RankfileEntry> entries = map::read_rankfile(read_file(o.rankfile), o.rankfile);
  for (const map::RankfileEntry &entry : entries)
    if (entry.rank == rank) mine = &entry;
  if (!mine)
    throw Error(CANOPY_ERR_NOT_FOUND, o.rankfile + ": no line for rank " + std::to_string(rank) + " (" + variable + ")");
  // A launcher that did not follow the host list would bind the rank on the wrong node.
  std::string host = this_host();
  if (!o.any_host && short_host(host) != short_host(mine->host))
    throw Error(CANOPY_ERR_INVALID_ARG, "rank " + std::to_string(rank) + " runs on " + host + ", but " + o.rankfile + ":" +
                                            std::to_string(mine->line) + " places it on " + mine->host +
                                            " (launch with the host list canopy map wrote beside the rankfile; "
                                            "--any-host where the fabric names hosts otherwise)");
  topo::NodeTopology::load("live").bind_process(o.hwthreads ? topo::CpuLevel::PU : topo::CpuLevel::Core, mine->cpu);
  std::vector<char *> argv;
  for (const std::string &a : o.command) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw Error(CANOPY_ERR_IO, "cannot run " + o.command[0] + ": " + std::strerror(errno));
}

}  // namespace

CommandRunner add_bind_command(CLI::App &app) {
  auto o = std::make_shared<BindOptions>();
  CLI::App *cmd = app.add_subcommand(
      "bind", "Run a command bound to the CPU a canopy map rankfile gives its rank (for srun or mpiexec with a host list)");
  cmd->add_option("rankfile", o->rankfile, "Rankfile written by canopy map --rankfile")->required()->check(CLI::ExistingFile);
  cmd->add_option("command", o->command, "The command and its arguments, after --")->required()->expected(-1);
  cmd->add_flag("--hwthreads", o->hwthreads,
                "The rankfile's slot= numbers are PUs (hardware threads; canopy map wrote 'slots on PUs'), not cores");
  cmd->add_flag("--any-host", o->any_host,
                "Bind even where the rankfile names another host than this one (a fabric that names the hosts "
                "otherwise, such as node001-ib for node001)");
  cmd->footer("The rank comes from OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or SLURM_PROCID, the first set;\n"
              "its line must name this host (short names compared; --any-host skips the check). The process\n"
              "binds itself to that core (all its PUs) or PU (hwloc logical index, as in the rankfile), then\n"
              "execs the command. Turn the launcher's own binding off. See docs/cli.md.\n"
              "Example: SLURM_HOSTFILE=job.slurmhosts srun --distribution=arbitrary --cpu-bind=none -n 64 \\\n"
              "           canopy bind job.rankfile -- ./app");
  return [o] { return run_bind(*o); };
}

}  // namespace canopy::cli
