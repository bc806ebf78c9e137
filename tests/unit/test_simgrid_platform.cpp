// The SimGrid platform export, read back with a small tag scanner: every host and
// switch present, every link at the model's rate, every route equal to
// find_route (forwarding tables hop by hop, per direction), errors leave no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "fabric_builder.h"
#include "loader_test_util.h"
#include "temp_dir.h"
#include "topo/loaders/loaders.h"
#include "topo/routes.h"
#include "topo/simgrid_platform.h"
#include "topo/source.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::TwoLevelFatTree;

namespace {

using Hops = std::vector<std::pair<std::string, std::string>>;  // (link id, UP|DOWN)

struct Platform {
  std::map<std::string, std::map<std::string, std::string>> hosts, links;
  std::vector<std::string> routers;
  std::map<std::pair<std::string, std::string>, Hops> routes;  // both directions of symmetrical ones
};

std::map<std::string, std::string> attributes(const std::string &text) {
  std::map<std::string, std::string> out;
  static const std::regex attr(R"re((\w+)="([^"]*)")re");
  for (std::sregex_iterator it(text.begin(), text.end(), attr), end; it != end; ++it) out[(*it)[1]] = (*it)[2];
  return out;
}

// Our own output is regular (one element per line), so a tag scanner is enough;
// the CLI test parses it with a real XML parser.
Platform parse(const std::string &xml) {
  Platform p;
  static const std::regex tag(R"re(<(host|router|link|route|link_ctn)\s([^>]*)>)re");
  Hops *current = nullptr;
  std::pair<std::string, std::string> pair;
  bool symmetrical = false;
  auto close_route = [&] {
    if (!current || !symmetrical) return;
    Hops back;
    for (auto it = current->rbegin(); it != current->rend(); ++it)
      back.emplace_back(it->first, it->second == "UP" ? "DOWN" : "UP");
    EXPECT_TRUE(p.routes.emplace(std::make_pair(pair.second, pair.first), back).second) << "duplicate route";
  };
  for (std::sregex_iterator it(xml.begin(), xml.end(), tag), end; it != end; ++it) {
    std::string kind = (*it)[1];
    auto a = attributes((*it)[2]);
    if (kind == "host") p.hosts[a["id"]] = a;
    if (kind == "router") p.routers.push_back(a["id"]);
    if (kind == "link") p.links[a["id"]] = a;
    if (kind == "route") {
      close_route();
      pair = {a["src"], a["dst"]};
      symmetrical = a["symmetrical"] == "YES";
      auto [slot, fresh] = p.routes.emplace(pair, Hops{});
      EXPECT_TRUE(fresh) << "duplicate route " << pair.first << " -> " << pair.second;
      current = &slot->second;
    }
    if (kind == "link_ctn") current->emplace_back(a["id"], a["direction"]);
  }
  close_route();
  return p;
}

// What the route must be: each hop's egress cable, UP when leaving from its a end.
Hops expected(const Topology &topo, int a, int b) {
  Hops hops;
  Route route = find_route(topo, a, b);
  for (size_t i = 0; i + 1 < route.hops.size(); ++i) {
    const RouteHop &hop = route.hops[i];
    for (size_t l = 0; l < topo.links().size(); ++l) {
      const Link &link = topo.links()[l];
      if (link.node_a == hop.node && link.port_a == hop.out_port) hops.emplace_back("l" + std::to_string(l), "UP");
      if (link.node_b == hop.node && link.port_b == hop.out_port) hops.emplace_back("l" + std::to_string(l), "DOWN");
    }
  }
  return hops;
}

double gbps(const std::string &bandwidth) {
  EXPECT_EQ(bandwidth.substr(bandwidth.size() - 4), "Gbps");
  return std::stod(bandwidth);
}

// Every host, router and link, and every ordered host pair's route.
void expect_faithful(const Topology &topo, const Platform &p) {
  EXPECT_EQ(p.hosts.size(), topo.hosts().size());
  for (int h : topo.hosts()) EXPECT_TRUE(p.hosts.count(simgrid_host_id(topo, h))) << topo.node(h).name;
  EXPECT_EQ(p.routers.size(), topo.switches().size());
  ASSERT_EQ(p.links.size(), topo.links().size());
  for (size_t l = 0; l < topo.links().size(); ++l) {
    auto &link = p.links.at("l" + std::to_string(l));
    EXPECT_DOUBLE_EQ(gbps(link.at("bandwidth")), topo.links()[l].rate.gbps);
    EXPECT_EQ(link.at("sharing_policy"), "SPLITDUPLEX");
  }
  EXPECT_EQ(p.routes.size(), topo.hosts().size() * (topo.hosts().size() - 1));
  for (int a : topo.hosts())
    for (int b : topo.hosts()) {
      if (a == b) continue;
      auto it = p.routes.find({simgrid_host_id(topo, a), simgrid_host_id(topo, b)});
      ASSERT_NE(it, p.routes.end()) << topo.node(a).name << " -> " << topo.node(b).name;
      EXPECT_EQ(it->second, expected(topo, a, b)) << topo.node(a).name << " -> " << topo.node(b).name;
    }
}

}  // namespace

TEST(SimgridPlatform, ShortestPathFabricWithMixedRates) {
  TwoLevelFatTree f;
  f.link(f.leaf1, 5, f.spine_a, 3, ib_rate(4, LinkSpeed::DDR));  // a second, slower cable
  f.topo.finalize();
  SimgridOptions options;
  options.link_latency_us = 0.25;
  options.host_speed_gflops = 2.5;
  options.host_cores = 16;
  std::string xml = simgrid_platform_xml(f.topo, options);
  Platform p = parse(xml);
  expect_faithful(f.topo, p);
  EXPECT_EQ(p.hosts.at("h1").at("speed"), "2.5Gf");
  EXPECT_EQ(p.hosts.at("h1").at("core"), "16");
  EXPECT_EQ(p.links.at("l0").at("latency"), "0.25us");
  EXPECT_DOUBLE_EQ(gbps(p.links.at("l8").at("bandwidth")), 16.0);  // 4xDDR
  EXPECT_NE(xml.find("<zone id=\"fabric\" routing=\"Full\">"), std::string::npos);
  EXPECT_EQ(xml.find("--"), std::string::npos);  // nothing a strict XML parser rejects in comments
}

TEST(SimgridPlatform, ForwardingTablesAreFollowedPerDirection) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  Platform p = parse(simgrid_platform_xml(f.topo, {}));
  expect_faithful(f.topo, p);
  // h1 -> h3 climbs leaf1 -> spineB (leaf1 port 4 is the a end: UP) and descends to leaf2 (DOWN).
  const Hops &up = p.routes.at({"h1", "h3"});
  ASSERT_EQ(up.size(), 4u);
  EXPECT_EQ(up[1].second, "UP");
  EXPECT_EQ(up[2].second, "DOWN");
}

TEST(SimgridPlatform, RecordedIbsimFabricWithRealForwardingTables) {
  Topology topo = load_topology(test::data_path("cli/two-switch-dump"));
  ASSERT_TRUE(topo.has_forwarding_tables());
  std::string xml = simgrid_platform_xml(topo, {});
  EXPECT_NE(xml.find("<prop id=\"canopy_routes\" value=\"lft\"/>"), std::string::npos);
  expect_faithful(topo, parse(xml));
}

TEST(SimgridPlatform, TorusRoutesAreDimensionOrder) {
  Topology topo = load_torus(test::read_data("torus/mixed3d.torus"), "mixed3d.torus");
  expect_faithful(topo, parse(simgrid_platform_xml(topo, {})));
}

// Written to a file the platform goes out in chunks (4 MiB); it must be the very
// text simgrid_platform_xml returns, and a long export tells its progress.
TEST(SimgridPlatform, StreamedFileIsTheSameTextAndTellsItsProgress) {
  std::string torus = "dims 6 6 6\n";
  for (int i = 0; i < 216; ++i)
    torus += "host t" + std::to_string(i) + " " + std::to_string(i % 6) + " " + std::to_string(i / 6 % 6) + " " +
             std::to_string(i / 36) + "\n";
  Topology topo = load_torus(torus, "6x6x6.torus");
  std::string xml = simgrid_platform_xml(topo, {});
  ASSERT_GT(xml.size(), size_t{8} << 20) << "several chunks";
  SimgridOptions options;
  std::vector<std::string> stages;
  options.progress = [&](const std::string &stage) { stages.push_back(stage); };
  test::TempDir dir;
  write_simgrid_platform(topo, options, dir / "torus.xml");
  EXPECT_TRUE(read_file(dir / "torus.xml") == xml);
  ASSERT_EQ(stages.size(), 12u);  // the routes, then hosts 1, 22, 43, ..., 211 (a tenth of 216 apart)
  EXPECT_EQ(stages[0], "routes between the 216 hosts");
  EXPECT_EQ(stages[1], "writing the routes from host 1 of 216");
  EXPECT_EQ(stages[11], "writing the routes from host 211 of 216");
}

TEST(SimgridPlatform, SharedHostNamesGetTheirGuid) {
  test::FabricBuilder b;
  int sw = b.add_switch("sw");
  int first = b.add_host("node1", sw, 1), second = b.add_host("node1", sw, 2);
  b.topo.node(second).description = "node1 HCA-2";  // a node's two HCAs: the same name
  b.topo.finalize();
  EXPECT_EQ(simgrid_host_id(b.topo, first), "node1");
  EXPECT_EQ(simgrid_host_id(b.topo, second), "node1@" + guid_string(b.topo.node(second).guid));
  expect_faithful(b.topo, parse(simgrid_platform_xml(b.topo, {})));
}

TEST(SimgridPlatform, ForwardingHoleIsAnErrorAndLeavesNoFile) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.spine_b, f.h3, Topology::kNoPort);  // hole on the way to h3
  f.topo.finalize();
  test::TempDir dir;
  try {
    write_simgrid_platform(f.topo, {}, dir / "fabric.xml");
    FAIL() << "a hole must fail the export";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), CANOPY_ERR_ROUTE);
    EXPECT_NE(std::string(e.what()).find("hole"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(SimgridPlatform, BadOptionsAndUnknownRates) {
  TwoLevelFatTree f;
  SimgridOptions bad;
  bad.host_cores = 0;
  EXPECT_THROW(simgrid_platform_xml(f.topo, bad), Error);
  bad = {};
  bad.host_speed_gflops = 0;
  EXPECT_THROW(simgrid_platform_xml(f.topo, bad), Error);
  bad = {};
  bad.link_latency_us = -1;
  EXPECT_THROW(simgrid_platform_xml(f.topo, bad), Error);
  // "inf" parses as a number, but SimGrid would wait forever on an infinite latency.
  bad = {};
  bad.link_latency_us = std::numeric_limits<double>::infinity();
  EXPECT_THROW(simgrid_platform_xml(f.topo, bad), Error);
  bad = {};
  bad.host_speed_gflops = std::numeric_limits<double>::infinity();
  EXPECT_THROW(simgrid_platform_xml(f.topo, bad), Error);
  test::FabricBuilder b;
  int sw = b.add_switch("sw");
  b.add_host("a", sw, 1, plain_rate(0));
  b.add_host("b", sw, 2);
  b.topo.finalize();
  try {
    simgrid_platform_xml(b.topo, {});
    FAIL() << "a link without a rate must fail";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no known rate"), std::string::npos) << e.what();
  }
}

// A job's platform holds the cables its routes cross, under their fabric ids, and
// the switches at their ends: on a large fabric it tracks the job, not the fabric.
TEST(SimgridPlatform, AllocationHoldsOnlyTheCablesItsRoutesCross) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  SimgridOptions o;
  o.hosts = {f.h3, f.h1};
  SimgridPlatformStats st;
  Platform p = parse(simgrid_platform_xml(f.topo, o, &st));
  std::set<std::string> crossed;
  for (auto [a, b] : {std::pair{f.h1, f.h3}, std::pair{f.h3, f.h1}}) {
    Hops route = expected(f.topo, a, b);
    EXPECT_EQ(p.routes.at({f.topo.node(a).name, f.topo.node(b).name}), route);
    for (const auto &hop : route) crossed.insert(hop.first);
  }
  EXPECT_EQ(crossed.size(), 4u);  // h1-leaf1, leaf1-spineB, spineB-leaf2, leaf2-h3
  std::set<std::string> links;
  for (const auto &link : p.links) links.insert(link.first);
  EXPECT_EQ(links, crossed);
  EXPECT_EQ(p.routers, (std::vector<std::string>{"leaf1", "leaf2", "spineB"}));
  EXPECT_EQ(st.links, 4u);
  EXPECT_EQ(st.routers, 3u);
  // Two hosts on one leaf: their own cables and the leaf.
  o.hosts = {f.h1, f.h2};
  p = parse(simgrid_platform_xml(f.topo, o, &st));
  EXPECT_EQ(p.links.size(), 2u);
  EXPECT_EQ(p.routers, std::vector<std::string>{"leaf1"});
  // A cable without a known rate fails only the platforms that export it.
  test::FabricBuilder b;
  int sw = b.add_switch("sw");
  int known = b.add_host("a", sw, 1), other = b.add_host("b", sw, 2);
  int unknown = b.add_host("c", sw, 3, plain_rate(0));
  b.topo.finalize();
  o.hosts = {known, other};
  EXPECT_EQ(parse(simgrid_platform_xml(b.topo, o)).links.size(), 2u);
  o.hosts = {known, unknown};
  EXPECT_THROW(simgrid_platform_xml(b.topo, o), Error);
}

namespace {

// zoneRoute src -> dst: its gateways and cables, both directions of symmetrical ones.
struct ZoneRoute {
  std::string gw_src, gw_dst;
  Hops hops;
};

std::map<std::pair<std::string, std::string>, ZoneRoute> zone_routes(const std::string &xml) {
  std::map<std::pair<std::string, std::string>, ZoneRoute> out;
  static const std::regex element(R"re(<zoneRoute\s([^>]*)>(.*?)</zoneRoute>)re");
  static const std::regex ctn(R"re(<link_ctn\s([^>]*)/>)re");
  for (std::sregex_iterator it(xml.begin(), xml.end(), element), end; it != end; ++it) {
    auto a = attributes((*it)[1]);
    std::string body = (*it)[2];
    ZoneRoute there{a["gw_src"], a["gw_dst"], {}}, back{a["gw_dst"], a["gw_src"], {}};
    for (std::sregex_iterator c(body.begin(), body.end(), ctn); c != end; ++c) {
      auto l = attributes((*c)[1]);
      there.hops.emplace_back(l["id"], l["direction"]);
    }
    for (auto h = there.hops.rbegin(); h != there.hops.rend(); ++h)
      back.hops.emplace_back(h->first, h->second == "UP" ? "DOWN" : "UP");
    EXPECT_TRUE(out.emplace(std::make_pair(a["src"], a["dst"]), there).second) << "duplicate zoneRoute";
    if (a["symmetrical"] == "YES") {
      EXPECT_TRUE(out.emplace(std::make_pair(a["dst"], a["src"]), back).second);
    }
  }
  return out;
}

// The route element between two ids inside a node zone, as written.
std::string node_route(const std::string &xml, const std::string &src, const std::string &dst) {
  size_t at = xml.find("<route src=\"" + src + "\" dst=\"" + dst + "\"");
  EXPECT_NE(at, std::string::npos) << src << " -> " << dst;
  return at == std::string::npos ? "" : xml.substr(at, xml.find("</route>", at) - at);
}

SimgridOptions two_sockets_of_two_cores(std::vector<int> hosts) {
  SimgridOptions o;
  o.hosts = std::move(hosts);
  o.node = SimgridNodeModel{};
  o.node->core_package = {0, 0, 1, 1};
  o.node->spec = "pack:2 core:2 pu:1";
  return o;
}

}  // namespace

TEST(SimgridPlatform, PerCoreZonesRouteBetweenNicsExactly) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  std::vector<int> job{f.h1, f.h3, f.h2};
  std::string xml = simgrid_platform_xml(f.topo, two_sockets_of_two_cores(job));
  Platform p = parse(xml);
  EXPECT_EQ(p.hosts.size(), 12u);
  for (int h : job)
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(p.hosts.count(simgrid_core_host_id(f.topo, h, c)));
  EXPECT_EQ(p.hosts.count("h4.c0"), 0u);  // not in the job
  auto routes = zone_routes(xml);
  EXPECT_EQ(routes.size(), 6u);
  for (int a : job)
    for (int b : job) {
      if (a == b) continue;
      const ZoneRoute &r = routes.at({simgrid_host_id(f.topo, a), simgrid_host_id(f.topo, b)});
      EXPECT_EQ(r.gw_src, simgrid_host_id(f.topo, a) + ".nic");
      EXPECT_EQ(r.gw_dst, simgrid_host_id(f.topo, b) + ".nic");
      EXPECT_EQ(r.hops, expected(f.topo, a, b)) << f.topo.node(a).name << " -> " << f.topo.node(b).name;
    }
  // Inside a node: one socket, across sockets, and to the NIC on package 0.
  EXPECT_NE(node_route(xml, "h1.c0", "h1.c1").find("h1.s0\"/><link_ctn id=\"h1.c1\" direction=\"DOWN\""),
            std::string::npos);
  std::string across = node_route(xml, "h1.c1", "h1.c2");
  EXPECT_NE(across.find("<link_ctn id=\"h1.s0-s1\" direction=\"UP\"/><link_ctn id=\"h1.s1\"/>"), std::string::npos)
      << across;
  std::string to_nic = node_route(xml, "h1.c3", "h1.nic");
  EXPECT_NE(to_nic.find("<link_ctn id=\"h1.s1\"/><link_ctn id=\"h1.s0-s1\" direction=\"DOWN\"/>"), std::string::npos)
      << to_nic;
  EXPECT_EQ(p.links.at("h1.c0").at("sharing_policy"), "SPLITDUPLEX");
  EXPECT_EQ(p.links.at("h1.s0").count("sharing_policy"), 0u);  // shared by both directions
}

TEST(SimgridPlatform, PerCoreModelAndAllocationErrors) {
  TwoLevelFatTree f;
  SimgridOptions o = two_sockets_of_two_cores({f.h1, f.h1});
  EXPECT_THROW(simgrid_platform_xml(f.topo, o), Error);  // listed twice
  o = two_sockets_of_two_cores({f.leaf1});
  EXPECT_THROW(simgrid_platform_xml(f.topo, o), Error);  // a switch
  o = two_sockets_of_two_cores({});
  o.node->core_package.clear();
  EXPECT_THROW(simgrid_platform_xml(f.topo, o), Error);
  o = two_sockets_of_two_cores({});
  o.node->socket_bandwidth_gbps = 0;
  EXPECT_THROW(simgrid_platform_xml(f.topo, o), Error);
}
