// Levelled logging to stderr. The level comes from the log_level parameter
// (CANOPY_LOG_LEVEL=error|warn|info|debug|trace, default warn).
#pragma once

namespace canopy::log {

enum class Level { Error = 0, Warn, Info, Debug, Trace };

bool enabled(Level level);
void write(Level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

#define CANOPY_LOG(level, ...)                                          \
  do {                                                                  \
    if (::canopy::log::enabled(::canopy::log::Level::level))            \
      ::canopy::log::write(::canopy::log::Level::level, __VA_ARGS__);   \
  } while (0)

}  // namespace canopy::log
