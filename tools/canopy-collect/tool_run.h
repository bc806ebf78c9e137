// Running one fabric tool (ibnetdiscover, ibroute) without a shell: posix_spawn
// with argv as is, stdout straight into a file (dumps can be large), stderr
// captured for error messages, a time limit. The environment is inherited, so
// LD_PRELOAD=libumad2sim.so and IBSIM_SOCKNAME reach the tool under ibsim.
//
// Note: main is growing src/common/subprocess.h (run_command/describe_failure)
// with the same job; once it lands this file should give way to it.
#pragma once
#include <string>
#include <vector>

namespace canopy::collect {

struct ToolRun {
  int exit_code = -1;      // the tool's exit status; 128+N if killed by signal N
  bool timed_out = false;
  std::string err_tail;    // the last lines of its stderr
};

/** Runs argv[0] (searched in PATH) with stdin from /dev/null and stdout into
    @p stdout_path; kills it after @p timeout_s seconds (0: no limit). Throws
    Error(IO) only when the tool cannot be started at all. */
ToolRun run_tool(const std::vector<std::string> &argv, const std::string &stdout_path, double timeout_s);

/** "ibroute failed (exit 1): <stderr tail>", "ibnetdiscover timed out after 60 s: ...". */
std::string describe_failure(const std::string &what, const ToolRun &run, double timeout_s);

/** The first line the tool prints for --version ("ibnetdiscover BUILD VERSION: 44.0"
    gives "44.0"), or "unknown" if it prints nothing useful. */
std::string tool_version(const std::string &program);

}  // namespace canopy::collect
