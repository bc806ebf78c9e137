#include "service/server.h"

#include <sys/resource.h>

#include <climits>
#include <algorithm>
#include <csignal>
#include <thread>

#include "common/error.h"
#include "common/log.h"
#include "common/params.h"
#include "common/text.h"
#include "service/connection.h"

namespace canopy::service {
namespace {

using asio::ip::tcp;
using detail::Clock;
using detail::Connection;
using detail::ServerShared;
using detail::Worker;

tcp::endpoint parse_listen(const std::string &text) {
  size_t colon = text.rfind(':');
  uint64_t port = 0;
  if (colon == std::string::npos || !parse_uint(std::string_view(text).substr(colon + 1), port, 10) || port > 65535)
    throw Error(CANOPY_ERR_INVALID_ARG, "listen address '" + text + "' is not ADDR:PORT");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  asio::error_code error;
  asio::ip::address address = asio::ip::make_address(host, error);
  if (error) throw Error(CANOPY_ERR_INVALID_ARG, "listen address '" + text + "': '" + host + "' is not an IP address");
  return {address, static_cast<unsigned short>(port)};
}

std::string endpoint_string(const tcp::endpoint &endpoint) {
  std::string address = endpoint.address().to_string();
  if (endpoint.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(endpoint.port());
}

bool out_of_resources(const asio::error_code &error) {
  return error == asio::error::no_descriptors || error == asio::error::no_buffer_space ||
         error == asio::error::no_memory || error.value() == ENFILE;
}

// A worker's thread: a handler that throws is logged and the loop goes on; a
// connection's handlers catch their own errors, so this is the last line.
void run_worker(Worker &worker) {
  for (;;) {
    try {
      worker.io.run();
      return;
    } catch (const std::exception &e) {
      CANOPY_LOG(Error, "server thread: %s; continuing", e.what());
    }
  }
}

}  // namespace

ServerOptions ServerOptions::from_params() {
  ServerOptions o;
  o.listen = param_string("service_listen");
  o.threads = static_cast<int>(param_int("service_threads"));
  // Automatic: the clients, the collector and the reloads need a core too; on
  // 2 cores one serving thread keeps p99 under 1 ms where two do not
  // (docs/benchmarks.md).
  if (o.threads == 0) o.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  o.max_line_bytes = static_cast<size_t>(param_int("service_max_line_bytes"));
  o.max_pending_bytes = static_cast<size_t>(param_int("service_max_pending_bytes"));
  o.idle_timeout_s = static_cast<int>(param_int("service_idle_timeout_s"));
  o.max_clients = static_cast<int>(param_int("service_max_clients"));
  o.max_matrix_hosts = param_int("service_max_matrix_hosts");
  return o;
}

long raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < limit.rlim_max) {
    rlim_t wanted = limit.rlim_max;
    limit.rlim_cur = wanted;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur == RLIM_INFINITY ? LONG_MAX : static_cast<long>(limit.rlim_cur);
}

struct Server::Impl {
  Impl(SnapshotStore &store, ServerOptions options);

  ServerShared shared;
  std::vector<std::unique_ptr<Worker>> workers;
  tcp::acceptor acceptor;  // on the first worker, with the signals
  asio::steady_timer accept_retry;
  std::unique_ptr<asio::signal_set> signals;
  std::function<void()> on_hangup;
  size_t next_worker = 0;
  std::atomic<bool> stopping{false};
  Clock::time_point last_refusal_log{};

  void listen();
  void accept();
  void on_accept(const asio::error_code &error, tcp::socket socket, Worker &worker);
  void refuse(tcp::socket &socket);
  void wait_signal();
  void shutdown();
};

Server::Impl::Impl(SnapshotStore &store, ServerOptions options)
    : shared{store, std::move(options)},
      workers([&] {
        std::vector<std::unique_ptr<Worker>> list;
        for (int i = 0; i < shared.options.threads; ++i) list.push_back(std::make_unique<Worker>(shared));
        return list;
      }()),
      acceptor(workers[0]->io),
      accept_retry(workers[0]->io) {}

void Server::Impl::listen() {
  const std::string &address = shared.options.listen;
  tcp::endpoint endpoint = parse_listen(address);
  asio::error_code error;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) throw Error(CANOPY_ERR_IO, "cannot listen on " + address + ": " + error.message());
}

void Server::Impl::accept() {
  // Connections go to the workers in turn; the accepting worker hands each over.
  Worker &worker = *workers[next_worker++ % workers.size()];
  acceptor.async_accept(worker.io, [this, &worker](const asio::error_code &error, tcp::socket socket) {
    on_accept(error, std::move(socket), worker);
  });
}

void Server::Impl::on_accept(const asio::error_code &error, tcp::socket socket, Worker &worker) {
  if (error == asio::error::operation_aborted || stopping) return;
  if (out_of_resources(error)) {
    // Out of descriptors: accepting again at once would spin; wait for clients to leave.
    CANOPY_LOG(Warn, "cannot accept a connection: %s; retrying in 100 ms", error.message().c_str());
    accept_retry.expires_after(std::chrono::milliseconds(100));
    accept_retry.async_wait([this](const asio::error_code &e) {
      if (!e) accept();
    });
    return;
  }
  if (error) {
    CANOPY_LOG(Debug, "accept: %s", error.message().c_str());
  } else if (shared.clients.load() >= shared.options.max_clients) {
    refuse(socket);
  } else {
    ++shared.clients;
    asio::post(worker.io, [&worker, socket = std::move(socket)]() mutable {
      std::make_shared<Connection>(worker, std::move(socket))->start();
    });
  }
  accept();
}

void Server::Impl::refuse(tcp::socket &socket) {
  Clock::time_point now = Clock::now();
  if (now - last_refusal_log > std::chrono::seconds(10)) {
    CANOPY_LOG(Warn, "refusing connections: %d clients already (service_max_clients)", shared.options.max_clients);
    last_refusal_log = now;
  }
  std::string answer;
  answer_error("too many clients (limit " + std::to_string(shared.options.max_clients) + ")", Session{}, answer);
  asio::error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(answer), ignored);  // a fresh socket's buffer takes one line
  socket.shutdown(asio::socket_base::shutdown_both, ignored);
  socket.close(ignored);
}

void Server::Impl::wait_signal() {
  signals->async_wait([this](const asio::error_code &error, int signal) {
    if (error) return;
    if (signal == SIGHUP) {
      CANOPY_LOG(Info, "SIGHUP: reloading the dump");
      if (on_hangup) on_hangup();
      return wait_signal();
    }
    CANOPY_LOG(Info, "%s: shutting down", signal == SIGINT ? "SIGINT" : "SIGTERM");
    shutdown();
  });
}

// On the first worker's thread: stop accepting, close every connection, and
// let each worker's run() return once its handlers have finished.
void Server::Impl::shutdown() {
  stopping = true;
  asio::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  // clear() also gives the signals their default action back: should the shutdown ever stall,
  // a second SIGTERM ends the process.
  if (signals) signals->clear(ignored);
  for (auto &worker : workers)
    asio::post(worker->io, [w = worker.get()] {
      w->stopping = true;
      w->close_all();
      w->sweeper.cancel();
      w->keep_running.reset();
    });
}

Server::Server(SnapshotStore &store, ServerOptions options) : impl_(std::make_unique<Impl>(store, std::move(options))) {
  long files = raise_open_file_limit();
  if (files >= 0 && files < impl_->shared.options.max_clients + 64L)
    CANOPY_LOG(Warn, "open file limit %ld is below service_max_clients %d: raise it (LimitNOFILE=)", files,
               impl_->shared.options.max_clients);
  impl_->listen();
}

Server::~Server() = default;

std::string Server::local_address() const {
  asio::error_code error;
  tcp::endpoint endpoint = impl_->acceptor.local_endpoint(error);
  return error ? impl_->shared.options.listen : endpoint_string(endpoint);
}

int Server::clients() const { return impl_->shared.clients.load(); }

void Server::run(bool handle_signals, std::function<void()> on_hangup) {
  Impl &impl = *impl_;
  impl.on_hangup = std::move(on_hangup);
  if (handle_signals) {
    impl.signals = std::make_unique<asio::signal_set>(impl.workers[0]->io, SIGINT, SIGTERM, SIGHUP);
    impl.wait_signal();
  }
  impl.accept();
  for (auto &worker : impl.workers) {
    worker->start_sweeper();
    worker->thread = std::thread(run_worker, std::ref(*worker));
  }
  for (auto &worker : impl.workers) worker->thread.join();
}

void Server::stop() {
  if (impl_->stopping.exchange(true)) return;
  asio::post(impl_->workers[0]->io, [impl = impl_.get()] { impl->shutdown(); });
}

}  // namespace canopy::service
