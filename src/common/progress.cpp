#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

#include "common/params.h"

namespace canopy {

Progress::Progress(std::string tool) : tool_(std::move(tool)), start_(Clock::now()), current_since_(start_) {
  double after_s = param_double("progress_after_s");  // a bad value is an error, terminal or not
  terminal_ = isatty(STDERR_FILENO) == 1;
  if (!terminal_) return;
  if (after_s <= 0) {
    showing_ = true;
    return;
  }
  auto after = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(after_s));
  watcher_ = std::thread([this, after] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stop_wake_.wait_until(lock, start_ + after, [this] { return stop_; })) return;
    showing_ = true;
    if (!current_.empty()) print(current_, current_since_);
  });
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void Progress::stage(const std::string &what) {
  if (!terminal_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (showing_) return print(what, Clock::now());
  current_ = what;
  current_since_ = Clock::now();
}

ProgressFn Progress::fn() {
  if (!terminal_) return {};
  return [this](const std::string &what) { stage(what); };
}

void Progress::print(const std::string &what, Clock::time_point since) const {
  double seconds = std::chrono::duration<double>(since - start_).count();
  std::fprintf(stderr, "%s [%6.1f s] %s\n", tool_.c_str(), seconds, what.c_str());
}

}  // namespace canopy
