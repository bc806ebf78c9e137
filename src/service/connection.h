// Inside the server (not installed): a worker thread with its io_context, and
// one client connection. A connection belongs to one worker for its whole life
// and all its handlers run on that worker's thread, so it needs no lock.
#pragma once
#include <asio.hpp>

#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "service/protocol.h"
#include "service/server.h"
#include "service/snapshot.h"

namespace canopy::service::detail {

using Clock = std::chrono::steady_clock;

struct ServerShared {
  SnapshotStore &store;
  ServerOptions options;
  std::atomic<int> clients{0};
};

class Connection;

struct Worker {
  explicit Worker(ServerShared &shared);

  ServerShared &shared;
  asio::io_context io{1};  // run by one thread
  asio::executor_work_guard<asio::io_context::executor_type> keep_running;
  asio::steady_timer sweeper;
  std::list<Connection *> connections;  // open connections; touched only on this thread
  bool stopping = false;                // set on this thread by the shutdown: the sweeper stops re-arming
  std::thread thread;

  /** Closes idle connections every half second. */
  void start_sweeper();
  void close_all();
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Worker &worker, asio::ip::tcp::socket socket);
  ~Connection();
  Connection(const Connection &) = delete;
  Connection &operator=(const Connection &) = delete;

  void start();
  /** Closes at once; answers not yet sent are dropped. */
  void close(const char *why);
  /** Closes the connection if it was idle too long, or lingers after its last answer too long. */
  void check_idle(Clock::time_point now);

 private:
  template <class Body>
  void guarded(Body &&body);
  void read_more();
  void on_read(const asio::error_code &error);
  bool answers_backed_up() const;
  void answer_lines();
  size_t answer_batch(size_t begin, bool &more);
  bool take_line(size_t begin, size_t &end);
  void send();
  void on_sent(const asio::error_code &error);
  void finish_if_done();

  Worker &worker_;
  asio::ip::tcp::socket socket_;
  std::string peer_;
  std::list<Connection *>::iterator registration_;
  Session session_;
  std::string in_;       // received, not yet answered; a read in progress appends to it
  size_t scanned_ = 0;   // in_[0, scanned_) holds no '\n'
  std::string out_;      // answers waiting for the current send to finish
  std::string sending_;  // answers being sent
  bool reading_ = false, sending_now_ = false, answering_ = false;
  bool held_ = false;        // service_max_pending_bytes of answers wait: neither answering nor reading
  bool peer_done_ = false;   // the client closed its side (EOF)
  bool input_done_ = false;  // read no more requests: EOF, quit, or a line too long
  bool lingering_ = false;   // after quit / line too long: our side shut, discarding input until EOF
  bool closed_ = false;
  Clock::time_point last_active_, linger_start_;
};

}  // namespace canopy::service::detail
