// Whole-file reading and atomic writing: a reader of our outputs never sees a
// half-written file (write to a temporary beside it, fsync, rename).
#pragma once
#include <string>

namespace canopy {

/** The whole file; throws Error(IO) naming the path on failure. */
std::string read_file(const std::string &path);

/** Replaces @p path with @p content atomically; throws Error(IO) on failure. */
void write_file_atomic(const std::string &path, const std::string &content);

bool is_directory(const std::string &path);

}  // namespace canopy
