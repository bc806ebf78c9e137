#include "service/client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/params.h"
#include "common/text.h"

namespace canopy::service {
namespace {

using Clock = std::chrono::steady_clock;

struct Endpoint {
  int family, protocol;
  sockaddr_storage addr;
  socklen_t len;
};

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g s", seconds);
  return buffer;
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int remaining_ms(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count() + 1;
  return static_cast<int>(std::clamp<long long>(ms, 0, INT_MAX));
}

std::vector<Endpoint> endpoints_of(const addrinfo *list) {
  std::vector<Endpoint> out;
  for (const addrinfo *ai = list; ai; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Endpoint e{ai->ai_family, ai->ai_protocol, {}, static_cast<socklen_t>(ai->ai_addrlen)};
    std::memcpy(&e.addr, ai->ai_addr, ai->ai_addrlen);
    out.push_back(e);
  }
  return out;
}

// strerror() may share one buffer between threads; the C API is called from many.
std::string errno_text(int error) {
  char buffer[128];
  return strerror_r(error, buffer, sizeof buffer);  // the GNU form: returns the message
}

std::string lookup_failure(int rc, int saved_errno) {
  return rc == EAI_SYSTEM ? errno_text(saved_errno) : gai_strerror(rc);
}

// getaddrinfo() has no timeout and a name server that does not answer blocks it
// for the resolver's own (long) limits, so a name is looked up on a detached
// thread that we stop waiting for at the deadline. Numeric addresses need no thread.
struct Lookup {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  int rc = 0, saved_errno = 0;
  std::vector<Endpoint> endpoints;
};

std::vector<Endpoint> resolve(const ServerAddress &server, const std::string &text, Clock::time_point deadline,
                              double timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
  addrinfo *list = nullptr;
  if (getaddrinfo(server.host.c_str(), server.port.c_str(), &hints, &list) == 0) {
    std::vector<Endpoint> out = endpoints_of(list);
    freeaddrinfo(list);
    return out;
  }
  auto lookup = std::make_shared<Lookup>();
  std::thread([lookup, server, hints]() mutable {
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo *found = nullptr;
    int rc = getaddrinfo(server.host.c_str(), server.port.c_str(), &hints, &found);
    std::lock_guard<std::mutex> lock(lookup->mutex);
    lookup->rc = rc;
    lookup->saved_errno = errno;
    if (rc == 0) lookup->endpoints = endpoints_of(found);
    if (found) freeaddrinfo(found);
    lookup->done = true;
    lookup->done_cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(lookup->mutex);
  if (!lookup->done_cv.wait_until(lock, deadline, [&] { return lookup->done; }))
    throw Error(CANOPY_ERR_IO, "cannot connect to " + text + ": looking up '" + server.host + "' took over " +
                                   seconds_text(timeout_s) + " (service_client_timeout_s)");
  if (lookup->rc != 0)
    throw Error(CANOPY_ERR_IO, "cannot connect to " + text + ": " + lookup_failure(lookup->rc, lookup->saved_errno));
  return lookup->endpoints;
}

// Non-blocking connect bounded by the deadline: >= 0 the socket, -1 with `why` set.
int connect_endpoint(const Endpoint &e, Clock::time_point deadline, std::string &why, bool &timed_out) {
  int fd = socket(e.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, e.protocol);
  if (fd < 0) return why = errno_text(errno), -1;
  int rc = connect(fd, reinterpret_cast<const sockaddr *>(&e.addr), e.len);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    while ((rc = poll(&p, 1, remaining_ms(deadline))) < 0 && errno == EINTR) {
    }
    int error = 0;
    socklen_t len = sizeof error;
    if (rc == 0) {
      timed_out = true;
      error = ETIMEDOUT;
    } else if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
      error = errno;
    }
    rc = error ? -1 : 0;
    errno = error;
  }
  if (rc != 0) {
    why = errno_text(errno);
    close(fd);
    return -1;
  }
  int one = 1;  // requests are small and latency matters more than packet count
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

int connect_any(const std::string &text, const ClientOptions &options) {
  ServerAddress server = parse_server_address(text);
  Clock::time_point deadline = deadline_after(options.timeout_s);
  std::string why = "no address found";
  bool timed_out = false;
  for (const Endpoint &e : resolve(server, text, deadline, options.timeout_s)) {
    int fd = connect_endpoint(e, deadline, why, timed_out);
    if (fd >= 0) return fd;
    if (timed_out) {  // the deadline is shared by all addresses: none is left for the next
      why = "no connection within " + seconds_text(options.timeout_s) + " (service_client_timeout_s)";
      break;
    }
  }
  throw Error(CANOPY_ERR_IO, "cannot connect to " + text + ": " + why);
}

void check_request_line(const std::string &request) {
  for (char c : request)
    if (c == '\n' || c == '\r' || c == '\0')
      throw Error(CANOPY_ERR_INVALID_ARG, "a request must be one line of text: '" + printable(request) + "'");
}

// A host name travels as one field of a request line.
void check_host_field(const std::string &host) {
  bool ok = !host.empty();
  for (char c : host) ok = ok && static_cast<unsigned char>(c) > ' ' && c != 0x7f;
  if (!ok) throw Error(CANOPY_ERR_INVALID_ARG, "host name '" + printable(host) + "' is empty or contains a space or "
                                               "control character");
}

// N from canopyd's "matrix of more than N hosts (service_max_matrix_hosts)"; 0 for another reason.
int server_matrix_limit(std::string_view reason) {
  std::string_view prefix = "matrix of more than ";
  if (!starts_with(reason, prefix)) return 0;
  reason.remove_prefix(prefix.size());
  uint64_t limit = 0;
  return parse_uint(take_token(reason), limit, 10) && limit <= INT_MAX ? static_cast<int>(limit) : 0;
}

// Runs an answer parser, naming the server in its error.
template <class Parse>
auto parse_from(const std::string &address, Parse &&parse) {
  try {
    return parse();
  } catch (const Error &e) {
    throw Error(e.status(), address + ": " + e.what());
  }
}

}  // namespace

ServerAddress parse_server_address(std::string_view text) {
  auto bad = [&](const char *why) {
    return Error(CANOPY_ERR_INVALID_ARG, "bad server address '" + printable(text) + "': " + why);
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("expected HOST:PORT");
  ServerAddress server{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
  if (server.host.size() >= 2 && server.host.front() == '[' && server.host.back() == ']')
    server.host = server.host.substr(1, server.host.size() - 2);
  else if (server.host.find(':') != std::string::npos)
    throw bad("write an IPv6 address in brackets, [ADDRESS]:PORT");
  if (server.host.empty()) throw bad("no host before the port");
  uint64_t port = 0;
  if (!parse_uint(server.port, port, 10) || port == 0 || port > 65535) throw bad("the port is not 1 to 65535");
  return server;
}

ClientOptions ClientOptions::from_params() {
  ClientOptions options;
  options.timeout_s = param_double("service_client_timeout_s");  // the registry holds the ranges
  options.max_answer_bytes = static_cast<size_t>(param_int("service_client_max_answer_bytes"));
  options.matrix_hosts = static_cast<int>(param_int("service_client_matrix_hosts"));
  return options;
}

std::vector<std::vector<int>> matrix_request_blocks(int n, int max_hosts) {
  std::vector<std::vector<int>> requests;
  if (n <= max_hosts) {
    requests.emplace_back(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) requests.back()[static_cast<size_t>(i)] = i;
    return requests;
  }
  int block = std::max(1, max_hosts / 2);
  int blocks = (n + block - 1) / block;
  auto append_block = [&](std::vector<int> &request, int b) {
    for (int i = b * block; i < std::min(n, (b + 1) * block); ++i) request.push_back(i);
  };
  for (int a = 0; a < blocks; ++a)
    for (int b = a + 1; b < blocks; ++b) {
      requests.emplace_back();
      append_block(requests.back(), a);
      append_block(requests.back(), b);
    }
  return requests;
}

ServiceClient::ServiceClient(const std::string &address, ClientOptions options)
    : address_(address), options_(options) {
  fd_ = connect_any(address, options_);
  CANOPY_LOG(Debug, "connected to topology service %s", address_.c_str());
}

ServiceClient::~ServiceClient() {
  if (fd_ >= 0) close(fd_);
}

ServiceClient::Clock::time_point ServiceClient::deadline() const {
  return deadline_after(options_.timeout_s);
}

void ServiceClient::fail(const Error &error) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  throw error;
}

void ServiceClient::wait_ready(bool want_write, Clock::time_point deadline) {
  pollfd p{fd_, static_cast<short>(POLLIN | (want_write ? POLLOUT : 0)), 0};
  int rc;
  while ((rc = poll(&p, 1, remaining_ms(deadline))) < 0 && errno == EINTR) {
  }
  if (rc < 0) fail(Error(CANOPY_ERR_IO, address_ + ": " + errno_text(errno)));
  if (rc == 0)
    fail(Error(CANOPY_ERR_IO, "no answer from " + address_ + " within " + seconds_text(options_.timeout_s) +
                                  " (service_client_timeout_s)"));
}

// Moves one complete line out of the receive buffer, if there is one.
bool ServiceClient::take_answer(std::string &answer) {
  size_t newline = in_.find('\n', std::max(scanned_, in_start_));
  if (newline == std::string::npos) {
    scanned_ = in_.size();
    if (in_.size() - in_start_ > options_.max_answer_bytes)
      fail(Error(CANOPY_ERR_IO, address_ + ": answer longer than " + std::to_string(options_.max_answer_bytes) +
                                    " bytes (service_client_max_answer_bytes)"));
    return false;
  }
  size_t end = newline > in_start_ && in_[newline - 1] == '\r' ? newline - 1 : newline;
  answer.assign(in_, in_start_, end - in_start_);
  in_start_ = newline + 1;
  if (in_start_ == in_.size() || in_start_ > (1u << 20)) {  // keep the buffer from growing without bound
    in_.erase(0, in_start_);
    scanned_ = in_start_ = 0;
  }
  return true;
}

void ServiceClient::receive() {
  char chunk[65536];
  ssize_t got;
  while ((got = recv(fd_, chunk, sizeof chunk, 0)) < 0 && errno == EINTR) {
  }
  if (got > 0) return in_.append(chunk, static_cast<size_t>(got)), void();
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  fail(Error(CANOPY_ERR_IO, address_ + (got == 0 ? std::string(": the server closed the connection")
                                                 : ": " + errno_text(errno))));
}

void ServiceClient::exchange(const std::vector<std::string> &requests, const AnswerHandler &on_answer) {
  if (fd_ < 0) throw Error(CANOPY_ERR_IO, address_ + ": the connection was closed after an earlier failure");
  std::string out;
  for (const std::string &request : requests) {
    check_request_line(request);
    out += request;
    out += '\n';
  }
  // Write and read together: the server stops reading from a client whose
  // answers pile up, so writing everything first could deadlock on a long batch.
  size_t sent = 0, answered = 0;
  std::string answer;
  Clock::time_point due = deadline();
  while (answered < requests.size()) {
    if (take_answer(answer)) {
      try {
        on_answer(answered++, answer);
      } catch (...) {
        if (fd_ >= 0) close(fd_);  // the answers still coming would be read as answers to later requests
        fd_ = -1;
        throw;
      }
      due = deadline();
      continue;
    }
    wait_ready(sent < out.size(), due);
    if (sent < out.size()) {
      ssize_t n = send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        fail(Error(CANOPY_ERR_IO, address_ + ": " + errno_text(errno)));
    }
    receive();
  }
}

std::vector<std::string> ServiceClient::exchange(const std::vector<std::string> &requests) {
  std::vector<std::string> answers;
  answers.reserve(requests.size());
  exchange(requests, [&](size_t, std::string &answer) { answers.push_back(std::move(answer)); });
  return answers;
}

std::string ServiceClient::exchange(const std::string &request) { return exchange(std::vector{request}).front(); }

std::string ServiceClient::checked(const std::string &request) {
  std::string answer = exchange(request);
  if (auto reason = answer_error(answer)) throw service_error(address_, *reason);
  return answer;
}

// `json on` is answered in JSON already ({"ok": true, "json": true, ...}), `json off` in text.
void ServiceClient::set_json(bool on) {
  if (on == json_) return;
  std::string answer = checked(on ? "json on" : "json off");
  bool ok = answer == "ok json off";
  if (on) {
    nlohmann::json object = nlohmann::json::parse(answer, nullptr, false);
    ok = object.is_object() && object.value("ok", nlohmann::json()) == true &&
         object.value("json", nlohmann::json()) == true;
  }
  if (!ok) fail(Error(CANOPY_ERR_PARSE, address_ + ": unexpected answer to json " + (on ? "on" : "off") + ": '" +
                                            printable(answer) + "'"));
  json_ = on;
}

std::optional<std::string> ServiceClient::ask_matrices(const std::vector<std::string> &hosts, int max_hosts,
                                                       topo::HostMatrices &m) {
  std::vector<std::vector<int>> blocks = matrix_request_blocks(static_cast<int>(hosts.size()), max_hosts);
  std::vector<std::string> requests;
  for (const std::vector<int> &block : blocks) {
    requests.emplace_back("matrix all");
    for (int i : block) requests.back().append(" ").append(hosts[static_cast<size_t>(i)]);
  }
  std::optional<std::string> error;
  exchange(requests, [&](size_t r, std::string &answer) {
    if (!error) error = answer_error(answer);
    if (error) return;  // read on: the connection stays in step
    const std::vector<int> &block = blocks[r];
    int k = static_cast<int>(block.size());
    topo::HostMatrices part = parse_from(address_, [&] { return parse_matrices_answer(answer, k); });
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) {
        size_t to = static_cast<size_t>(block[a]) * m.n + block[b], from = static_cast<size_t>(a) * k + b;
        m.hops[to] = part.hops[from];
        m.gbps[to] = part.gbps[from];
        m.delay_us[to] = part.delay_us[from];
      }
  });
  return error;
}

topo::HostMatrices ServiceClient::matrices(const std::vector<std::string> &hosts) {
  if (hosts.empty()) return {};
  for (const std::string &host : hosts) check_host_field(host);
  set_json(false);
  topo::HostMatrices m;
  m.n = static_cast<int>(hosts.size());
  size_t cells = static_cast<size_t>(m.n) * m.n;
  m.hops.resize(cells);
  m.gbps.resize(cells);
  m.delay_us.resize(cells);
  for (int max_hosts = options_.matrix_hosts;;) {
    std::optional<std::string> error = ask_matrices(hosts, max_hosts, m);
    if (!error) return m;
    // A server configured for smaller matrices says its limit: ask again in blocks that fit.
    int limit = server_matrix_limit(*error);
    if (limit < 2 || limit >= max_hosts) throw service_error(address_, *error);
    CANOPY_LOG(Info, "%s takes matrices of at most %d hosts: asking in blocks", address_.c_str(), limit);
    max_hosts = limit;
  }
}

topo::RouteView ServiceClient::route(const std::string &host_a, const std::string &host_b) {
  check_host_field(host_a);
  check_host_field(host_b);
  set_json(true);
  std::string answer = checked("route " + host_a + " " + host_b);
  return parse_from(address_, [&] { return parse_route_answer(answer); });
}

std::vector<std::pair<std::string, std::string>> ServiceClient::info() {
  set_json(false);
  std::string answer = checked("info");
  return parse_from(address_, [&] { return parse_info_answer(answer); });
}

}  // namespace canopy::service
