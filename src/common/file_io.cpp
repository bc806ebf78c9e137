#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace canopy {
namespace {
Error io_error(const std::string &what, const std::string &path) {
  return Error(CANOPY_ERR_IO, what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

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

void write_file_atomic(const std::string &path, const std::string &content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io_error("cannot create", path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;  // committed
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFile::write(const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw io_error("cannot write", path_);
    done += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  bool ok = ::fsync(fd_) == 0;
  ok = ::close(fd_) == 0 && ok;
  fd_ = -1;
  if (!ok || ::rename(tmp_.c_str(), path_.c_str()) != 0) {
    Error error = io_error("cannot write", path_);
    ::unlink(tmp_.c_str());
    throw error;
  }
}

StagedFiles::~StagedFiles() {
  for (const auto &[temporary, path] : files_)
    if (!temporary.empty()) ::unlink(temporary.c_str());
}

void StagedFiles::add(const std::string &path, const std::function<void(const std::string &)> &write) {
  size_t slash = path.rfind('/');
  size_t name = slash == std::string::npos ? 0 : slash + 1;
  std::string temporary = path.substr(0, name) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(files_.size()) + "." +
                          path.substr(name);
  files_.emplace_back(temporary, path);
  try {
    write(temporary);
  } catch (const Error &e) {
    std::string message = e.what();
    for (size_t at; (at = message.find(temporary)) != std::string::npos;) message.replace(at, temporary.size(), path);
    throw Error(e.status(), message);
  }
}

void StagedFiles::commit() {
  for (auto &[temporary, path] : files_) {
    if (::rename(temporary.c_str(), path.c_str()) != 0) throw io_error("cannot write", path);
    temporary.clear();  // nothing left to remove
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
