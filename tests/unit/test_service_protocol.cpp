// The canopyd protocol (docs/protocol.md) as a pure function, on the recorded
// two-switch fabric (routes H1 -> H4 go S1 port 5 -> S2): every verb in text
// and JSON, and every error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "fabric_builder.h"
#include "loader_test_util.h"
#include "service/protocol.h"
#include "topo/routes.h"
#include "topo/source.h"
#include "topo/views.h"

using namespace canopy;
using namespace canopy::service;
using nlohmann::json;

namespace {

class ServiceProtocol : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store_ = new SnapshotStore;
    store_->publish(topo::load_topology(test::data_path("cli/two-switch-dump")));
    store_->publish(topo::load_topology(test::data_path("cli/two-switch-dump")));  // generation 2
  }
  static void TearDownTestSuite() {
    delete store_;
    store_ = nullptr;
  }

  const topo::Topology &topo() const { return store_->snapshot()->topology; }

  /** The answer to @p line, which must be exactly one line; its '\n' removed. */
  std::string ask(std::string_view line) {
    std::shared_ptr<const Snapshot> snapshot = loaded_ ? store_->snapshot() : nullptr;
    AnswerContext context{snapshot.get(), &freshness_, max_matrix_hosts_};
    std::string out = "previous answers stay\n";
    answer_request(line, context, session_, out);
    EXPECT_EQ(out.rfind("previous answers stay\n", 0), 0u);
    out.erase(0, 22);
    EXPECT_FALSE(out.empty());
    EXPECT_EQ(out.back(), '\n');
    EXPECT_EQ(out.find('\n'), out.size() - 1) << out;
    out.pop_back();
    return out;
  }

  json ask_json(std::string_view line) {
    session_.json = true;
    std::string answer = ask(line);
    json parsed = json::parse(answer, nullptr, false);
    EXPECT_TRUE(parsed.is_object()) << answer;
    return parsed;
  }

  static SnapshotStore *store_;
  Session session_;
  Freshness freshness_;
  bool loaded_ = true;
  long long max_matrix_hosts_ = 256;
};

SnapshotStore *ServiceProtocol::store_ = nullptr;

TEST_F(ServiceProtocol, QueryGivesHostsAndSwitchGuidsInPathOrder) {
  EXPECT_EQ(ask("query H1:H4"), "H1 0x0000000000200000 0x0000000000200001 H4");
  EXPECT_EQ(ask("query H1:H2"), "H1 0x0000000000200000 H2");
  EXPECT_EQ(ask("query H3:H3"), "H3");
  // Port GUID of H1, node GUID of H4, tabs, several spaces, CRLF.
  EXPECT_EQ(ask(" \tquery   0x0000000000100001:0x0000000000100009\r"), "H1 0x0000000000200000 0x0000000000200001 H4");
  json j = ask_json("query H1:H4");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["snapshot"], 2);
  EXPECT_EQ(j["path"], json({"H1", "0x0000000000200000", "0x0000000000200001", "H4"}));
}

TEST_F(ServiceProtocol, RouteTextAndJson) {
  EXPECT_EQ(ask("route H1 H4"),
            "route lft 3 8 H1,0x0000000000100000,0,1,8 S1,0x0000000000200000,1,5,8 "
            "S2,0x0000000000200001,5,2,8 H4,0x0000000000100009,1,0,0");
  EXPECT_EQ(ask("route H2 H2"), "route lft 0 8 H2,0x0000000000100003,0,0,0");
  json j = ask_json("route H1 H4");
  json expected = topo::route_json(topo(), topo::find_route(topo(), topo().find_host("H1"), topo().find_host("H4")));
  expected["ok"] = true;
  expected["snapshot"] = 2;
  EXPECT_EQ(j, expected);
  EXPECT_EQ(j["path"][1]["out_port"], 5);
}

TEST_F(ServiceProtocol, HopsAndRate) {
  EXPECT_EQ(ask("hops H1 H4"), "hops 3");
  EXPECT_EQ(ask("hops H1 H2"), "hops 2");
  EXPECT_EQ(ask("hops H4 H4"), "hops 0");
  EXPECT_EQ(ask("rate H3"), "rate 4xSDR 8");
  EXPECT_EQ(ask_json("hops H1 H4"), json({{"ok", true}, {"snapshot", 2}, {"hops", 3}}));
  EXPECT_EQ(ask_json("rate H3"), json({{"ok", true}, {"snapshot", 2}, {"rate", "4xSDR"}, {"gbps", 8.0}}));
}

TEST_F(ServiceProtocol, MatricesEqualTheModel) {
  EXPECT_EQ(ask("matrix hops H3 H1 H2 H4"), "matrix hops 4 0 3 3 2 3 0 2 3 3 2 0 3 2 3 3 0");
  EXPECT_EQ(ask("matrix gbps H1 H4"), "matrix gbps 2 8 8 8 8");
  std::vector<int> hosts = {topo().find_host("H1"), topo().find_host("H4")};
  topo::HostMatrices m = topo::host_matrices(topo(), hosts);
  json j = ask_json("matrix delay H1 H4");
  EXPECT_EQ(j["kind"], "delay");
  EXPECT_EQ(j["hosts"], json({"H1", "H4"}));
  EXPECT_EQ(j["delay_us"], topo::matrix_rows(m.delay_us, 2));
  EXPECT_FALSE(j.contains("hops"));
  j = ask_json("matrix all H1 H4");
  EXPECT_EQ(j["hops"], topo::matrix_rows(m.hops, 2));
  EXPECT_EQ(j["gbps"], topo::matrix_rows(m.gbps, 2));
  EXPECT_EQ(j["delay_us"], topo::matrix_rows(m.delay_us, 2));
  // Text `all`: hops, then rates, then delays, each row-major; numbers in their shortest exact form.
  session_.json = false;
  std::vector<std::string> fields;
  std::string text = ask("matrix all H1 H4");
  for (std::string_view f : split_fields(text)) fields.emplace_back(f);
  ASSERT_EQ(fields.size(), 3u + 12u);
  EXPECT_EQ(fields[2], "2");
  EXPECT_EQ(fields[4], "3");
  EXPECT_EQ(fields[8], "8");
  EXPECT_DOUBLE_EQ(std::stod(fields[12]), m.delay_us[1]);
}

TEST_F(ServiceProtocol, HostsInfoHelp) {
  std::string hosts = "hosts 4";
  for (int h : topo().hosts()) hosts += " " + topo().node(h).name;
  EXPECT_EQ(ask("hosts"), hosts);
  std::string info = ask("info");
  EXPECT_EQ(info.rfind("info version=" CANOPY_VERSION_STRING " protocol=1 snapshot=2 source=dump:", 0), 0u) << info;
  EXPECT_NE(info.find(" hosts=4 switches=2 routes=lft loaded=20"), std::string::npos) << info;
  EXPECT_EQ(info.substr(info.size() - 12), " state=fresh");
  EXPECT_EQ(ask("help"), "help query route hops rate matrix hosts info json quit");
  json j = ask_json("info");
  EXPECT_EQ(j["protocol"], 1);
  EXPECT_EQ(j["hosts"], 4);
  EXPECT_EQ(j["state"], "fresh");
  EXPECT_FALSE(j.contains("reason"));
  EXPECT_EQ(ask_json("hosts")["hosts"].size(), 4u);
  EXPECT_EQ(ask_json("help")["help"].size(), 9u);
}

TEST_F(ServiceProtocol, InfoReportsAStaleSnapshotWithItsReason) {
  freshness_ = {true, "d/manifest.json:11: the collector saw 3 \"switches\"\nbut"};
  std::string info = ask("info");
  EXPECT_NE(info.find(" state=stale reason=\"d/manifest.json:11: the collector saw 3 'switches'?but\""),
            std::string::npos) << info;
  json j = ask_json("info");
  EXPECT_EQ(j["state"], "stale");
  EXPECT_EQ(j["reason"], freshness_.reason);
}

TEST_F(ServiceProtocol, JsonModeAndQuit) {
  EXPECT_EQ(ask("json on"), R"({"ok":true,"snapshot":2,"json":true})");
  EXPECT_TRUE(session_.json);
  EXPECT_EQ(ask("json off"), "ok json off");
  EXPECT_FALSE(session_.json);
  EXPECT_EQ(ask("json maybe"), "ERR usage: json on|off");
  EXPECT_FALSE(session_.quit);
  EXPECT_EQ(ask("quit"), "bye");
  EXPECT_TRUE(session_.quit);
  Session other;
  other.json = true;
  std::string out;
  answer_request("quit", {nullptr, nullptr, 1}, other, out);
  EXPECT_EQ(out, "{\"ok\":true,\"snapshot\":0,\"bye\":true}\n");
}

TEST_F(ServiceProtocol, RequestErrors) {
  EXPECT_EQ(ask("bogus H1"), "ERR unknown request 'bogus' (try help)");
  EXPECT_EQ(ask("QUERY H1:H4"), "ERR unknown request 'QUERY' (try help)");
  EXPECT_EQ(ask(""), "ERR empty request (try help)");
  EXPECT_EQ(ask(" \t \r"), "ERR empty request (try help)");
  EXPECT_EQ(ask(std::string("query H1:\0H4", 12)), "ERR request is not text");
  EXPECT_EQ(ask("query H1:H4\x01"), "ERR request is not text");
  EXPECT_EQ(ask("\x7f"), "ERR request is not text");
  EXPECT_EQ(ask("query H1:nowhere"), "ERR unknown host 'nowhere'");
  EXPECT_EQ(ask("hops H9 H1"), "ERR unknown host 'H9'");
  EXPECT_EQ(ask("query " + std::string(100, 'x') + ":H1"), "ERR unknown host '" + std::string(40, 'x') + "...'");
  EXPECT_EQ(ask("query h\xc3\xa9:H1"), "ERR unknown host 'h\?\?'");
  EXPECT_EQ(ask("matrix sideways H1 H2"), "ERR usage: matrix hops|gbps|delay|all HOST...");
  max_matrix_hosts_ = 3;
  EXPECT_EQ(ask("matrix hops H1 H2 H3 H4"), "ERR matrix of more than 3 hosts (service_max_matrix_hosts)");
  EXPECT_EQ(ask("matrix hops H1 H2 H3").rfind("matrix hops 3 ", 0), 0u);
  json j = ask_json("route H1 nowhere");
  EXPECT_EQ(j, json({{"ok", false}, {"error", "unknown host 'nowhere'"}, {"snapshot", 2}}));
  EXPECT_EQ(ask_json("")["error"], "empty request (try help)");
}

TEST_F(ServiceProtocol, WrongNumberOfArguments) {
  const std::pair<const char *, const char *> cases[] = {
      {"query", "query HOST_A:HOST_B"}, {"query H1 H4", "query HOST_A:HOST_B"}, {"query H1H4", "query HOST_A:HOST_B"},
      {"route H1", "route HOST_A HOST_B"}, {"route H1 H2 H3", "route HOST_A HOST_B"}, {"hops", "hops HOST_A HOST_B"},
      {"rate", "rate HOST"}, {"rate H1 H2", "rate HOST"}, {"matrix", "matrix hops|gbps|delay|all HOST..."},
      {"matrix hops", "matrix hops|gbps|delay|all HOST..."}, {"hosts H1", "hosts"}, {"info now", "info"},
      {"help me", "help"}, {"json", "json on|off"}, {"json on off", "json on|off"}, {"quit now", "quit"},
  };
  for (const auto &[request, usage] : cases) EXPECT_EQ(ask(request), std::string("ERR usage: ") + usage) << request;
  EXPECT_FALSE(session_.quit);
}

TEST_F(ServiceProtocol, NothingLoadedYet) {
  loaded_ = false;
  for (const char *request : {"query H1:H4", "route H1 H4", "hops H1 H4", "rate H1", "matrix hops H1", "hosts", "info"})
    EXPECT_EQ(ask(request), "ERR no topology loaded yet") << request;
  EXPECT_EQ(ask("bogus"), "ERR unknown request 'bogus' (try help)");
  EXPECT_EQ(ask("route H1"), "ERR usage: route HOST_A HOST_B");
  EXPECT_EQ(ask("help"), "help query route hops rate matrix hosts info json quit");
  EXPECT_EQ(ask_json("hosts"), json({{"ok", false}, {"error", "no topology loaded yet"}}));
}

TEST(ServiceProtocolFabric, ForwardingHoleIsAnErrorAnswer) {
  test::TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.spine_b, f.h3, topo::Topology::kNoPort);
  f.topo.finalize();
  SnapshotStore store;
  std::shared_ptr<const Snapshot> snapshot = store.publish(std::move(f.topo));
  Session session;
  std::string out;
  AnswerContext context{snapshot.get(), nullptr, 256};
  answer_request("query h1:h3", context, session, out);
  answer_request("matrix hops h1 h3", context, session, out);
  answer_request("query h1:h4", context, session, out);
  std::vector<std::string_view> lines = split(out, '\n');
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("ERR forwarding hole: switch spineB (", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("has no entry for LID"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("ERR forwarding hole", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("h1 0x", 0), 0u) << lines[2];
}

TEST(ServiceProtocolFabric, JsonEscapesNamesAndCopesWithBadUtf8) {
  test::FabricBuilder b;
  int sw = b.add_switch("leaf");
  int odd = b.add_host("we\"ird\\name", sw, 1);
  int bad = b.add_host("caf\xe9", sw, 2);
  b.topo.finalize();
  SnapshotStore store;
  std::shared_ptr<const Snapshot> snapshot = store.publish(std::move(b.topo));
  Session session;
  session.json = true;
  std::string out;
  AnswerContext context{snapshot.get(), nullptr, 256};
  answer_request(std::string("query we\"ird\\name:caf\xe9"), context, session, out);
  answer_request("hosts", context, session, out);
  answer_request("route caf\xe9 caf\xe9", context, session, out);
  std::vector<std::string_view> lines = split(out, '\n');
  ASSERT_EQ(lines.size(), 4u) << out;
  json query = json::parse(lines[0]);
  EXPECT_EQ(query["path"][0], snapshot->topology.node(odd).name);
  EXPECT_EQ(query["path"][2], "caf\xef\xbf\xbd");  // U+FFFD for the byte that is not UTF-8
  EXPECT_EQ(json::parse(lines[1])["hosts"].size(), 2u);
  EXPECT_EQ(json::parse(lines[2])["links"], 0);
  (void)bad;
}

TEST(ServiceProtocolFabric, ServerErrorsInBothFormats) {
  Session session;
  std::string out;
  answer_error("line too long (limit 64 bytes)", session, out);
  session.json = true;
  answer_error("too many clients (limit 1)", session, out);
  EXPECT_EQ(out, "ERR line too long (limit 64 bytes)\n{\"error\":\"too many clients (limit 1)\",\"ok\":false}\n");
}

TEST(ServiceSnapshotStore, PublishesGenerationsAndFreshness) {
  SnapshotStore store;
  EXPECT_EQ(store.snapshot(), nullptr);
  EXPECT_FALSE(store.freshness()->stale);
  std::shared_ptr<const Snapshot> first = store.publish(test::TwoLevelFatTree().topo);
  EXPECT_EQ(first->generation, 1u);
  store.mark_stale("broken dump");
  EXPECT_EQ(store.snapshot(), first);
  EXPECT_TRUE(store.freshness()->stale);
  EXPECT_EQ(store.freshness()->reason, "broken dump");
  std::shared_ptr<const Snapshot> second = store.publish(test::TwoLevelFatTree().topo);
  EXPECT_EQ(second->generation, 2u);
  EXPECT_FALSE(store.freshness()->stale);
  EXPECT_EQ(first->topology.hosts().size(), 4u);  // readers keep the old one alive
}

}  // namespace
