#include "watch.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "common/file_follow.h"
#include "common/log.h"
#include "common/text.h"
#include "stop.h"

namespace canopy::collect {
namespace {

// How often the log is read and the timers checked while idle.
constexpr double kTickS = 0.2;
// Triggers that never pause (a flapping link re-sweeping every second) still
// get a collection once the first has waited this many settle times (>= 10 s).
constexpr double kMaxDelayFactor = 5;
constexpr double kNever = std::numeric_limits<double>::infinity();

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void sleep_s(double seconds) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
  ::nanosleep(&ts, nullptr);  // a signal cuts it short, which is what we want
}

// Coalesces triggers: due once none has come for `settle` seconds (or the
// first has waited the maximum delay). The reason names the first trigger.
class Debounce {
 public:
  explicit Debounce(double settle_s) : settle_(settle_s), max_delay_(std::max(10.0, settle_s * kMaxDelayFactor)) {}

  void fire(double now, const std::string &reason) {
    if (!pending_) {
      first_ = now;
      reason_ = reason;
      count_ = 0;
    }
    pending_ = true;
    last_ = now;
    ++count_;
  }
  bool due(double now) const { return pending_ && (now - last_ >= settle_ || now - first_ >= max_delay_); }
  std::string take() {
    pending_ = false;
    return count_ > 1 ? reason_ + ", and " + std::to_string(count_ - 1) + " more trigger(s)" : reason_;
  }

 private:
  double settle_, max_delay_;
  bool pending_ = false;
  double first_ = 0, last_ = 0;
  int count_ = 0;
  std::string reason_;
};

void report(const CollectResult &result, double seconds, bool json) {
  if (!result.published) {
    CANOPY_LOG(Info, "unchanged: same fabric, LIDs, rates and forwarding tables as %s; nothing published (%.2f s)",
               result.dump_dir.c_str(), seconds);
    return;
  }
  CANOPY_LOG(Info, "published %s (%.2f s): %s", result.dump_dir.c_str(), seconds, result.changes.c_str());
  if (json) {
    nlohmann::json line = result.manifest;
    line["dump"] = result.dump_dir;  // a stream of manifests must say which dump each one is
    std::printf("%s\n", line.dump().c_str());
  } else {
    std::printf("%s\n", summary_line(result).c_str());
  }
  std::fflush(stdout);
}

void collect_and_report(const CollectOptions &options, const std::string &reason, bool json) {
  CANOPY_LOG(Info, "collecting (%s)", reason.c_str());
  double started = now_s();
  try {
    CollectResult result = collect_once(options);
    report(result, now_s() - started, json);
  } catch (const std::exception &e) {
    if (options.cancel->load()) return;  // cut short by SIGINT/SIGTERM: not a failure
    CANOPY_LOG(Error, "collection failed (the next trigger retries): %s", e.what());
  }
}

void check_log(FileFollower &log, Debounce &trigger, double now) {
  for (const std::string &line : log.read_lines()) {
    if (!sweep_ended(line)) continue;
    CANOPY_LOG(Info, "OpenSM log: %s", printable(trim(line), 200).c_str());
    trigger.fire(now, "OpenSM log: SUBNET UP");
  }
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

std::string describe_triggers(const std::optional<FileFollower> &log, const WatchOptions &options) {
  std::string text = log ? "OpenSM log " + log->path() : "no OpenSM log";
  text += options.poll_s > 0 ? ", polling every " + seconds_text(options.poll_s) : ", no polling";
  return text + ", settle " + seconds_text(options.settle_s);
}

}  // namespace

bool sweep_ended(std::string_view log_line) { return log_line.find("SUBNET UP") != std::string_view::npos; }

int watch(const CollectOptions &collect, const WatchOptions &options) {
  const std::atomic<bool> &stop = stop_on_signals();
  CollectOptions run = collect;
  run.skip_unchanged = true;
  run.cancel = &stop;
  std::optional<FileFollower> log;
  if (!options.opensm_log.empty()) log.emplace(options.opensm_log);
  CANOPY_LOG(Info, "watching %s (%s)", collect.out_dir.c_str(), describe_triggers(log, options).c_str());

  Debounce trigger(options.settle_s);
  trigger.fire(now_s() - options.settle_s, "start");  // due at once: begin with a current dump
  double next_poll = kNever;
  while (!stop.load()) {
    double now = now_s();
    if (log) check_log(*log, trigger, now);
    if (now >= next_poll) {
      trigger.fire(now, "poll");
      next_poll = kNever;  // re-armed after the collection
    }
    if (!trigger.due(now)) {
      sleep_s(kTickS);
      continue;
    }
    collect_and_report(run, trigger.take(), options.json);
    if (options.poll_s > 0) next_poll = now_s() + options.poll_s;
  }
  CANOPY_LOG(Info, "stopping (signal received)");
  return 0;
}

}  // namespace canopy::collect
