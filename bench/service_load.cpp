// Load generator for canopyd: N connections, each keeping D requests in flight
// (pipelined), for a fixed time, from a few epoll threads; prints answers/s and
// the latency of each answer (p50, p99). Optionally measures reloads: switches
// DIR/current between two dumps and times until `info` shows the new snapshot.
//
//   bench_service_load --connect 127.0.0.1:7470 --connections 64 --depth 1 --seconds 10
//   bench_service_load --connect ... --mix query=8,route=1,matrix=1 --json
//   bench_service_load --connect ... --reload-dir DIR --targets dump-a,dump-b --reloads 7
//
// A benchmark, not a test: it counts ERR answers but does not check them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/text.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string connect = "127.0.0.1:7470", mix = "query=1", reload_dir, targets;
  int connections = 64, depth = 1, threads = 1, reloads = 0;
  double seconds = 10, warmup = 1;
  bool json = false;
};

sockaddr_in parse_address(const std::string &text) {
  size_t colon = text.rfind(':');
  sockaddr_in address{};
  address.sin_family = AF_INET;
  uint64_t port = 0;
  if (colon == std::string::npos || inet_pton(AF_INET, text.substr(0, colon).c_str(), &address.sin_addr) != 1 ||
      !canopy::parse_uint(std::string_view(text).substr(colon + 1), port, 10) || port < 1 || port > 65535)
    throw std::runtime_error("--connect wants IPv4ADDR:PORT (port 1-65535), not " + text);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

// A blocking line client, for setup, `info` polling and `json on`.
class LineClient {
 public:
  explicit LineClient(const sockaddr_in &address) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
      throw std::runtime_error("cannot connect to canopyd");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~LineClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  std::string ask(const std::string &request) {
    std::string line = request + "\n";
    if (::send(fd_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size()))
      throw std::runtime_error("send failed");
    size_t newline;
    while ((newline = buffer_.find('\n')) == std::string::npos) {
      char chunk[65536];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) throw std::runtime_error("canopyd closed the connection");
      buffer_.append(chunk, static_cast<size_t>(n));
    }
    std::string answer = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    return answer;
  }
  /** Hands the socket over (non-blocking) to the load loop. */
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
  std::string buffer_;
};

using Mix = std::vector<std::pair<std::string, int>>;  // verb, weight

// --mix VERB=WEIGHT,...: checked before any connection is made.
Mix parse_mix(const std::string &mix) {
  static const std::vector<std::string> verbs{"query", "route", "hops", "rate", "matrix", "info", "hosts"};
  Mix weights;
  for (std::string_view item : canopy::split(mix, ',')) {
    size_t eq = item.find('=');
    std::string verb(item.substr(0, eq));
    uint64_t weight = 1;
    if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end())
      throw std::runtime_error("unknown verb in --mix: " + verb);
    if (eq != std::string_view::npos &&
        (!canopy::parse_uint(item.substr(eq + 1), weight, 10) || weight < 1 || weight > 1000))
      throw std::runtime_error("--mix: '" + std::string(item) + "' wants VERB=WEIGHT with a whole weight 1-1000");
    weights.emplace_back(verb, static_cast<int>(weight));
  }
  return weights;
}

// The request pool: the mix's verbs with random hosts of the fabric.
std::vector<std::string> make_requests(const Mix &weights, const std::vector<std::string> &hosts) {
  std::mt19937 random(42);
  auto host = [&] { return hosts[random() % hosts.size()]; };
  std::vector<std::string> requests;
  for (const auto &[verb, weight] : weights)
    for (int i = 0; i < weight * 512; ++i) {
      if (verb == "query") requests.push_back("query " + host() + ":" + host());
      else if (verb == "route" || verb == "hops") requests.push_back(verb + " " + host() + " " + host());
      else if (verb == "rate") requests.push_back("rate " + host());
      else if (verb == "matrix") requests.push_back("matrix all " + host() + " " + host() + " " + host() + " " + host());
      else requests.push_back(verb);  // info, hosts
    }
  std::shuffle(requests.begin(), requests.end(), random);
  return requests;
}

struct Connection {
  int fd;
  size_t next;
  std::deque<Clock::time_point> sent;  // send time of each request in flight
  std::string in, out;
};

struct Result {
  uint64_t answers = 0, errors = 0, lost = 0;
  std::vector<double> latency_us;
};

// One thread's share of the connections, driven by epoll until @p end.
void drive(std::vector<Connection> &connections, const std::vector<std::string> &requests, const Options &o,
           Clock::time_point measure_from, Clock::time_point end, Result &result) {
  int epoll = ::epoll_create1(EPOLL_CLOEXEC);
  auto refill = [&](Connection &c, Clock::time_point now) {
    while (static_cast<int>(c.sent.size()) < o.depth) {
      c.out += requests[c.next++ % requests.size()];
      c.out += '\n';
      c.sent.push_back(now);
    }
    ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) c.out.erase(0, static_cast<size_t>(n));
  };
  for (size_t i = 0; i < connections.size(); ++i) {
    epoll_event event{EPOLLIN, {}};
    event.data.u64 = i;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, connections[i].fd, &event);
    refill(connections[i], Clock::now());
  }
  std::vector<epoll_event> events(256);
  char chunk[65536];
  for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
    int ready = ::epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 50);
    now = Clock::now();
    for (int e = 0; e < ready; ++e) {
      Connection &c = connections[events[e].data.u64];
      ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        ++result.lost;
        ::epoll_ctl(epoll, EPOLL_CTL_DEL, c.fd, nullptr);
        continue;
      }
      c.in.append(chunk, static_cast<size_t>(n));
      size_t start = 0, newline;
      while ((newline = c.in.find('\n', start)) != std::string::npos && !c.sent.empty()) {
        if (now >= measure_from) {
          ++result.answers;
          result.latency_us.push_back(std::chrono::duration<double, std::micro>(now - c.sent.front()).count());
          std::string_view line(c.in.data() + start, newline - start);
          if (canopy::starts_with(line, "ERR") || line.find("\"ok\":false") != std::string_view::npos) ++result.errors;
        }
        c.sent.pop_front();
        start = newline + 1;
      }
      c.in.erase(0, start);
      refill(c, now);
    }
  }
  ::close(epoll);
}

double percentile(std::vector<double> &values, double p) {
  if (values.empty()) return 0;
  size_t k = std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size())));
  std::nth_element(values.begin(), values.begin() + static_cast<long>(k), values.end());
  return values[k];
}

void run_load(const Options &o, const Mix &mix, const sockaddr_in &address) {
  std::vector<std::string> hosts;
  {
    LineClient setup(address);
    std::string answer = setup.ask("hosts");
    std::vector<std::string_view> fields = canopy::split_fields(answer);
    if (fields.size() < 3 || fields[0] != "hosts") throw std::runtime_error("no fabric loaded");
    for (size_t i = 2; i < fields.size(); ++i) hosts.emplace_back(fields[i]);
  }
  std::vector<std::string> requests = make_requests(mix, hosts);
  int threads = std::max(1, std::min(o.threads, o.connections));
  std::vector<std::vector<Connection>> shares(static_cast<size_t>(threads));
  for (int i = 0; i < o.connections; ++i) {
    LineClient client(address);
    if (o.json) client.ask("json on");
    int fd = client.release();
    int flags = 1;
    ::ioctl(fd, FIONBIO, &flags);
    shares[static_cast<size_t>(i % threads)].push_back({fd, static_cast<size_t>(i) * 7919, {}, {}, {}});
  }
  Clock::time_point start = Clock::now();
  Clock::time_point measure_from = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup));
  Clock::time_point end = measure_from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<Result> results(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back(drive, std::ref(shares[t]), std::cref(requests), std::cref(o), measure_from, end,
                         std::ref(results[t]));
  for (std::thread &worker : workers) worker.join();
  Result all;
  for (Result &r : results) {
    all.answers += r.answers;
    all.errors += r.errors;
    all.lost += r.lost;
    all.latency_us.insert(all.latency_us.end(), r.latency_us.begin(), r.latency_us.end());
  }
  for (auto &share : shares)
    for (Connection &c : share) ::close(c.fd);
  std::printf("connections %d depth %d mix %s%s: %.0f answers/s, latency p50 %.3f ms p99 %.3f ms, errors %llu, "
              "lost connections %llu\n",
              o.connections, o.depth, o.mix.c_str(), o.json ? " json" : "", static_cast<double>(all.answers) / o.seconds,
              percentile(all.latency_us, 0.5) / 1000, percentile(all.latency_us, 0.99) / 1000,
              static_cast<unsigned long long>(all.errors), static_cast<unsigned long long>(all.lost));
}

uint64_t snapshot_of(LineClient &client) {
  std::string info = client.ask("info");
  size_t at = info.find(" snapshot=");
  return at == std::string::npos ? 0 : std::stoull(info.substr(at + 10));
}

// Points DIR/current at @p name as canopy-collect does (new link renamed over the old).
void publish(const std::string &dir, const std::string &name) {
  std::string tmp = dir + "/.current-bench";
  ::unlink(tmp.c_str());
  if (::symlink(name.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), (dir + "/current").c_str()) != 0)
    throw std::runtime_error("cannot switch " + dir + "/current");
}

void run_reloads(const Options &o, const sockaddr_in &address) {
  std::vector<std::string_view> targets = canopy::split(o.targets, ',');
  if (targets.size() != 2) throw std::runtime_error("--targets wants two dump names: A,B");
  // Start with the target current does not name, so that every switch is a change.
  char link[4096] = {};
  ssize_t n = ::readlink((o.reload_dir + "/current").c_str(), link, sizeof link - 1);
  size_t first = n > 0 && std::string_view(link, static_cast<size_t>(n)) == targets[0] ? 1 : 0;
  LineClient client(address);
  std::vector<double> seconds;
  for (int i = 0; i < o.reloads; ++i) {
    uint64_t before = snapshot_of(client);
    Clock::time_point start = Clock::now();
    publish(o.reload_dir, std::string(targets[(first + static_cast<size_t>(i)) % 2]));
    while (snapshot_of(client) == before) {
      if (Clock::now() - start > std::chrono::seconds(60)) throw std::runtime_error("no reload within 60 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("reloads %d: switch of current to new snapshot answering: median %.3f s, min %.3f s, max %.3f s\n",
              o.reloads, seconds[seconds.size() / 2], seconds.front(), seconds.back());
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"canopyd load generator (a benchmark, not a test)"};
  Options o;
  app.add_option("--connect", o.connect, "canopyd address, IPv4ADDR:PORT");
  app.add_option("--connections", o.connections, "Connections (default 64)")->check(CLI::Range(1, 100000));
  app.add_option("--depth", o.depth, "Requests in flight per connection (default 1)")->check(CLI::Range(1, 4096));
  app.add_option("--threads", o.threads, "Client threads (default 1)")->check(CLI::Range(1, 1024));
  app.add_option("--seconds", o.seconds, "Measured time (default 10)")->check(CLI::Range(0.001, 86400.0));
  app.add_option("--warmup", o.warmup, "Unmeasured time first (default 1)")->check(CLI::Range(0.0, 86400.0));
  app.add_option("--mix", o.mix, "Request mix, verb=weight,... (query, route, hops, rate, matrix, info, hosts)");
  app.add_flag("--json", o.json, "Ask for JSON answers");
  CLI::Option *reload_dir = app.add_option("--reload-dir", o.reload_dir, "Measure reloads: the dump directory canopyd watches")
                                ->check(CLI::ExistingDirectory);
  CLI::Option *targets = app.add_option("--targets", o.targets, "Two dump names in it to alternate current between: A,B");
  app.add_option("--reloads", o.reloads, "Reloads to time (with --reload-dir and --targets)")
      ->check(CLI::Range(1, 100000))
      ->needs(reload_dir)
      ->needs(targets);
  CLI11_PARSE(app, argc, argv);
  try {
    sockaddr_in address = parse_address(o.connect);
    Mix mix = parse_mix(o.mix);
    if (o.reloads > 0)
      run_reloads(o, address);
    else
      run_load(o, mix, address);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_service_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
