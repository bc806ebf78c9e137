// Whole-file reading and atomic writing: a reader of our outputs never sees a
// half-written file (write to a temporary beside it, fsync, rename).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace canopy {

/** The whole file; throws Error(IO) naming the path on failure. */
std::string read_file(const std::string &path);

/** Where an output named @p path goes. A regular file (or what a symbolic link leads to) is
    replaced by renaming a temporary beside it over it, keeping its permissions; a device, FIFO
    or socket (/dev/null, a shell's >(...)) is written into once the temporary is complete. */
struct OutputTarget {
  std::string file;  // the file to replace or write into
  bool stream;       // written into, not replaced
  int mode;          // permissions of the file replaced, -1 for a new one

  static OutputTarget of(const std::string &path);
  /** A new temporary's path (same name ending as the file, so writers going by it work). */
  std::string temporary() const;
  /** Puts the complete @p temporary in place of (or into) the file: renamed, or copied and
      removed; Error(IO), leaving it where it was. */
  void install(const std::string &temporary) const;
};

/** A temporary file's name, the file removed with the object unless gone() says it was
    renamed or removed already; removed too when remove_temporaries_on_signals' signals end
    the process first. */
class Temporary {
 public:
  explicit Temporary(std::string path);
  ~Temporary();
  Temporary(const Temporary &) = delete;
  Temporary &operator=(const Temporary &) = delete;

  const std::string &path() const { return path_; }
  void gone() { gone_ = true; }

 private:
  std::string path_;
  int slot_ = -1;  // in the table the signal handler reads; -1 when it was full
  bool gone_ = false;
};

/** For tools: SIGINT, SIGTERM and SIGHUP remove the temporaries of outputs not yet in place,
    then end the process as they would have (interrupted outputs leave nothing behind). */
void remove_temporaries_on_signals();

/** For an output another program writes (gnuplot, Graphviz): calls @p write with a temporary
    path and, when it returns, puts the complete file at @p path (OutputTarget): StagedFiles
    with one file. An error on the way leaves nothing. */
void write_via_temporary(const std::string &path, const std::function<void(const std::string &temporary)> &write);

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
  std::string path_;
  OutputTarget target_;
  Temporary tmp_;
  int fd_ = -1;
};

/** Several output files that replace their paths together, or not at all: each
    is written to a hidden temporary beside its path (same name ending, so
    writers that go by the extension still work), and commit() renames them all
    once every one is written. Destroyed before commit(), it removes them. */
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles &) = delete;
  StagedFiles &operator=(const StagedFiles &) = delete;

  /** Calls @p write with the temporary for @p path. An Error it throws names
      @p path instead of the temporary. */
  void add(const std::string &path, const std::function<void(const std::string &temporary)> &write);
  /** Throws Error(IO) if a rename fails (the files renamed before it stay). */
  void commit();

 private:
  struct Staged {
    std::unique_ptr<Temporary> temporary;
    OutputTarget target;  // where it goes
  };
  std::vector<Staged> files_;
};

/** For outputs, checked before the work that produces them: throws Error(IO)
    naming the path unless a file can be created there (its folder exists and it
    is not itself a folder), and Error(INVALID_ARG) naming both options when two
    of them name the same file. @p outputs: (option, path); empty paths skipped. */
void check_output_paths(const std::vector<std::pair<std::string, std::string>> &outputs);

bool is_directory(const std::string &path);

}  // namespace canopy
