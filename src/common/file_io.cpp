#include "common/file_io.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace canopy {
namespace {
Error io_error(const std::string &what, const std::string &path) {
  return Error(CANOPY_ERR_IO, what + " " + path + ": " + std::strerror(errno));
}

std::atomic<int> g_temporaries{0};  // temporaries named so far by this process: each name is new

// The temporaries on disk now, for remove_temporaries_on_signals' handler (which may only read
// plain memory and unlink): a path is copied in before its slot is marked taken.
constexpr int kTrackedTemporaries = 64;
enum SlotState : int { kFree, kFilling, kTracked };
char g_tracked_path[kTrackedTemporaries][PATH_MAX];
std::atomic<int> g_slot_state[kTrackedTemporaries];
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");

extern "C" void remove_temporaries_and_stop(int signal) {
  for (int i = 0; i < kTrackedTemporaries; ++i)
    if (g_slot_state[i].load() == kTracked) ::unlink(g_tracked_path[i]);
  ::raise(signal);  // SA_RESETHAND gave it its default action back: it ends the process on return
}

// Splits @p path at its last '/': (folder with the slash, or "", name).
std::pair<std::string, std::string> split_path(const std::string &path) {
  size_t slash = path.rfind('/');
  size_t name = slash == std::string::npos ? 0 : slash + 1;
  return {path.substr(0, name), path.substr(name)};
}

void write_all(int fd, const char *data, size_t size, const std::string &path) {
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw io_error("cannot write", path);
    done += static_cast<size_t>(n);
  }
}

void copy_into(const std::string &from, const std::string &path) {
  std::string content = read_file(from);
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw io_error("cannot open", path);
  try {
    write_all(fd, content.data(), content.size(), path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace

Temporary::Temporary(std::string path) : path_(std::move(path)) {
  if (path_.size() >= PATH_MAX) return;  // not removed on a signal, like the 65th at once
  for (int i = 0; i < kTrackedTemporaries; ++i) {
    int expected = kFree;
    if (!g_slot_state[i].compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_tracked_path[i], path_.c_str(), path_.size() + 1);
    g_slot_state[i].store(kTracked);
    slot_ = i;
    return;
  }
}

Temporary::~Temporary() {
  if (!gone_) ::unlink(path_.c_str());
  if (slot_ >= 0) g_slot_state[slot_].store(kFree);
}

void remove_temporaries_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
}

// What writing @p path replaces: the file a symbolic link leads to (the link stays), and a
// device, FIFO or socket (/dev/null, a shell's >(...)) is written into, not replaced.
OutputTarget OutputTarget::of(const std::string &path) {
  OutputTarget t{path, false, -1};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return t;  // a new file (or a link to one that is not there yet)
  if (!S_ISREG(st.st_mode)) {
    t.stream = true;
    return t;
  }
  t.mode = static_cast<int>(st.st_mode & 07777);  // a replaced file keeps its permissions
  if (char *real = ::realpath(path.c_str(), nullptr)) {
    t.file = real;
    std::free(real);
  }
  return t;
}

std::string OutputTarget::temporary() const {
  // Beside the file, so that the rename stays on one file system; a stream's in the temporary
  // folder. The name keeps the file's ending: writers that go by the extension (gnuplot) work.
  auto [folder, name] = split_path(file);
  if (stream) {
    const char *tmp = std::getenv("TMPDIR");
    folder = std::string(tmp && *tmp ? tmp : "/tmp") + "/";
  }
  return folder + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_temporaries++) + "." + name;
}

void OutputTarget::install(const std::string &temporary) const {
  if (stream) {
    copy_into(temporary, file);
    ::unlink(temporary.c_str());
    return;
  }
  if ((mode >= 0 && ::chmod(temporary.c_str(), static_cast<mode_t>(mode)) != 0) ||
      ::rename(temporary.c_str(), file.c_str()) != 0)
    throw io_error("cannot write", file);
}


std::string read_file(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(CANOPY_ERR_IO, "cannot read " + path + ": is a directory");
  }
  std::string content;
  if (st.st_size > 0) content.reserve(static_cast<size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error error = io_error("cannot read", path);
      ::close(fd);
      throw error;
    }
    if (n == 0) break;
    content.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

void write_via_temporary(const std::string &path, const std::function<void(const std::string &)> &write) {
  StagedFiles staged;  // one file staged alone
  staged.add(path, write);
  staged.commit();
}

void write_file_atomic(const std::string &path, const std::string &content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), target_(OutputTarget::of(path_)), tmp_(target_.temporary()) {
  fd_ = ::open(tmp_.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io_error("cannot create", path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);  // not committed: the temporary goes with tmp_
}

void AtomicFile::write(const std::string &data) { write_all(fd_, data.data(), data.size(), path_); }

void AtomicFile::commit() {
  bool ok = ::fsync(fd_) == 0;
  ok = ::close(fd_) == 0 && ok;
  fd_ = -1;
  if (!ok) throw io_error("cannot write", path_);
  target_.install(tmp_.path());
  tmp_.gone();
}

void StagedFiles::add(const std::string &path, const std::function<void(const std::string &)> &write) {
  OutputTarget target = OutputTarget::of(path);
  std::string temporary = target.temporary();
  files_.push_back({std::make_unique<Temporary>(temporary), target});
  try {
    write(temporary);
  } catch (const Error &e) {
    std::string message = e.what();
    for (size_t at; (at = message.find(temporary)) != std::string::npos;) message.replace(at, temporary.size(), path);
    throw Error(e.status(), message);
  }
}

void StagedFiles::commit() {
  for (auto &[temporary, target] : files_) {
    target.install(temporary->path());
    temporary->gone();
  }
  files_.clear();
}

void check_output_paths(const std::vector<std::pair<std::string, std::string>> &outputs) {
  std::vector<std::pair<std::string, std::string>> files;  // (the file, whatever it is called; option)
  for (const auto &[option, path] : outputs) {
    if (path.empty()) continue;
    size_t slash = path.rfind('/');
    std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (!is_directory(folder))
      throw Error(CANOPY_ERR_IO, "cannot write " + path + " (no folder " + folder + "): " + std::strerror(ENOENT));
    if (is_directory(path)) throw Error(CANOPY_ERR_IO, "cannot write " + path + ": it is a folder");
    char *real = ::realpath(folder.c_str(), nullptr);
    std::string file = (real ? std::string(real) : folder) + "/" + path.substr(slash == std::string::npos ? 0 : slash + 1);
    std::free(real);
    for (const auto &[earlier, earlier_option] : files)
      if (earlier == file)
        throw Error(CANOPY_ERR_INVALID_ARG, earlier_option + " and " + option + " name the same file, " + path);
    files.emplace_back(file, option);
  }
}

bool is_directory(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace canopy
