#include "tool_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "common/text.h"

extern char **environ;

namespace canopy::collect {
namespace {

constexpr size_t kErrKeep = 64 * 1024;  // stderr bytes kept: enough for any tail we print
constexpr size_t kTailLines = 3;

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

Error io_error(const std::string &what) { return Error(CANOPY_ERR_IO, what + ": " + std::strerror(errno)); }

// The tool gets its own process group, so a timeout kills whatever it started too.
pid_t spawn(const std::vector<std::string> &argv, int out_fd, int err_fd) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw Error(CANOPY_ERR_IO, "cannot run " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

// Reads stderr until the tool closes it or the deadline passes; false on timeout.
bool drain_stderr(int fd, std::string &err, Clock::time_point deadline, bool limited) {
  char chunk[4096];
  for (;;) {
    int wait_ms = -1;
    if (limited) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // timeout slice: re-check the deadline
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF: the tool (and anything it forked) closed stderr
    err.append(chunk, static_cast<size_t>(n));
    if (err.size() > 2 * kErrKeep) err.erase(0, err.size() - kErrKeep);
  }
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string last_lines(const std::string &text, size_t count) {
  std::vector<std::string_view> lines;
  for (std::string_view line : split(text, '\n'))
    if (!trim(line).empty()) lines.push_back(trim(line));
  size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string out;
  for (size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + std::string(lines[i]);
  return out;
}

}  // namespace

ToolRun run_tool(const std::vector<std::string> &argv, const std::string &stdout_path, double timeout_s) {
  Fd out(::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.get() < 0) throw io_error("cannot create " + stdout_path);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw io_error("cannot create a pipe");
  Fd err_read(pipe_fds[0]), err_write(pipe_fds[1]);

  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  pid_t pid = spawn(argv, out.get(), err_write.get());
  err_write.reset();  // the tool holds the only write end now: EOF means it is done
  out.reset();

  ToolRun run;
  std::string err;
  if (!drain_stderr(err_read.get(), err, deadline, timeout_s > 0)) {
    ::kill(-pid, SIGKILL);
    run.timed_out = true;
  }
  run.exit_code = wait_exit(pid);
  run.err_tail = last_lines(err, kTailLines);
  return run;
}

std::string describe_failure(const std::string &what, const ToolRun &run, double timeout_s) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
  std::string message = run.timed_out ? what + " timed out after " + seconds + " s"
                                      : what + " failed (exit " + std::to_string(run.exit_code) + ")";
  return message + ": " + (run.err_tail.empty() ? "(no error output)" : run.err_tail);
}

std::string tool_version(const std::string &program) {
  // infiniband-diags print their version on stderr; other builds may use stdout.
  char path[] = "/tmp/canopy-collect-version-XXXXXX";
  Fd fd(::mkstemp(path));
  if (fd.get() < 0) return "unknown";
  std::string text;
  try {
    ToolRun run = run_tool({program, "--version"}, path, 10);
    char buf[512];
    ssize_t n = ::pread(fd.get(), buf, sizeof buf, 0);
    if (run.exit_code == 0) text = n > 0 ? std::string(buf, static_cast<size_t>(n)) : run.err_tail;
  } catch (const Error &) {
  }
  ::unlink(path);
  std::string_view first = trim(std::string_view(text).substr(0, text.find('\n')));
  size_t at = first.rfind("VERSION:");
  if (at != std::string_view::npos) first = trim(first.substr(at + 8));
  return first.empty() ? "unknown" : std::string(first);
}

}  // namespace canopy::collect
