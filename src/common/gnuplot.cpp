#include "common/gnuplot.h"

#include <unistd.h>

#include <cstdio>

#include "common/error.h"
#include "common/subprocess.h"

namespace canopy {

std::string gnuplot_quoted(const std::string &text) {
  std::string out;
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

void render_gnuplot(const std::string &terminal, const std::string &script, const std::string &path) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::string full = "set terminal " + terminal + "\nset output '" + gnuplot_quoted(tmp) + "'\n" + script;
  // `unset output` closes the file before gnuplot exits, so it is complete when renamed.
  full += "\nunset output\n";
  CommandResult result = run_command({"gnuplot"}, full, "", 120);
  if (result.exit_code != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(CANOPY_ERR_IO, "cannot draw " + path + ": " + describe_failure("gnuplot", result));
  }
}

}  // namespace canopy
