#include "common/file_follow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace canopy {
namespace {

// A line longer than this is passed on in pieces, so a file without newlines
// cannot make us hold it all.
constexpr size_t kMaxLine = 1 << 20;
// At most this much is read per call: a file growing faster than we read must
// not keep one call busy forever.
constexpr off_t kMaxReadPerCall = 16 << 20;

}  // namespace

FileFollower::FileFollower(std::string path) : path_(std::move(path)) { open_path(true); }

FileFollower::~FileFollower() { close_file(); }

bool FileFollower::open_path(bool at_end) {
  // O_NONBLOCK: a FIFO at the path must not block us waiting for a writer.
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd >= 0 && ::fstat(fd, &st) != 0) {
    ::close(fd);
    fd = -1;
  }
  if (fd < 0) {
    if (!warned_missing_)
      CANOPY_LOG(Warn, "cannot open %s (%s); waiting for it", path_.c_str(), std::strerror(errno));
    warned_missing_ = true;
    return false;
  }
  warned_missing_ = false;
  fd_ = fd;
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  offset_ = at_end ? st.st_size : 0;
  partial_.clear();
  CANOPY_LOG(Info, "following %s from byte %lld", path_.c_str(), static_cast<long long>(offset_));
  return true;
}

void FileFollower::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool FileFollower::replaced() const {
  struct stat st {};
  // A path that is gone is not replaced yet: keep reading the open file (the
  // writer may still append to it) until a new file takes the name.
  return ::stat(path_.c_str(), &st) == 0 && (st.st_dev != dev_ || st.st_ino != ino_);
}

void FileFollower::split_lines(std::vector<std::string> &lines) {
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    size_t end = nl > start && partial_[nl - 1] == '\r' ? nl - 1 : nl;
    lines.emplace_back(partial_, start, end - start);
  }
  partial_.erase(0, start);
  if (partial_.size() > kMaxLine) {
    lines.push_back(std::move(partial_));
    partial_.clear();
  }
}

void FileFollower::read_appended(std::vector<std::string> &lines) {
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && st.st_size < offset_) {
    CANOPY_LOG(Info, "%s was truncated; reading it again from its start", path_.c_str());
    offset_ = 0;
    partial_.clear();
  }
  char buffer[65536];
  for (off_t budget = kMaxReadPerCall; budget > 0;) {
    ssize_t n = ::pread(fd_, buffer, sizeof buffer, offset_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && !warned_unreadable_) CANOPY_LOG(Warn, "cannot read %s: %s", path_.c_str(), std::strerror(errno));
    warned_unreadable_ = n < 0;  // once until a read works again: the caller asks every few hundred ms
    if (n <= 0) break;
    partial_.append(buffer, static_cast<size_t>(n));
    offset_ += n;
    budget -= n;
    split_lines(lines);
  }
}

std::vector<std::string> FileFollower::read_lines() {
  std::vector<std::string> lines;
  if (fd_ < 0 && !open_path(false)) return lines;
  read_appended(lines);
  if (replaced()) {
    // The old file is read to its end above; a last line without '\n' ends with it.
    if (!partial_.empty()) lines.push_back(partial_);
    partial_.clear();
    CANOPY_LOG(Info, "%s is a new file (rotated?); reading it from its start", path_.c_str());
    close_file();
    if (open_path(false)) read_appended(lines);
  }
  return lines;
}

}  // namespace canopy
