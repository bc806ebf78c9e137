#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

extern char **environ;

namespace canopy {
namespace {

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() { close_end(0), close_end(1); }
};

// Marks the run timed out or cancelled when it must stop now.
bool must_stop(double deadline, const std::atomic<bool> *cancel, CommandResult &result) {
  if (cancel && cancel->load()) result.cancelled = true;
  else if (deadline > 0 && now_s() >= deadline) result.timed_out = true;
  return result.cancelled || result.timed_out;
}

// How long one poll may block: until the deadline, and briefly when a cancel
// flag must be watched (a signal handler's flag may be set just before poll).
int poll_wait_ms(double deadline, const std::atomic<bool> *cancel) {
  int wait_ms = deadline > 0 ? static_cast<int>((deadline - now_s()) * 1000) + 1 : 1000;
  return cancel ? std::min(wait_ms, 100) : wait_ms;
}

// Feeds stdin and drains stdout/stderr until the child closes them, time runs out or it is cancelled.
void pump(Pipe &in, Pipe &out, Pipe &err, const std::string &input, CommandResult &result, double deadline,
          const std::atomic<bool> *cancel) {
  size_t written = 0;
  if (input.empty()) in.close_end(1);
  char buffer[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}, {in.fd[1], POLLOUT, 0}};
    if (must_stop(deadline, cancel, result)) return;
    if (::poll(fds, 3, poll_wait_ms(deadline, cancel)) < 0 && errno != EINTR) return;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Pipe &p = i == 0 ? out : err;
      ssize_t n = ::read(p.fd[0], buffer, sizeof buffer);
      if (n <= 0) {
        if (n == 0 || errno != EINTR) p.close_end(0);
        continue;
      }
      std::string &sink = i == 0 ? result.out : result.err;
      sink.append(buffer, static_cast<size_t>(n));
      if (i == 1 && sink.size() > 65536) sink.erase(0, sink.size() - 65536);
    }
    if (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
      ssize_t n = ::write(in.fd[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();
      if (written == input.size()) in.close_end(1);
    }
  }
}

}  // namespace

CommandResult run_command(const std::vector<std::string> &argv, const std::string &input,
                          const std::string &stdout_path, double timeout_s, const std::atomic<bool> *cancel) {
  CommandResult result;
  result.timeout_s = timeout_s;
  Pipe in, out, err;
  if (argv.empty() || !in.open() || !out.open() || !err.open()) return result;
  ::signal(SIGPIPE, SIG_IGN);
  // The child gets its own process group, so a timeout kills whatever it started too.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  if (stdout_path.empty())
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  else
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  in.close_end(0), out.close_end(1), err.close_end(1);
  if (rc != 0) {
    result.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
  pump(in, out, err, input, result, deadline, cancel);
  bool killed = result.timed_out || result.cancelled;
  if (killed) ::kill(-pid, SIGKILL);
  // The child may outlive its pipes; keep honouring the deadline and the cancel flag while reaping it.
  int status = 0;
  for (;;) {
    pid_t reaped = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (reaped == pid || (reaped < 0 && errno != EINTR)) break;
    if (!killed && must_stop(deadline, cancel, result)) {
      killed = true;
      ::kill(-pid, SIGKILL);
    }
    if (reaped == 0) ::usleep(1000);
  }
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + result.signal;
  return result;
}

std::string describe_failure(const std::string &what, const CommandResult &result) {
  if (result.cancelled) return what + " was cancelled";  // on purpose: what it printed tells nothing
  // The last few non-empty lines of stderr say why; more would bury the message.
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < result.err.size()) {
    size_t end = result.err.find('\n', start);
    if (end == std::string::npos) end = result.err.size();
    std::string line = result.err.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  std::string tail;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
    tail += (tail.empty() ? "" : " | ") + lines[i];
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", result.timeout_s);
  std::string message = result.timed_out       ? what + " timed out after " + limit + " s"
                        : result.exit_code < 0 ? what + " could not be started"
                        : result.signal        ? what + " was killed by signal " + std::to_string(result.signal) + " (" +
                                              ::strsignal(result.signal) + ")"
                                               : what + " failed (exit " + std::to_string(result.exit_code) + ")";
  return message + ": " + (tail.empty() ? "(no error output)" : tail);
}

}  // namespace canopy
