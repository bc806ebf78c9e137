// Pictures of a mapping: the communication matrix (order by slots, binning that
// keeps every byte, traffic in the diagonal host blocks after mapping), the
// exposed per-link loads, and the fabric drawing coloured by them.
#include <gtest/gtest.h>

#include <regex>

#include "common/error.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map/pictures.h"
#include "map_test_machines.h"
#include "topo/drawing.h"

namespace canopy::map {
namespace {

Problem problem_on(std::shared_ptr<const topo::Topology> topo, int hosts, int ppn, CommGraph graph) {
  std::vector<int> allocation = test::all_hosts(*topo);
  allocation.resize(static_cast<size_t>(hosts));
  return Problem{std::move(graph), Machine(std::move(topo), std::move(allocation), ppn)};
}

// Bytes inside the diagonal blocks: between processes of one host.
double diagonal_block_bytes(const CommMatrix &m) {
  double sum = 0;
  for (size_t h = 0; h < m.host_starts.size(); ++h) {
    int begin = m.host_starts[h] / m.cell_size;
    int end = h + 1 < m.host_starts.size() ? m.host_starts[h + 1] / m.cell_size : m.cells;
    for (int r = begin; r < end; ++r)
      for (int c = begin; c < end; ++c) sum += m.at(r, c);
  }
  return sum;
}

// Groups of 4 processes talking all-to-all, interleaved (process i in group i % 4):
// identity spreads every group over the 4 hosts, a good mapping gathers each on one.
CommGraph interleaved_groups() {
  CommGraphBuilder b(16);
  for (int u = 0; u < 16; ++u)
    for (int v = u + 1; v < 16; ++v)
      if (u % 4 == v % 4) b.add(u, v, 1000);
  return b.build();
}

TEST(MapPictures, MatrixOrdersProcessesBySlot) {
  CommGraphBuilder b(3);
  b.add(0, 1, 100);
  b.add(1, 2, 40);
  Problem p = problem_on(test::fat_tree(2, 2, 1), 2, 2, b.build());
  // Slot 0: process 1, slot 1: process 2, slot 3: process 0 (slot 2 free).
  CommMatrix m = comm_matrix(p, {3, 0, 1});
  ASSERT_EQ(m.cells, 3);
  EXPECT_EQ(m.cell_size, 1);
  EXPECT_EQ(m.host_starts, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(m.at(2, 0), 50);  // process 0 (position 2) and process 1 (position 0), half each way
  EXPECT_DOUBLE_EQ(m.at(0, 2), 50);
  EXPECT_DOUBLE_EQ(m.at(0, 1), 20);
  EXPECT_DOUBLE_EQ(m.at(1, 0), 20);
  EXPECT_DOUBLE_EQ(m.total(), 140);
}

TEST(MapPictures, BinningKeepsEveryByte) {
  Problem p = problem_on(test::fat_tree(4, 8, 2), 32, 32, test::random_graph(1000, 5000, 7));
  for (int max_cells : {1, 7, 64, 512, 2000}) {
    CommMatrix m = comm_matrix(p, identity_placement(p), max_cells);
    EXPECT_LE(m.cells, max_cells);
    EXPECT_GE(m.cells * m.cell_size, 1000);
    EXPECT_LT((m.cells - 1) * m.cell_size, 1000);
    EXPECT_NEAR(m.total(), p.graph.total_bytes(), 1e-9 * p.graph.total_bytes()) << max_cells;
  }
  // Cells of 2 x 2 processes hold the sum of their four entries.
  CommGraphBuilder b(4);
  b.add(0, 2, 10);
  b.add(1, 3, 6);
  b.add(0, 1, 4);
  Problem small = problem_on(test::fat_tree(2, 2, 1), 4, 1, b.build());
  CommMatrix m = comm_matrix(small, identity_placement(small), 2);
  ASSERT_EQ(m.cell_size, 2);
  EXPECT_DOUBLE_EQ(m.at(0, 1), 8);  // (10 + 6) / 2
  EXPECT_DOUBLE_EQ(m.at(1, 0), 8);
  EXPECT_DOUBLE_EQ(m.at(0, 0), 4);  // 4 / 2 each way, both in the cell
  EXPECT_DOUBLE_EQ(m.at(1, 1), 0);
}

TEST(MapPictures, AfterMappingAllTrafficIsInDiagonalBlocks) {
  Problem p = problem_on(test::fat_tree(2, 2, 1), 4, 4, interleaved_groups());
  CommMatrix before = comm_matrix(p, identity_placement(p));
  EXPECT_EQ(before.host_starts, (std::vector<int>{0, 4, 8, 12}));
  EXPECT_DOUBLE_EQ(diagonal_block_bytes(before), 0);
  for (const char *algorithm : {"rt", "greedy"}) {
    MapOptions o;
    o.algorithm = algorithm;
    CommMatrix after = comm_matrix(p, map_processes(p, o).slot_of_process);
    EXPECT_DOUBLE_EQ(diagonal_block_bytes(after), p.graph.total_bytes()) << algorithm;
    EXPECT_DOUBLE_EQ(after.total(), before.total());
  }
}

TEST(MapPictures, PictureFormatFromExtension) {
  std::vector<PictureFormat> heatmap = {PictureFormat::Svg, PictureFormat::Png};
  EXPECT_EQ(picture_format("a/b.svg", heatmap, "--heatmap"), PictureFormat::Svg);
  EXPECT_EQ(picture_format("B.PNG", heatmap, "--heatmap"), PictureFormat::Png);
  EXPECT_THROW(picture_format("b.dot", heatmap, "--heatmap"), Error);
  EXPECT_THROW(picture_format(".svg", heatmap, "--heatmap"), Error);
  try {
    picture_format("x.pdf", {PictureFormat::Dot, PictureFormat::Svg}, "--draw-load");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("--draw-load x.pdf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".dot or .svg"), std::string::npos) << e.what();
  }
}

TEST(MapPictures, LinkLoadsFollowTheRoutes) {
  // n0 (leaf0) and n2 (leaf1) exchange 600 bytes: 300 each way over host, leaf, spine links.
  CommGraphBuilder b(2);
  b.add(0, 1, 600);
  auto topo = test::fat_tree(2, 2, 1);
  Problem p{b.build(), Machine(topo, {topo->find_host("n0"), topo->find_host("n2")}, 1)};
  Metrics m = evaluate(p, {0, 1});
  double sum = 0;
  int busy = 0;
  for (const topo::Link &link : topo->links()) {
    double load = m.link_loads.busier_direction(link);
    bool on_route = topo->node(link.node_a).name != "n1" && topo->node(link.node_b).name != "n1" &&
                    topo->node(link.node_a).name != "n3" && topo->node(link.node_b).name != "n3";
    EXPECT_DOUBLE_EQ(load, on_route ? 300 : 0) << topo->node(link.node_a).name << " - " << topo->node(link.node_b).name;
    busy += load > 0;
  }
  for (double b : m.link_loads.all()) sum += b;
  EXPECT_EQ(busy, 4);
  EXPECT_DOUBLE_EQ(sum, m.hop_bytes);  // every byte on every link of its route
  EXPECT_EQ(m.links_used, 8);
  EXPECT_DOUBLE_EQ(m.max_link_bytes, 300);
}

TEST(MapPictures, DrawingColoursLinksByLoad) {
  auto topo = test::fat_tree(2, 2, 2);
  topo::DrawingOptions options;
  options.link_bytes.assign(topo->links().size(), 0);
  for (size_t i = 0; i < topo->links().size(); ++i)
    if (topo->node(topo->links()[i].node_a).is_switch() && topo->node(topo->links()[i].node_b).is_switch())
      options.link_bytes[i] = static_cast<double>(i + 1);  // switch links loaded, host links idle
  size_t busiest = static_cast<size_t>(std::max_element(options.link_bytes.begin(), options.link_bytes.end()) - options.link_bytes.begin());
  options.highlighted_hosts = {topo->find_host("n1")};
  std::string dot = topo::fabric_dot(*topo, options);
  const std::vector<std::string> &colours = topo::load_colours();
  std::regex edge(R"re((\S+) -- (\S+) \[color="(#[0-9a-f]+)".*tooltip="(\d+) bytes")re");
  int edges = 0;
  for (std::sregex_iterator it(dot.begin(), dot.end(), edge), end; it != end; ++it, ++edges) {
    long bytes = std::stol((*it)[4]);
    std::string colour = (*it)[3];
    if (bytes == 0) {
      EXPECT_EQ(colour, colours.front()) << it->str();
    } else {
      EXPECT_NE(colour, colours.front()) << it->str();
    }
    if (bytes == static_cast<long>(busiest + 1)) {
      EXPECT_EQ(colour, colours.back()) << it->str();
    }
  }
  EXPECT_EQ(edges, static_cast<int>(topo->links().size()));
  EXPECT_NE(dot.find("BGCOLOR=\"#ffd966\">n1<"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("BGCOLOR=\"#ffd966\">n0<"), std::string::npos) << dot;
  options.link_bytes.pop_back();
  EXPECT_THROW(topo::fabric_dot(*topo, options), Error);
}

}  // namespace
}  // namespace canopy::map
