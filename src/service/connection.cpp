#include "service/connection.h"

#include "common/log.h"

namespace canopy::service::detail {
namespace {

// Work one connection may do before letting the worker's other connections
// run: a client pipelining thousands of requests is answered in slices.
constexpr int kBatchRequests = 512;
constexpr size_t kBatchBytes = 256 * 1024;
// Bytes asked of each read: a connection always has a read waiting, into the
// end of its input buffer (Asio then reads without an extra epoll_ctl per
// request), so this is also what an idle connection holds.
constexpr size_t kReadChunk = 4096;
// Buffers bigger than this are released after use, not kept per connection.
constexpr size_t kKeepCapacity = 64 * 1024;
// How long a connection lingers after its last answer (quit, line too long),
// discarding what the client still sends, so the answer arrives before our close.
constexpr auto kLinger = std::chrono::seconds(2);

std::string peer_name(const asio::ip::tcp::socket &socket) {
  asio::error_code error;
  asio::ip::tcp::endpoint peer = socket.remote_endpoint(error);
  if (error) return "(unknown peer)";
  return peer.address().to_string() + ":" + std::to_string(peer.port());
}

}  // namespace

Worker::Worker(ServerShared &shared_state)
    : shared(shared_state), keep_running(asio::make_work_guard(io)), sweeper(io) {}

void Worker::start_sweeper() {
  sweeper.expires_after(std::chrono::milliseconds(500));
  sweeper.async_wait([this](const asio::error_code &error) {
    // A wait that had already completed when the shutdown cancelled it still comes here without an error.
    if (error || stopping) return;
    Clock::time_point now = Clock::now();
    // close() unlinks a connection from the list: walk a copy.
    std::vector<Connection *> open(connections.begin(), connections.end());
    for (Connection *connection : open) connection->check_idle(now);
    start_sweeper();
  });
}

void Worker::close_all() {
  std::vector<Connection *> open(connections.begin(), connections.end());
  for (Connection *connection : open) connection->close("server shutting down");
}

Connection::Connection(Worker &worker, asio::ip::tcp::socket socket)
    : worker_(worker), socket_(std::move(socket)), peer_(peer_name(socket_)) {}

Connection::~Connection() {
  if (!closed_) worker_.connections.erase(registration_);
  --worker_.shared.clients;
}

void Connection::start() {
  registration_ = worker_.connections.insert(worker_.connections.end(), this);
  asio::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);  // answers are small and wanted now
  last_active_ = Clock::now();
  CANOPY_LOG(Debug, "connection from %s", peer_.c_str());
  read_more();
}

void Connection::close(const char *why) {
  if (closed_) return;
  closed_ = true;
  CANOPY_LOG(Debug, "connection %s closed: %s", peer_.c_str(), why);
  asio::error_code ignored;
  socket_.close(ignored);  // pending handlers complete with operation_aborted and let go
  worker_.connections.erase(registration_);
}

void Connection::check_idle(Clock::time_point now) {
  if (lingering_ && now - linger_start_ > kLinger) return close("lingered after the last answer");
  int timeout = worker_.shared.options.idle_timeout_s;
  if (timeout > 0 && now - last_active_ > std::chrono::seconds(timeout)) {
    if (size_t unread = out_.size() + sending_.size())
      CANOPY_LOG(Warn, "closing %s: %zu bytes of answers unread for %d s (service_idle_timeout_s)", peer_.c_str(),
                 unread, timeout);
    else  // debug, not info: thousands of clients may time out together
      CANOPY_LOG(Debug, "closing %s: idle for %d s (service_idle_timeout_s)", peer_.c_str(), timeout);
    close("idle");
  }
}

// Nothing a client sends may take the worker down: any exception closes this connection only.
template <class Body>
void Connection::guarded(Body &&body) {
  try {
    body();
  } catch (const std::exception &e) {
    CANOPY_LOG(Error, "connection %s: %s; closing it", peer_.c_str(), e.what());
    close("internal error");
  }
}

void Connection::read_more() {
  if (closed_ || reading_) return;
  reading_ = true;
  size_t have = in_.size();
  in_.resize(have + kReadChunk);  // nothing else touches in_ until the read completes
  socket_.async_read_some(asio::buffer(&in_[have], kReadChunk),
                          [self = shared_from_this(), have](const asio::error_code &error, size_t n) {
                            self->reading_ = false;
                            self->in_.resize(have + n);
                            if (self->closed_) return;
                            self->guarded([&] { self->on_read(error); });
                          });
}

void Connection::on_read(const asio::error_code &error) {
  if (error == asio::error::eof) {
    peer_done_ = true;
  } else if (error) {
    CANOPY_LOG(Debug, "connection %s: read: %s", peer_.c_str(), error.message().c_str());
    return close("read failed");
  }
  last_active_ = Clock::now();
  if (lingering_) {
    in_.clear();
    return peer_done_ ? close("client closed after the last answer") : read_more();
  }
  if (peer_done_) input_done_ = true;  // answer what is buffered, a last line without '\n' included
  answer_lines();
}

bool Connection::answers_backed_up() const {
  return out_.size() + sending_.size() >= worker_.shared.options.max_pending_bytes;
}

// Answers what the client has sent, one batch at a time. Once service_max_pending_bytes of
// answers wait for the client, answering and reading stop (held_) until on_sent has sent enough:
// a client answered faster than it reads is slowed down, not cut off. Never runs while a read
// is in progress (it writes into in_): on_read, the posted batches and a held connection's
// on_sent are the callers, and none has a read waiting.
void Connection::answer_lines() {
  answering_ = false;
  bool more = false;
  size_t consumed = answer_batch(0, more);
  in_.erase(0, consumed);
  scanned_ = scanned_ > consumed ? scanned_ - consumed : 0;
  if (in_.empty() && in_.capacity() > kKeepCapacity) std::string().swap(in_);
  send();
  held_ = answers_backed_up();
  if (held_) return;
  if (more) {
    answering_ = true;
    asio::post(worker_.io, [self = shared_from_this()] {
      if (!self->closed_) self->guarded([&] { self->answer_lines(); });
    });
  } else if (!input_done_) {
    read_more();
  }
  finish_if_done();
}

// Finds where the line starting at @p begin ends; false if it is not complete
// yet. At EOF, a last line without '\n' is complete.
bool Connection::take_line(size_t begin, size_t &end) {
  size_t newline = in_.find('\n', std::max(begin, scanned_));
  if (newline != std::string::npos) {
    end = newline;
    return true;
  }
  scanned_ = in_.size();
  end = in_.size();
  return peer_done_ && begin < in_.size();
}

// Answers the complete lines from @p begin, at most one batch, all from one
// snapshot; returns how many bytes of in_ are done with.
size_t Connection::answer_batch(size_t begin, bool &more) {
  ServerShared &shared = worker_.shared;
  std::shared_ptr<const Snapshot> snapshot = shared.store.snapshot();
  std::shared_ptr<const Freshness> freshness = shared.store.freshness();
  AnswerContext context{snapshot.get(), freshness.get(), shared.options.max_matrix_hosts};
  size_t out_start = out_.size();
  for (int answered = 0; !session_.quit;) {
    size_t end = 0;
    bool complete = take_line(begin, end);
    if (end - begin > shared.options.max_line_bytes) {
      CANOPY_LOG(Info, "closing %s: request line over %zu bytes", peer_.c_str(), shared.options.max_line_bytes);
      answer_error("line too long (limit " + std::to_string(shared.options.max_line_bytes) + " bytes)", session_, out_);
      input_done_ = true;
      return in_.size();  // the rest cannot be framed
    }
    if (!complete) return begin;
    answer_request(std::string_view(in_).substr(begin, end - begin), context, session_, out_);
    begin = std::min(end + 1, in_.size());
    if (++answered >= kBatchRequests || out_.size() - out_start >= kBatchBytes) {
      more = begin < in_.size();
      return begin;
    }
  }
  input_done_ = true;  // quit: what follows it is never answered
  return in_.size();
}

void Connection::send() {
  if (closed_ || sending_now_ || out_.empty()) return;
  sending_.swap(out_);
  sending_now_ = true;
  asio::async_write(socket_, asio::buffer(sending_), [self = shared_from_this()](const asio::error_code &error, size_t) {
    self->sending_now_ = false;
    if (self->closed_) return;
    self->guarded([&] { self->on_sent(error); });
  });
}

void Connection::on_sent(const asio::error_code &error) {
  if (error) {
    CANOPY_LOG(Debug, "connection %s: write: %s", peer_.c_str(), error.message().c_str());
    return close("write failed");
  }
  last_active_ = Clock::now();
  sending_.clear();
  if (sending_.capacity() > kKeepCapacity) std::string().swap(sending_);
  send();
  if (held_ && !answers_backed_up()) return answer_lines();  // requests may be waiting, and reading
  finish_if_done();
}

void Connection::finish_if_done() {
  if (closed_ || !input_done_ || lingering_ || answering_ || sending_now_ || !out_.empty()) return;
  if (peer_done_) return close("client closed");
  // quit or a line too long: every answer is out. Shut our side and discard
  // what the client still sends until it closes, so that our close does not
  // reset the connection before the client has read the last answer.
  asio::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_send, ignored);
  lingering_ = true;
  linger_start_ = Clock::now();
  in_.clear();
  read_more();
}

}  // namespace canopy::service::detail
