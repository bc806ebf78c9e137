#include "stop.h"

#include <signal.h>

namespace canopy::collect {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_stop_signal(int) { g_stop.store(true); }

}  // namespace

const std::atomic<bool> &stop_on_signals() {
  g_stop.store(false);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_stop;
}

}  // namespace canopy::collect
