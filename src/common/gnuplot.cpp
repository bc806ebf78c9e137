#include "common/gnuplot.h"

#include <cstdio>

#include "common/error.h"
#include "common/file_io.h"
#include "common/subprocess.h"

namespace canopy {

std::string gnuplot_quoted(const std::string &text) {
  std::string out;
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

void render_gnuplot(const std::string &terminal, const std::string &script, const std::string &path) {
  write_via_temporary(path, [&](const std::string &tmp) {
    // `unset output` closes the file before gnuplot exits, so it is complete when installed.
    std::string full = "set terminal " + terminal + "\nset output '" + gnuplot_quoted(tmp) + "'\n" + script +
                       "\nunset output\n";
    CommandResult result = run_command({"gnuplot"}, full, "", 120);
    if (result.exit_code != 0) throw Error(CANOPY_ERR_IO, "cannot draw " + path + ": " + describe_failure("gnuplot", result));
  });
}

}  // namespace canopy
