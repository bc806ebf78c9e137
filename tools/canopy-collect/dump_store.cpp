#include "dump_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "common/log.h"
#include "common/text.h"

namespace fs = std::filesystem;

namespace canopy::collect {
namespace {

constexpr const char *kDumpPrefix = "dump-";
constexpr const char *kFailedDump = "failed";
constexpr const char *kCurrent = "current";
constexpr int kMaxSeq = 999;

Error io_error(const std::string &what, const std::string &path) {
  return Error(CANOPY_ERR_IO, what + " " + path + ": " + std::strerror(errno));
}

void remove_tree(const std::string &path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) CANOPY_LOG(Warn, "cannot remove %s: %s", path.c_str(), ec.message().c_str());
}

// Points DIR/current at @p name: a symlink under a temporary name, renamed over
// the old one, so DIR/current always exists once a first dump is published.
void point_current_at(const std::string &out_dir, const std::string &name) {
  std::string tmp = out_dir + "/.current-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  if (::symlink(name.c_str(), tmp.c_str()) != 0) throw io_error("cannot create symlink", tmp);
  if (::rename(tmp.c_str(), (out_dir + "/" + kCurrent).c_str()) != 0) {
    Error error = io_error("cannot replace", out_dir + "/" + kCurrent);
    ::unlink(tmp.c_str());
    throw error;
  }
}

// The sequence number after the highest of the dumps stamped @p stamp in
// @p out_dir (1 for none): not the first free one, since pruning frees the
// lowest, and a number taken again would sort before the newer dumps.
int next_seq(const std::string &out_dir, const std::string &stamp) {
  std::string prefix = std::string(kDumpPrefix) + stamp + "-";
  int highest = 0;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(out_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (starts_with(name, prefix)) highest = std::max(highest, std::atoi(name.c_str() + prefix.size()));
  }
  return highest + 1;
}

}  // namespace

std::string current_dump(const std::string &out_dir) {
  std::error_code ec;
  fs::path target = fs::read_symlink(fs::path(out_dir) / kCurrent, ec);
  return ec ? std::string() : target.filename().string();
}

IncomingDump::IncomingDump(const std::string &out_dir) : out_dir_(out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(CANOPY_ERR_IO, "cannot create " + out_dir + ": " + ec.message());
  std::string pattern = out_dir + "/.incoming-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw io_error("cannot create a directory in", out_dir);
  path_ = pattern;
  ::chmod(path_.c_str(), 0755);  // mkdtemp makes it 0700; readers (canopyd) may run as another user
}

IncomingDump::~IncomingDump() {
  if (!kept_) remove_tree(path_);
}

std::string IncomingDump::publish(const std::string &stamp) {
  for (int seq = next_seq(out_dir_, stamp); seq <= kMaxSeq; ++seq) {
    char name[96];
    std::snprintf(name, sizeof name, "%s%s-%03d", kDumpPrefix, stamp.c_str(), seq);
    std::string final_path = out_dir_ + "/" + name;
    // rename(2) refuses to replace a non-empty directory: a taken name means try the next.
    if (::rename(path_.c_str(), final_path.c_str()) != 0) {
      if (errno == EEXIST || errno == ENOTEMPTY) continue;
      throw io_error("cannot publish", final_path);
    }
    try {
      point_current_at(out_dir_, name);
    } catch (const Error &) {
      path_ = final_path;  // a failed run publishes nothing: the destructor removes it
      throw;
    }
    kept_ = true;
    return final_path;
  }
  throw Error(CANOPY_ERR_IO, "more than " + std::to_string(kMaxSeq) + " dumps stamped " + stamp + " in " + out_dir_);
}

std::string IncomingDump::keep_failed(const std::string &message) {
  std::string failed = out_dir_ + "/" + kFailedDump;
  remove_tree(failed);
  if (::rename(path_.c_str(), failed.c_str()) != 0) return message;  // removed with the object, as before
  std::string kept = message;
  for (size_t at; (at = kept.find(path_)) != std::string::npos;) kept.replace(at, path_.size(), failed);
  kept_ = true;
  return kept;
}

std::vector<std::string> prune_dumps(const std::string &out_dir, int keep) {
  std::vector<std::string> dumps;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(out_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (starts_with(name, kDumpPrefix) && entry.is_directory(ec) && !entry.is_symlink(ec)) dumps.push_back(name);
  }
  if (ec) CANOPY_LOG(Warn, "cannot list %s: %s", out_dir.c_str(), ec.message().c_str());
  // Names sort by time: dump-<YYYYMMDDTHHMMSSZ>-<seq, 3 digits>.
  std::sort(dumps.rbegin(), dumps.rend());
  std::string current = current_dump(out_dir);
  std::vector<std::string> removed;
  for (size_t i = static_cast<size_t>(std::max(keep, 0)); i < dumps.size(); ++i) {
    if (dumps[i] == current) continue;
    remove_tree(out_dir + "/" + dumps[i]);
    removed.push_back(dumps[i]);
  }
  return removed;
}

StoreLock::StoreLock(const std::string &out_dir, double timeout_s) {
  std::string path = out_dir + "/.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io_error("cannot open", path);
  // Polled rather than blocking, so the wait is bounded.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    bool busy = errno == EWOULDBLOCK || errno == EINTR;
    if (busy && std::chrono::steady_clock::now() < deadline) {
      ::usleep(20000);
      continue;
    }
    Error error = busy ? Error(CANOPY_ERR_IO, "another collector held " + path + " for more than " +
                                                  std::to_string(static_cast<int>(timeout_s)) + " s")
                       : io_error("cannot lock", path);
    ::close(fd_);
    throw error;
  }
}

StoreLock::~StoreLock() { ::close(fd_); }

}  // namespace canopy::collect
