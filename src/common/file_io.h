// Whole-file reading and atomic writing: a reader of our outputs never sees a
// half-written file (write to a temporary beside it, fsync, rename).
#pragma once
#include <string>

namespace canopy {

/** The whole file; throws Error(IO) naming the path on failure. */
std::string read_file(const std::string &path);

/** Replaces @p path with @p content atomically; throws Error(IO) on failure. */
void write_file_atomic(const std::string &path, const std::string &content);

/** A file written piece by piece that replaces @p path only on commit(): until
    then it is a temporary beside it, removed if the writer is destroyed first
    (an error on the way leaves nothing). For outputs too large to build in
    memory. write() and commit() throw Error(IO). */
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  void write(const std::string &data);
  void commit();

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

bool is_directory(const std::string &path);

}  // namespace canopy
