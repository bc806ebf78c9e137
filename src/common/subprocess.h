// Running external programs (Graphviz, the OFED tools) without a shell: argv is
// passed as is, so file names need no quoting. Output goes to a file or a string.
#pragma once
#include <atomic>
#include <string>
#include <vector>

namespace canopy {

struct CommandResult {
  int exit_code = -1;      // the program's exit status; 128+N if killed by signal N; -1 if it could not start
  int signal = 0;          // N when killed by signal N, else 0
  bool timed_out = false;
  bool cancelled = false;  // killed because *cancel became true
  double timeout_s = 0;    // the limit it ran under
  std::string out;         // captured stdout (empty when stdout_path was given)
  std::string err;         // captured stderr (last 64 KiB)
};

/** Runs argv[0] (searched in PATH) with @p input on stdin. stdout goes to
    @p stdout_path when not empty, else into the result. Kills it after
    @p timeout_s seconds (0 = no limit), with everything it started (it runs in
    its own process group). The environment is inherited (LD_PRELOAD and
    IBSIM_SOCKNAME reach the OFED tools under ibsim). When @p cancel is given and
    becomes true (a signal handler's flag, say), the program is killed the same
    way within about 0.1 s. Never throws. */
CommandResult run_command(const std::vector<std::string> &argv, const std::string &input = "",
                          const std::string &stdout_path = "", double timeout_s = 0,
                          const std::atomic<bool> *cancel = nullptr);

/** "WHAT failed (exit N): <last stderr lines>", "WHAT timed out: ...", "WHAT was cancelled" for error messages. */
std::string describe_failure(const std::string &what, const CommandResult &result);

}  // namespace canopy
