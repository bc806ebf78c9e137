// Following a log file that another program appends to, the way `tail -F` does:
// the file may be truncated in place (OpenSM's log_max_size, logrotate's
// copytruncate) or renamed away and re-created (logrotate, then OpenSM reopens
// its log on SIGUSR1). Polled, not event-driven: a caller asks for new lines
// now and then, so it works on any file system and needs no thread.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace canopy {

class FileFollower {
 public:
  /** Follows @p path from its current end: what is already there is history,
      not news. A file that does not exist yet is read from its start once it
      appears. Opens nothing that can block. */
  explicit FileFollower(std::string path);
  ~FileFollower();
  FileFollower(const FileFollower &) = delete;
  FileFollower &operator=(const FileFollower &) = delete;

  /** The complete lines appended since the last call, without their '\n'.
      A file shorter than what was read is taken as truncated and read again
      from its start; when the path names another file than the one open, the
      open one is read to its end and the new one from its start. Never blocks
      and never throws for I/O: problems are logged and retried next call. */
  std::vector<std::string> read_lines();

  const std::string &path() const { return path_; }

 private:
  bool open_path(bool at_end);
  void close_file();
  void read_appended(std::vector<std::string> &lines);
  void split_lines(std::vector<std::string> &lines);
  bool replaced() const;

  std::string path_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  off_t offset_ = 0;     // bytes of the open file consumed so far
  std::string partial_;  // text after the last '\n' read
  bool warned_missing_ = false, warned_unreadable_ = false;
};

}  // namespace canopy
