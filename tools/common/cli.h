// Option helpers shared by every Canopy tool, so they all behave alike:
// -h/--help, --version, --json, errors as "TOOL: error: ..." on stderr with exit
// status 1 (2 for usage errors), results on stdout.
#pragma once
#include <functional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace canopy::cli {

/** Help footer, --version, and sane parsing defaults for a tool or subcommand. */
void setup_app(CLI::App &app, const std::string &tool_name);
void add_json_flag(CLI::App &command, bool &json);
/** For an option naming a file or folder (to write, or to serve): an empty
    value (an unset shell variable, say) is a usage error, not "none". */
CLI::Validator output_path();
/** The same for any other value (an address): "an empty WHAT names nothing". */
CLI::Validator non_empty(const std::string &what);
/** For an option naming a file that may not exist yet (a log to follow): an empty value or
    an existing folder is a usage error. */
CLI::Validator file_path();
/** For a count or an amount: a number of at least @p min (at most @p max), or greater than
    @p min, else a usage error that says so ("must be at least 1, not 0"). CLI11's
    PositiveNumber answers "not in range 0.000000 to 179769...", and an unsigned option would
    take "-5" as 2^64 - 5. */
CLI::Validator at_least(double min, double max = 1e300);
CLI::Validator greater_than(double min);

/** Pretty JSON to stdout, newline-terminated. */
void print_json(const nlohmann::json &value);

/** Parses the command line and runs @p body; converts canopy::Error and CLI11
    errors into the shared exit conventions. */
int run(CLI::App &app, int argc, char **argv, const std::function<int()> &body);

}  // namespace canopy::cli
