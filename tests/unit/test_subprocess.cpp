// run_command: exit status, timeout and cancellation (what canopy-collect
// relies on to stop promptly on SIGTERM).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/subprocess.h"

using canopy::run_command;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(Subprocess, CapturesOutputAndExitStatus) {
  auto run = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.out, "out\n");
  EXPECT_EQ(run.err, "err\n");
  EXPECT_FALSE(run.timed_out);
  EXPECT_FALSE(run.cancelled);
}

TEST(Subprocess, DeathBySignalIsSaid) {
  auto run = run_command({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(run.signal, 9);
  EXPECT_EQ(run.exit_code, 137);
  EXPECT_NE(canopy::describe_failure("tool", run).find("tool was killed by signal 9 (Killed)"), std::string::npos)
      << canopy::describe_failure("tool", run);
}

TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  auto start = std::chrono::steady_clock::now();
  auto run = run_command({"sh", "-c", "sleep 30 & sleep 30"}, "", "", 0.2);
  EXPECT_TRUE(run.timed_out);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_NE(canopy::describe_failure("sleeper", run).find("sleeper timed out after 0.2 s"), std::string::npos);
}

TEST(Subprocess, CancelFlagStopsTheProgramPromptly) {
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto run = run_command({"sleep", "30"}, "", "", 60, &cancel);
  canceller.join();
  EXPECT_TRUE(run.cancelled);
  EXPECT_FALSE(run.timed_out);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_NE(canopy::describe_failure("sleep", run).find("sleep was cancelled"), std::string::npos);
}

}  // namespace
