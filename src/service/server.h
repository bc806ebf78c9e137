// canopyd's TCP front end: accepts connections, frames request lines, answers
// them with answer_request() from the current snapshot and writes the answers
// back in order. Built on standalone Asio with one io_context per thread; every
// connection lives on one thread, so its state needs no lock. Limits protect
// the service from any one client: line length, unread answers, idle time,
// number of clients. See docs/canopyd.md.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "service/snapshot.h"

namespace canopy::service {

struct ServerOptions {
  std::string listen = "127.0.0.1:7470";  // ADDR:PORT, [ADDR]:PORT for IPv6; port 0 picks a free one
  int threads = 2;
  size_t max_line_bytes = 1 << 20;
  size_t max_pending_bytes = 16 << 20;
  int idle_timeout_s = 300;  // 0: never
  int max_clients = 10000;
  long long max_matrix_hosts = 256;

  /** The service_* parameters (defaults, config file, environment); throws Error on a bad value. */
  static ServerOptions from_params();
};

/** Raises the soft limit on open files to the hard limit; returns the new soft limit. */
long raise_open_file_limit();

class Server {
 public:
  /** Binds and listens; throws Error(IO) "cannot listen on ADDR:PORT: why". */
  Server(SnapshotStore &store, ServerOptions options);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /** The address actually bound, "ADDR:PORT" (the port chosen when 0 was asked). */
  std::string local_address() const;

  /** Serves until stop(), or SIGINT/SIGTERM when @p handle_signals; SIGHUP then
      calls @p on_hangup. Returns once every connection is closed. */
  void run(bool handle_signals, std::function<void()> on_hangup = {});
  /** Stops serving; safe from any thread and more than once. */
  void stop();

  /** Connections open now. */
  int clients() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace canopy::service
