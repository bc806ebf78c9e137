// The topology service client: answer parsers (valid, truncated, wrong counts,
// garbage), ERR answers mapped to statuses, address parsing, and the socket
// client against a scripted loopback server (pipelining, timeouts, bounds).
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "fabric_builder.h"
#include "canopy/service.h"
#include "common/text.h"
#include "service/client.h"

using namespace canopy;
using namespace canopy::service;
using canopy::test::TwoLevelFatTree;

namespace {

template <class F>
canopy_status_t status_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.status();
  }
  return CANOPY_SUCCESS;
}

template <class F>
std::string message_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

}  // namespace

// ---- addresses ----

TEST(ServiceAddress, HostPortForms) {
  ServerAddress a = parse_server_address("127.0.0.1:7470");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, "7470");
  a = parse_server_address("[::1]:80");
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.port, "80");
  EXPECT_EQ(parse_server_address("topo.cluster:65535").host, "topo.cluster");
}

TEST(ServiceAddress, BadFormsAreInvalidArguments) {
  for (const char *bad : {"", "host", "host:", ":7470", "host:0", "host:65536", "host:70x", "::1:7470", "[]:1"})
    EXPECT_EQ(status_of([&] { parse_server_address(bad); }), CANOPY_ERR_INVALID_ARG) << bad;
  EXPECT_NE(message_of([] { parse_server_address("::1:7470"); }).find("[ADDRESS]:PORT"), std::string::npos);
}

// ---- error answers ----

TEST(ServiceAnswers, ErrorAnswersInTextAndJson) {
  EXPECT_EQ(answer_error("ERR unknown host 'x'"), "unknown host 'x'");
  EXPECT_EQ(answer_error("ERR"), "unspecified error");
  EXPECT_EQ(answer_error(R"({"ok": false, "error": "unknown host 'x'"})"), "unknown host 'x'");
  EXPECT_EQ(answer_error(R"({"ok": false})"), "unspecified error");
  for (const char *fine : {"hops 4", "ERRATIC", R"({"ok": true})", R"({"ok": "no"})", "{broken", ""})
    EXPECT_FALSE(answer_error(fine)) << fine;
}

// What tells canopyd's answers from another server's lines (canopy query's first answer).
TEST(ServiceAnswers, AnswersMatchTheirRequestsVerb) {
  EXPECT_TRUE(answers_request("hops H1 H4", "hops 3"));
  EXPECT_TRUE(answers_request("  help", "help query route hops"));
  EXPECT_TRUE(answers_request("info", "info version=0.1.0 protocol=1"));
  EXPECT_TRUE(answers_request("query H1:H4", "H1 0x0000000000200008 H4"));
  EXPECT_TRUE(answers_request("quit", "bye"));
  EXPECT_TRUE(answers_request("json on", R"({"ok": true, "snapshot": 1, "json": true})"));
  EXPECT_TRUE(answers_request("json off", "ok json off"));
  EXPECT_TRUE(answers_request("frob", "ERR unknown request 'frob' (try help)"));
  EXPECT_FALSE(answers_request("info", "HTTP/1.1 400 Bad Request"));
  EXPECT_FALSE(answers_request("hops H1 H4", "hopscotch"));
  EXPECT_FALSE(answers_request("quit", "goodbye"));
  EXPECT_FALSE(answers_request("query H1:H4", ""));
}

TEST(ServiceAnswers, ErrorReasonsMapToStatuses) {
  EXPECT_EQ(error_status("unknown host 'nosuch'"), CANOPY_ERR_NOT_FOUND);
  EXPECT_EQ(error_status("forwarding hole: switch S1 has no entry for LID 7"), CANOPY_ERR_ROUTE);
  EXPECT_EQ(error_status("forwarding loop through S1, S2"), CANOPY_ERR_ROUTE);
  EXPECT_EQ(error_status("unknown request 'frob' (try help)"), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(error_status("usage: route HOST_A HOST_B"), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(error_status("request is not text"), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(error_status("line too long (limit 1048576 bytes)"), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(error_status("no topology loaded yet"), CANOPY_ERR_IO);
  EXPECT_EQ(error_status("something new"), CANOPY_ERR_IO);
  Error e = service_error("h:1", "unknown host 'q'");
  EXPECT_EQ(e.status(), CANOPY_ERR_NOT_FOUND);
  EXPECT_STREQ(e.what(), "h:1: unknown host 'q'");
}

// ---- matrices ----

TEST(ServiceAnswers, MatrixAll) {
  topo::HostMatrices m = parse_matrices_answer("matrix all 2 0 4 4 0 32 8 8 32 0 2.448 2.448 0", 2);
  EXPECT_EQ(m.n, 2);
  EXPECT_EQ(m.hops, (std::vector<int>{0, 4, 4, 0}));
  EXPECT_EQ(m.gbps, (std::vector<double>{32, 8, 8, 32}));
  EXPECT_EQ(m.delay_us, (std::vector<double>{0, 2.448, 2.448, 0}));
  // Round-trip precision survives: the C API promises the local values exactly.
  m = parse_matrices_answer("matrix all 1 0 13.64 65.83600000000001", 1);
  EXPECT_EQ(m.delay_us[0], 65.83600000000001);
  EXPECT_EQ(parse_matrices_answer("matrix\tall  1  0 8 0 ", 1).n, 1);
}

TEST(ServiceAnswers, MatrixWrongCountsAreParseErrors) {
  const char *bad[] = {
      "matrix all 2 0 4 4 0 32 8 8 32 0 2.4 2.4",       // truncated: one delay missing
      "matrix all 2 0 4 4 0 32 8 8 32 0 2.4 2.4 0 7",   // one value too many
      "matrix all 3 0 4 4 0 32 8 8 32 0 2.4 2.4 0",     // host count is not the one asked for
      "matrix all 2",                                   // no values at all
      "matrix all",                                     // no count
      "matrix all -2 0",                                // negative count
      "matrix hops 2 0 4 4 0",                          // another kind
      "",                                               // empty
  };
  for (const char *answer : bad) EXPECT_EQ(status_of([&] { parse_matrices_answer(answer, 2); }), CANOPY_ERR_PARSE) << answer;
  EXPECT_NE(message_of([&] { parse_matrices_answer(bad[0], 2); }).find("truncated"), std::string::npos);
}

TEST(ServiceAnswers, MatrixNonNumbersAreParseErrors) {
  for (const char *value : {"x", "nan", "inf", "-1", "1e999", "0x10", "+1", ".5", "1,5", "4\x01"}) {
    std::string answer = std::string("matrix all 1 0 ") + value + " 0";
    EXPECT_EQ(status_of([&] { parse_matrices_answer(answer, 1); }), CANOPY_ERR_PARSE) << answer;
  }
  for (const char *hops : {"1.5", "2e0", "99999999999"})
    EXPECT_EQ(status_of([&] { parse_matrices_answer(std::string("matrix all 1 ") + hops + " 8 0", 1); }),
              CANOPY_ERR_PARSE) << hops;
  EXPECT_NE(message_of([] { parse_matrices_answer("matrix all 1 0 fast 0", 1); }).find("'fast'"), std::string::npos);
}

// ---- routes ----

namespace {
std::string route_answer() {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  nlohmann::json j = topo::route_view_json(topo::describe_route(f.topo, topo::find_route(f.topo, f.h1, f.h3)));
  j["ok"] = true;
  j["snapshot"] = 3;
  return j.dump();
}
}  // namespace

TEST(ServiceAnswers, RouteInJsonMode) {
  topo::RouteView r = parse_route_answer(route_answer());
  EXPECT_EQ(r.method, "lft");
  EXPECT_EQ(r.links(), 4);
  EXPECT_EQ(r.min_gbps, 32.0);
  ASSERT_EQ(r.path.size(), 5u);
  EXPECT_EQ(r.path[0].name, "h1");
  EXPECT_EQ(r.path[0].type, "host");
  EXPECT_EQ(r.path[2].name, "spineB");
  EXPECT_EQ(r.path[2].type, "switch");
  EXPECT_EQ(r.path[0].out_rate, "4xQDR");
  EXPECT_EQ(r.path[4].out_port, 0);
  // The view converts back to the very object it came from.
  nlohmann::json back = topo::route_view_json(r);
  nlohmann::json original = nlohmann::json::parse(route_answer());
  original.erase("ok");
  original.erase("snapshot");
  EXPECT_EQ(back, original);
}

TEST(ServiceAnswers, RouteBrokenAnswersAreParseErrors) {
  std::string good = route_answer();
  std::vector<std::function<void(nlohmann::json &)>> breakers = {
      [](auto &j) { j.erase("method"); },
      [](auto &j) { j["links"] = 3; },
      [](auto &j) { j["links"] = "4"; },
      [](auto &j) { j["from"] = "h2"; },
      [](auto &j) { j["ok"] = false; },
      [](auto &j) { j.erase("ok"); },
      [](auto &j) { j["path"] = nlohmann::json::array(); },
      [](auto &j) { j["path"][1]["guid"] = "1000"; },
      [](auto &j) { j["path"][1]["guid"] = "0x12345678901234567"; },
      [](auto &j) { j["path"][1]["in_port"] = -1; },
      [](auto &j) { j["path"][1]["in_port"] = 1.5; },
      [](auto &j) { j["path"][1]["out_gbps"] = "fast"; },
      [](auto &j) { j["path"][1]["type"] = "toaster"; },
      [](auto &j) { j["path"][1] = 7; },
      [](auto &j) { j["min_gbps"] = -1; },
  };
  for (size_t i = 0; i < breakers.size(); ++i) {
    nlohmann::json j = nlohmann::json::parse(good);
    breakers[i](j);
    EXPECT_EQ(status_of([&] { parse_route_answer(j.dump()); }), CANOPY_ERR_PARSE) << "breaker " << i << ": " << j;
  }
  for (std::string garbage : {good.substr(0, good.size() / 2), std::string("route lft 2 8 h1,0x1,0,1,8"),
                              std::string("[]"), std::string("null"), std::string("")})
    EXPECT_EQ(status_of([&] { parse_route_answer(garbage); }), CANOPY_ERR_PARSE) << garbage;
}

// ---- info ----

TEST(ServiceAnswers, InfoKeysInOrderWithQuotedValues) {
  auto fields = parse_info_answer(
      R"(info version=0.1.0 protocol=1 snapshot=3 state=stale reason="dump-2: bad \"line\" 7" hosts=64)");
  ASSERT_EQ(fields.size(), 6u);
  EXPECT_EQ(fields[0], (std::pair<std::string, std::string>{"version", "0.1.0"}));
  EXPECT_EQ(fields[4], (std::pair<std::string, std::string>{"reason", "dump-2: bad \"line\" 7"}));
  EXPECT_EQ(fields[5].second, "64");
  EXPECT_TRUE(parse_info_answer("info").empty());
}

TEST(ServiceAnswers, InfoGarbageIsAParseError) {
  for (const char *bad : {"hosts 4 a b c d", "info version", "info =1", R"(info reason="open)", R"(info a="b"c)", ""})
    EXPECT_EQ(status_of([&] { parse_info_answer(bad); }), CANOPY_ERR_PARSE) << bad;
}

// ---- the socket client against a scripted loopback server ----

namespace {

// Accepts one connection on 127.0.0.1 and answers each request line with
// script(line): std::nullopt never answers, "<close>" closes the connection.
class ScriptedServer {
 public:
  using Script = std::function<std::optional<std::string>(const std::string &)>;

  explicit ScriptedServer(Script script) : script_(std::move(script)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), len) != 0 || listen(listen_fd_, 4) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
      throw std::runtime_error("cannot listen on loopback");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    thread_.join();
    close(listen_fd_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  bool wait_readable(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }
  void serve() {
    if (!wait_readable(listen_fd_)) return;
    int fd = accept(listen_fd_, nullptr, nullptr);
    std::string in;
    char chunk[4096];
    while (wait_readable(fd)) {
      ssize_t got = recv(fd, chunk, sizeof chunk, 0);
      if (got <= 0) break;
      in.append(chunk, static_cast<size_t>(got));
      if (!answer_lines(fd, in)) break;
    }
    close(fd);
  }
  bool answer_lines(int fd, std::string &in) {
    for (size_t newline; (newline = in.find('\n')) != std::string::npos;) {
      std::optional<std::string> answer = script_(in.substr(0, newline));
      in.erase(0, newline + 1);
      if (answer && *answer == "<close>") return false;
      if (answer && !send_all(fd, *answer + "\n")) return false;
    }
    return true;
  }
  static bool send_all(int fd, const std::string &data) {
    for (size_t sent = 0; sent < data.size();) {
      ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  Script script_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

ClientOptions fast_options(double timeout_s = 5) {
  ClientOptions o;
  o.timeout_s = timeout_s;
  return o;
}

// What a canopyd holding a 2-host fabric would answer.
std::optional<std::string> small_service(const std::string &line) {
  if (line == "matrix all a b") return "matrix all 2 0 2 2 0 8 8 8 8 0 65.736 65.736 0";
  if (starts_with(line, "matrix all")) return "ERR unknown host 'zz'";
  if (line == "json on") return R"({"ok": true, "snapshot": 1, "json": true})";
  if (line == "json off") return "ok json off";
  if (line == "info") return "info version=0.1.0 protocol=1 snapshot=1 source=dump:/x state=fresh";
  return "ERR unknown request '" + line + "' (try help)";
}

}  // namespace

TEST(ServiceClient, PipelinedAnswersComeBackInOrder) {
  ScriptedServer server([](const std::string &line) { return std::optional<std::string>("echo " + line + "\r"); });
  ServiceClient client(server.address(), fast_options());
  std::vector<std::string> requests;
  for (int i = 0; i < 20000; ++i) requests.push_back("request number " + std::to_string(i));
  std::vector<std::string> answers = client.exchange(requests);
  ASSERT_EQ(answers.size(), requests.size());
  for (size_t i = 0; i < answers.size(); ++i) ASSERT_EQ(answers[i], "echo " + requests[i]);
  EXPECT_EQ(client.exchange("again"), "echo again");
}

TEST(ServiceClient, TypedHelpersAndErrAnswers) {
  ScriptedServer server(small_service);
  ServiceClient client(server.address(), fast_options());
  topo::HostMatrices m = client.matrices({"a", "b"});
  EXPECT_EQ(m.hops, (std::vector<int>{0, 2, 2, 0}));
  EXPECT_EQ(m.delay_us[1], 65.736);
  EXPECT_EQ(status_of([&] { client.matrices({"a", "zz"}); }), CANOPY_ERR_NOT_FOUND);
  EXPECT_EQ(message_of([&] { client.matrices({"a", "zz"}); }), server.address() + ": unknown host 'zz'");
  EXPECT_EQ(client.info().at(3).second, "dump:/x");  // an ERR answer leaves the connection usable
  EXPECT_EQ(status_of([&] { client.route("a", "b"); }), CANOPY_ERR_INVALID_ARG);  // json on, then ERR
  EXPECT_EQ(client.matrices({}).n, 0);
}

TEST(ServiceClient, UnexpectedJsonOnAnswerIsAParseError) {
  ScriptedServer server([](const std::string &) { return std::optional<std::string>("ok json on"); });
  ServiceClient client(server.address(), fast_options());
  EXPECT_EQ(status_of([&] { client.set_json(true); }), CANOPY_ERR_PARSE);
}

TEST(ServiceClient, MatrixRequestBlocksCoverEveryCell) {
  EXPECT_EQ(matrix_request_blocks(3, 4), (std::vector<std::vector<int>>{{0, 1, 2}}));
  EXPECT_EQ(matrix_request_blocks(5, 4), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {0, 1, 4}, {2, 3, 4}}));
  for (int n : {1, 2, 7, 64, 257, 1000}) {
    for (int max_hosts : {2, 3, 10, 256}) {
      std::vector<char> covered(static_cast<size_t>(n) * n, 0);
      for (const auto &block : matrix_request_blocks(n, max_hosts)) {
        ASSERT_LE(static_cast<int>(block.size()), max_hosts);
        for (int i : block)
          for (int j : block) covered[static_cast<size_t>(i) * n + j] = 1;
      }
      EXPECT_EQ(std::count(covered.begin(), covered.end(), 0), 0) << n << " hosts, " << max_hosts;
    }
  }
}

namespace {
// A service with hosts h0, h1, ... whose matrices encode the pair, refusing
// matrices of more than 6 hosts the way canopyd does.
std::optional<std::string> blockwise_service(const std::string &line) {
  std::vector<std::string_view> fields = split_fields(line);
  if (fields.size() < 2 || fields[0] != "matrix" || fields[1] != "all") return "ERR unknown request";
  std::vector<int> ids;
  for (size_t f = 2; f < fields.size(); ++f) {
    if (fields[f][0] != 'h') return "ERR unknown host '" + std::string(fields[f]) + "'";
    ids.push_back(std::stoi(std::string(fields[f].substr(1))));
  }
  if (ids.size() > 6) return "ERR matrix of more than 6 hosts (service_max_matrix_hosts)";
  std::string hops, gbps, delay;
  for (int i : ids)
    for (int j : ids) {
      hops += " " + std::to_string(std::abs(i - j));
      gbps += " " + std::to_string(100 + i * 100 + j);
      delay += " " + std::to_string(i) + ".00" + std::to_string(j);
    }
  return "matrix all " + std::to_string(ids.size()) + hops + gbps + delay;
}
}  // namespace

TEST(ServiceClient, LongHostListsAreAskedInBlocksThatTheServerTakes) {
  ScriptedServer server(blockwise_service);
  ClientOptions options = fast_options();
  options.matrix_hosts = 8;  // more than the server takes: it must say so, then blocks of 3
  ServiceClient client(server.address(), options);
  const int n = 20;
  std::vector<std::string> hosts;
  for (int i = 0; i < n; ++i) hosts.push_back("h" + std::to_string((i * 7) % n));  // a shuffled order
  topo::HostMatrices m = client.matrices(hosts);
  ASSERT_EQ(m.n, n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      int i = (a * 7) % n, j = (b * 7) % n;
      size_t k = static_cast<size_t>(a) * n + b;
      ASSERT_EQ(m.hops[k], std::abs(i - j));
      ASSERT_EQ(m.gbps[k], 100 + i * 100 + j);
      ASSERT_EQ(m.delay_us[k], std::stod(std::to_string(i) + ".00" + std::to_string(j)));
    }
  hosts[13] = "nosuch";
  EXPECT_EQ(message_of([&] { client.matrices(hosts); }), server.address() + ": unknown host 'nosuch'");
  EXPECT_EQ(client.matrices({"h1", "h2"}).hops[1], 1);  // still in step after the errors
}

TEST(ServiceClient, BadRequestsAreRefusedBeforeSending) {
  ScriptedServer server(small_service);
  ServiceClient client(server.address(), fast_options());
  EXPECT_EQ(status_of([&] { client.exchange("info\nquit"); }), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status_of([&] { client.matrices({"a", "b c"}); }), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status_of([&] { client.matrices({"a", ""}); }), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(client.matrices({"a", "b"}).n, 2);
}

TEST(ServiceClient, SilentServerTimesOut) {
  ScriptedServer server([](const std::string &) { return std::optional<std::string>(); });
  ServiceClient client(server.address(), fast_options(0.3));
  auto start = std::chrono::steady_clock::now();
  std::string message = message_of([&] { client.exchange("info"); });
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(message, "no answer from " + server.address() + " within 0.3 s (service_client_timeout_s)");
  EXPECT_GE(waited, 0.29);
  EXPECT_LT(waited, 3.0);
  EXPECT_NE(message_of([&] { client.exchange("info"); }).find("closed after an earlier failure"), std::string::npos);
}

TEST(ServiceClient, OverlongAnswerIsRefused) {
  ScriptedServer server([](const std::string &) { return std::optional<std::string>(std::string(100000, 'x')); });
  ClientOptions options = fast_options();
  options.max_answer_bytes = 4096;
  ServiceClient client(server.address(), options);
  std::string message = message_of([&] { client.exchange("info"); });
  EXPECT_NE(message.find("answer longer than 4096 bytes"), std::string::npos) << message;
}

TEST(ServiceClient, ServerClosingMidBatchIsAnIoError) {
  ScriptedServer server([](const std::string &line) {
    return std::optional<std::string>(line == "quit" ? "<close>" : "ok");
  });
  ServiceClient client(server.address(), fast_options());
  EXPECT_EQ(status_of([&] { client.exchange(std::vector<std::string>{"a", "quit", "b"}); }), CANOPY_ERR_IO);
}

TEST(ServiceClient, MalformedMatrixAnswerNamesTheServer) {
  ScriptedServer server([](const std::string &) { return std::optional<std::string>("matrix all 2 0 1 1 0"); });
  ServiceClient client(server.address(), fast_options());
  std::string message = message_of([&] { client.matrices({"a", "b"}); });
  EXPECT_EQ(message.rfind(server.address() + ": matrix answer: truncated", 0), 0u) << message;
}

TEST(ServiceClient, ConnectionRefused) {
  int port;
  {
    ScriptedServer closed([](const std::string &) { return std::nullopt; });
    port = std::stoi(closed.address().substr(10));
  }
  std::string address = "127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(message_of([&] { ServiceClient client(address, fast_options()); }),
            "cannot connect to " + address + ": Connection refused");
  EXPECT_EQ(status_of([&] { ServiceClient client("[::1]:" + std::to_string(port), fast_options()); }), CANOPY_ERR_IO);
  EXPECT_EQ(status_of([&] { ServiceClient client("no-such-host.invalid:7470", fast_options()); }), CANOPY_ERR_IO);
}

TEST(ServiceCapi, MatricesFromTheService) {
  ScriptedServer server(small_service);
  std::string address = server.address();
  const char *hosts[] = {"a", "b"};
  int hops[4] = {9, 9, 9, 9};
  double delay[4];
  ASSERT_EQ(canopy_service_matrices(address.c_str(), hosts, 2, hops, nullptr, delay), CANOPY_SUCCESS)
      << canopy_last_error();
  EXPECT_EQ(hops[1], 2);
  EXPECT_EQ(delay[2], 65.736);
}

TEST(ServiceCapi, ArgumentsAndMissingServer) {
  const char *hosts[] = {"a", nullptr};
  unsetenv("CANOPY_TOPO_SERVER");
  EXPECT_EQ(canopy_service_matrices(nullptr, hosts, 1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  EXPECT_NE(std::string(canopy_last_error()).find("CANOPY_TOPO_SERVER"), std::string::npos);
  EXPECT_EQ(canopy_service_matrices("", hosts, 1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(canopy_service_matrices("h:1", hosts, 2, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(canopy_service_matrices("h:1", nullptr, 1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(canopy_service_matrices("h:1", hosts, -1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(canopy_service_matrices("not an address", hosts, 1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  setenv("CANOPY_SERVICE_CLIENT_TIMEOUT_S", "-1", 1);
  EXPECT_EQ(canopy_service_matrices("h:1", hosts, 1, nullptr, nullptr, nullptr), CANOPY_ERR_INVALID_ARG);
  unsetenv("CANOPY_SERVICE_CLIENT_TIMEOUT_S");
}

TEST(ServiceCapi, ServerFromTheEnvironmentAndOutputsUntouchedOnFailure) {
  ScriptedServer server(small_service);
  setenv("CANOPY_TOPO_SERVER", server.address().c_str(), 1);
  const char *hosts[] = {"a", "zz"};
  int hops[4] = {7, 7, 7, 7};
  EXPECT_EQ(canopy_service_matrices(nullptr, hosts, 2, hops, nullptr, nullptr), CANOPY_ERR_NOT_FOUND);
  unsetenv("CANOPY_TOPO_SERVER");
  EXPECT_EQ(hops[0], 7);
  EXPECT_NE(std::string(canopy_last_error()).find("unknown host 'zz'"), std::string::npos);
}
