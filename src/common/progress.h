// Progress of a long run on stderr, one line per stage with the seconds since
// the run began, e.g. "canopy map [   3.2 s] tree walk on 65536 vertices,
// level 5 of 12". Shown only where someone watches (stderr is a terminal) and
// only once the run has lasted progress_after_s (default 1 s): a quick run
// prints nothing, a slow one shows the stage it is in and every later one.
// Libraries take a ProgressFn and stay silent without one.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace canopy {

/** Told the name of each stage as it begins. */
using ProgressFn = std::function<void(const std::string &stage)>;

/** Tells @p progress that @p stage begins, if anyone listens. */
inline void report(const ProgressFn &progress, const std::string &stage) {
  if (progress) progress(stage);
}

class Progress {
 public:
  /** Lines start with @p tool. Nothing is shown unless stderr is a terminal. */
  explicit Progress(std::string tool);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  void stage(const std::string &what);
  /** A ProgressFn calling stage(); empty when nothing can be shown. */
  ProgressFn fn();

 private:
  using Clock = std::chrono::steady_clock;
  void print(const std::string &what, Clock::time_point since) const;

  std::string tool_;
  Clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable stop_wake_;
  bool terminal_ = false, stop_ = false, showing_ = false;
  std::string current_;  // the stage under way, until showing_
  Clock::time_point current_since_;
  std::thread watcher_;  // waits progress_after_s, then shows the current stage
};

}  // namespace canopy
