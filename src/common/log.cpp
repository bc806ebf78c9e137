#include "common/log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

#include "common/params.h"

namespace canopy::log {
namespace {

const char *const kNames[] = {"error", "warn", "info", "debug", "trace"};

Level current_level() {
  // Re-read on every call is too slow for hot paths; the level is fixed per process.
  static const Level level = [] {
    std::string name;
    try {
      name = param_string("log_level");
    } catch (const std::exception &e) {  // a bad config file: whoever reads a parameter next says why
      std::fprintf(stderr, "canopy [warn] log level unknown (%s), using warn\n", e.what());
      return Level::Warn;
    }
    for (int i = 0; i < 5; ++i)
      if (name == kNames[i]) return static_cast<Level>(i);
    std::fprintf(stderr, "canopy [warn] unknown log level '%s', using warn\n", name.c_str());
    return Level::Warn;
  }();
  return level;
}

}  // namespace

bool enabled(Level level) { return level <= current_level(); }

void write(Level level, const char *format, ...) {
  static std::mutex mutex;
  char buffer[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "canopy [%s] %s\n", kNames[static_cast<int>(level)], buffer);
}

}  // namespace canopy::log
