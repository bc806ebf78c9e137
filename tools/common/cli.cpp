#include "cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/error.h"

namespace canopy::cli {

void setup_app(CLI::App &app, const std::string &tool_name) {
  app.name(tool_name);
  app.set_version_flag("--version", std::string(tool_name) + " (canopy) " + CANOPY_VERSION_STRING);
  app.footer("Environment: CANOPY_LOG_LEVEL=error|warn|info|debug|trace, CANOPY_CONFIG_FILE=FILE.json.\n"
             "Documentation: docs/ in the Canopy source tree.");
  // Usage errors look like every other error ("TOOL: error: ..."), then the hint.
  app.failure_message([tool_name](const CLI::App *, const CLI::Error &e) {
    return tool_name + ": error: " + e.what() + "\nRun with --help for more information.\n";
  });
}

void add_json_flag(CLI::App &command, bool &json) {
  command.add_flag("--json", json, "Write the result as JSON on stdout");
}

CLI::Validator non_empty(const std::string &what) {
  return CLI::Validator([what](std::string &value) { return value.empty() ? "an empty " + what + " names nothing" : std::string(); },
                        "");
}

CLI::Validator output_path() { return non_empty("path"); }

CLI::Validator file_path() {
  return CLI::Validator(
      [](std::string &path) {
        std::error_code error;
        if (path.empty()) return std::string("an empty path names nothing");
        return std::filesystem::is_directory(path, error) ? path + " is a folder, not a file" : std::string();
      },
      "");
}

namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// A number above @p min (or equal to it unless @p exclusive) and at most @p max.
CLI::Validator number_check(double min, bool exclusive, double max) {
  return CLI::Validator(
      [=](std::string &value) -> std::string {
        char *end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0' || v != v) return "'" + value + "' is not a number";
        if (exclusive ? v <= min : v < min)
          return std::string("must be ") + (exclusive ? "greater than " : "at least ") + number_text(min) + ", not " +
                 value;
        if (v > max) return "must be at most " + number_text(max) + ", not " + value;
        return std::string();
      },
      (exclusive ? "> " : ">= ") + number_text(min));
}

}  // namespace

CLI::Validator at_least(double min, double max) { return number_check(min, false, max); }
CLI::Validator greater_than(double min) { return number_check(min, true, 1e300); }

// Strings from the user (paths, specs) may not be UTF-8: replaced, never an exception.
void print_json(const nlohmann::json &value) {
  std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int run(CLI::App &app, int argc, char **argv, const std::function<int()> &body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);  // prints help/version to stdout, usage errors to stderr
    return code == 0 ? 0 : 2;
  }
  try {
    int status = body();
    // A result that did not reach stdout (a full disk, a closed pipe) is a failure, not exit 0.
    std::cout.flush();
    errno = 0;
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
      throw Error(CANOPY_ERR_IO, std::string("cannot write the output to stdout") +
                                     (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    return status;
  } catch (const Error &e) {
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), e.what());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "%s: error: out of memory\n", app.get_name().c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: internal error: %s\n", app.get_name().c_str(), e.what());
  }
  return 1;
}

}  // namespace canopy::cli
