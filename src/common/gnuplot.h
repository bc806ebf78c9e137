// Pictures drawn with gnuplot (the benchmark's latency curves, the mapping's heat
// maps): the script goes to gnuplot's stdin, the picture to a temporary beside
// the target, renamed into place once complete, so no reader sees half a file.
#pragma once
#include <string>

namespace canopy {

/** @p text inside gnuplot's single quotes (a quote is doubled). */
std::string gnuplot_quoted(const std::string &text);

/** Runs gnuplot with `set terminal TERMINAL` and the output set to a temporary
    beside @p path, then @p script; renames the temporary to @p path. Throws
    Error(IO) naming @p path when gnuplot is missing or fails (nothing is left behind). */
void render_gnuplot(const std::string &terminal, const std::string &script, const std::string &path);

}  // namespace canopy
