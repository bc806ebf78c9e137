// Communication graphs: the CSR builder and the METIS, edge-list and
// MatrixMarket loaders, with their file:line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "loader_test_helpers.h"
#include "map/comm_graph.h"
#include "map/loaders/graph_loaders.h"
#include "map/partition.h"
#include "temp_dir.h"

namespace canopy::map {
namespace {

using test::parse_failure;

double edge_bytes(const CommGraph &g, int u, int v) {
  for (int64_t i = g.row_begin(u); i < g.row_end(u); ++i)
    if (g.neighbor(i) == v) return g.weight(i);
  return 0;
}

TEST(CommGraph, MergesDuplicatesAndDirectionsDropsSelfLoopsAndZeros) {
  CommGraphBuilder b(4);
  b.add(0, 1, 10);
  b.add(1, 0, 5);
  b.add(0, 1, 1);
  b.add(2, 2, 100);  // self-loop
  b.add(2, 3, 0);    // zero volume
  b.add(3, 1, 7);
  CommGraph g = b.build();
  EXPECT_EQ(g.num_vertices(), 4);
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 0, 1), 16);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 1, 0), 16);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 1, 3), 7);
  EXPECT_DOUBLE_EQ(g.total_bytes(), 23);
  EXPECT_EQ(g.degree(2), 0);
  for (int v = 0; v < 4; ++v)  // rows sorted by neighbour
    for (int64_t i = g.row_begin(v) + 1; i < g.row_end(v); ++i) EXPECT_LT(g.neighbor(i - 1), g.neighbor(i));
}

TEST(CommGraph, RejectsOutOfRangeAndNegative) {
  CommGraphBuilder b(2);
  EXPECT_THROW(b.add(0, 2, 1), Error);
  EXPECT_THROW(b.add(-1, 0, 1), Error);
  EXPECT_THROW(b.add(0, 1, -3), Error);
}

TEST(CommGraph, SubgraphQuotientPadded) {
  CommGraphBuilder b(4);
  b.add(0, 1, 1);
  b.add(1, 2, 2);
  b.add(2, 3, 4);
  b.add(3, 0, 8);
  CommGraph g = b.build();
  CommGraph sub = g.subgraph({3, 2});  // local 0 = 3, local 1 = 2
  EXPECT_EQ(sub.num_vertices(), 2);
  EXPECT_DOUBLE_EQ(edge_bytes(sub, 0, 1), 4);
  EXPECT_DOUBLE_EQ(sub.total_bytes(), 4);
  CommGraph q = g.quotient({0, 0, 1, 1}, 2);
  EXPECT_DOUBLE_EQ(edge_bytes(q, 0, 1), 10);  // 1-2 and 3-0 cross
  EXPECT_EQ(g.padded(6).num_vertices(), 6);
  EXPECT_EQ(g.padded(6).degree(5), 0);
}

TEST(MetisGraph, ReadsEdgeWeightsAsBytes) {
  // The METIS manual's example layout: 3 vertices, 2 edges, fmt 1 (edge weights).
  CommGraph g = load_metis_graph("% comment\n3 2 1\n2 100\n1 100 3 5\n2 5\n", "g.graph");
  EXPECT_EQ(g.num_vertices(), 3);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 0, 1), 100);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 1, 2), 5);
  // fmt 011: a vertex weight before the neighbours.
  CommGraph w = load_metis_graph("3 1 011\n7 2 9\n7 1 9\n7\n", "w.graph");
  EXPECT_DOUBLE_EQ(edge_bytes(w, 0, 1), 9);
  EXPECT_EQ(w.degree(2), 0);
  // Without vertex weights, an empty line is a vertex without neighbours.
  EXPECT_EQ(load_metis_graph("3 1\n\n3\n2\n", "e.graph").degree(0), 0);
  // No fmt: unit weights.
  EXPECT_DOUBLE_EQ(load_metis_graph("2 1\n2\n1\n", "u.graph").total_bytes(), 1);
}

TEST(MetisGraph, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_failure([] { load_metis_graph("", "e.graph"); }), "e.graph:1: empty file: no header");
  EXPECT_NE(parse_failure([] { load_metis_graph("2 1\n2\n", "e.graph"); }).find("e.graph:2: the header announces 2 vertices"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("2 1\n3\n1\n", "e.graph"); }).find("e.graph:2: neighbour '3' is not a vertex"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("2 1 1\n2\n1 4\n", "e.graph"); }).find("e.graph:2: neighbours and edge weights"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("2 2\n2\n1\n", "e.graph"); }).find("e.graph:1: the header announces 2 edges"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("2 1 2\n2\n1\n", "e.graph"); }).find("e.graph:1: fmt must be"), std::string::npos);
  // 2m would wrap around in 64 bits and match the one edge listed.
  EXPECT_NE(parse_failure([] { load_metis_graph("2 9223372036854775809\n2\n1\n", "e.graph"); })
                .find("e.graph:1: the header announces 9223372036854775809 edges, more than a graph of 2 vertices"),
            std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("2 1\n2\n1\n1\n", "e.graph"); }).find("e.graph:4: more vertex lines"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("1 0\n1\n", "e.graph"); }).find("e.graph:2: vertex 1 lists itself"), std::string::npos);
  // The header's own line, after comments.
  EXPECT_NE(parse_failure([] { load_metis_graph("% c\n3 3\n2\n1 3\n2\n", "e.graph"); }).find("e.graph:2: the header announces 3 edges"),
            std::string::npos);
  // An edge listed at one end only, whichever end comes first in the file; entries still add up to 2m.
  EXPECT_NE(parse_failure([] { load_metis_graph("3 2 1\n2 10 3 10\n3 10\n2 10\n", "e.graph"); })
                .find("e.graph:2: vertex 1 lists 2 as a neighbour, but vertex 2 does not list 1"),
            std::string::npos);
  EXPECT_NE(parse_failure([] { load_metis_graph("3 1\n\n3\n1\n", "e.graph"); })
                .find("e.graph:4: vertex 3 lists 1 as a neighbour, but vertex 1 does not list 3"),
            std::string::npos);
}

TEST(EdgeList, WrittenGraphReadsBackTheSame) {
  // Odd and fractional volumes, an edge of zero after merging dropped, a trailing isolated vertex kept.
  CommGraph g = load_edge_list("processes 6\n0 1 3\n1 0 4\n1 2 0.1\n2 4 1e15\n3 0 7.25\n", "a.edges");
  std::string text = edge_list_text(g);
  EXPECT_EQ(text.substr(0, text.find('\n')), "processes 6");
  EXPECT_NE(text.find("\n0 1 3.5\n"), std::string::npos) << text;  // half of 3 + 4 each way
  EXPECT_NE(text.find("\n1 0 3.5\n"), std::string::npos) << text;
  CommGraph back = load_edge_list(text, "written.edges");
  EXPECT_EQ(back.num_vertices(), 6);
  EXPECT_EQ(back.offsets(), g.offsets());
  EXPECT_EQ(back.neighbors(), g.neighbors());
  EXPECT_EQ(back.weights(), g.weights());  // exactly: halves of doubles and the shortest form both round-trip
  EXPECT_EQ(edge_list_text(back), text);
}

TEST(EdgeList, VolumesThatWouldOverflowTheMetricsAreRefused) {
  // Each line is allowed up to 1e300, but together they may not exceed it: hop-bytes, link loads
  // and the mappers' gains (bytes x up to 65,535 links) must stay finite.
  EXPECT_NO_THROW(load_edge_list("0 1 5e299\n1 2 5e299\n", "a.edges"));
  try {
    load_edge_list("0 1 1e300\n1 0 1e300\n", "a.edges");
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), CANOPY_ERR_INVALID_ARG);
    EXPECT_NE(std::string(e.what()).find("a.edges: the communication volumes add up to 2e+300 bytes, more than 1e300"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NE(parse_failure([] { load_edge_list("0 1 2e300\n", "x.edges"); }).find("x.edges:1: bytes '2e300'"),
            std::string::npos);
  // A NUL inside a number is not its end.
  EXPECT_NE(parse_failure([] { load_edge_list(std::string("0 1 5\0junk\n", 12), "x.edges"); }).find("x.edges:1: bytes"),
            std::string::npos);
}

TEST(EdgeList, SumsDirectionsAndRepeats) {
  CommGraph g = load_edge_list("# src dst bytes\n0 1 100\n1 0 50\n0 1 1.5e2\n2 3 0\n", "a.edges");
  EXPECT_EQ(g.num_vertices(), 4);
  EXPECT_DOUBLE_EQ(edge_bytes(g, 0, 1), 300);
  EXPECT_EQ(g.num_edges(), 1);
  EXPECT_EQ(load_edge_list("processes 10\n0 1 5\n", "b.edges").num_vertices(), 10);
}

TEST(EdgeList, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_failure([] { load_edge_list("0 1\n", "x.edges"); }), "x.edges:1: expected 'SRC DST BYTES'");
  EXPECT_NE(parse_failure([] { load_edge_list("0 1 5\n0 -1 5\n", "x.edges"); }).find("x.edges:2: processes must be integers"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_edge_list("0 1 nan\n", "x.edges"); }).find("x.edges:1: bytes 'nan'"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_edge_list("processes 2\n0 2 1\n", "x.edges"); }).find("x.edges:2: process 2 is beyond"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_edge_list("# nothing\n", "x.edges"); }).find("x.edges:1: no edges"), std::string::npos);
}

TEST(MatrixMarket, RowGraphAndHaloVolumes) {
  // 4x4 tridiagonal, symmetric storage (lower triangle).
  std::string mtx = "%%MatrixMarket matrix coordinate real symmetric\n% comment\n4 4 7\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 2\n4 3 -1\n4 4 2\n";
  CommGraph rows = load_matrix_market(mtx, "t.mtx");
  EXPECT_EQ(rows.num_vertices(), 4);
  EXPECT_EQ(rows.num_edges(), 3);
  // Rows {0,1} and {2,3}: each part needs one x entry from the other, 8 bytes each way.
  CommGraph halo = halo_exchange_graph(rows, {0, 0, 1, 1}, 2);
  EXPECT_DOUBLE_EQ(edge_bytes(halo, 0, 1), 16);
}

TEST(MatrixMarket, ErrorsNameFileAndLine) {
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix array real general\n2 2\n", "m.mtx"); })
                .find("m.mtx:1: only coordinate"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", "m.mtx"); })
                .find("m.mtx:2: the matrix must be square"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "m.mtx"); })
                .find("m.mtx:3: index out of range"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n", "m.mtx"); })
                .find("the size line announces 2 entries"), std::string::npos);
  // Entries carry the values the banner's field says.
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 abc\n", "m.mtx"); })
                .find("m.mtx:3: expected 'ROW COLUMN VALUE'"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2\n", "m.mtx"); })
                .find("m.mtx:3: expected 'ROW COLUMN VALUE'"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 7\n", "m.mtx"); })
                .find("m.mtx:3: expected 'ROW COLUMN'"), std::string::npos);
  EXPECT_NE(parse_failure([] { load_matrix_market("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1.0\n", "m.mtx"); })
                .find("m.mtx:3: expected 'ROW COLUMN REAL IMAGINARY'"), std::string::npos);
  EXPECT_EQ(load_matrix_market("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1.0 -2e3\n", "m.mtx").num_edges(), 1);
}

TEST(GraphSource, FormatsByPrefixExtensionAndBanner) {
  test::TempDir dir;
  dir.write("a.graph", "2 1\n2\n1\n");
  dir.write("b.edges", "0 1 5\n");
  dir.write("c.txt", "%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 2\n2 3\n3 4\n");
  dir.write("d.txt", "0 1 5\n");
  EXPECT_EQ(load_comm_graph(dir / "a.graph").num_edges(), 1);
  EXPECT_DOUBLE_EQ(load_comm_graph(dir / "b.edges").total_bytes(), 5);
  EXPECT_DOUBLE_EQ(load_comm_graph("edges:" + dir / "d.txt").total_bytes(), 5);
  CommGraph halo = load_comm_graph(dir / "c.txt", {2, 1});
  EXPECT_EQ(halo.num_vertices(), 2);
  EXPECT_DOUBLE_EQ(halo.total_bytes(), 16);  // the chain is cut once: one x entry each way
  EXPECT_THROW(load_comm_graph(dir / "c.txt"), Error);      // --parts missing
  EXPECT_THROW(load_comm_graph(dir / "a.graph", {2, 1}), Error);  // --parts for a graph of processes
  EXPECT_THROW(load_comm_graph(dir / "d.txt"), Error);      // format unknown
  EXPECT_THROW(load_comm_graph(dir / "missing.graph"), Error);
}

TEST(Partition, ExactSizesAndRepair) {
  // Two heavy cliques joined by a light edge split cleanly.
  CommGraphBuilder b(8);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) b.add(i, j, 100), b.add(i + 4, j + 4, 100);
  b.add(3, 4, 1);
  CommGraph g = b.build();
  std::vector<int> part = partition_exact(g, {4, 4}, 1);
  EXPECT_DOUBLE_EQ(edge_cut(g, part), 1);
  // Uneven sizes are met exactly.
  part = partition_exact(g, {5, 3}, 1);
  EXPECT_EQ(std::count(part.begin(), part.end(), 0), 5);
  // The repair moves the vertex that costs least: vertex 3 (one light edge to the other side).
  std::vector<int> unbalanced = {0, 0, 0, 0, 0, 1, 1, 1};
  unbalanced[4] = 0;
  repair_balance(g, unbalanced, {4, 4});
  EXPECT_EQ(std::count(unbalanced.begin(), unbalanced.end(), 0), 4);
  EXPECT_EQ(unbalanced[4], 1);
  EXPECT_THROW(partition_exact(g, {4, 3}, 1), Error);
}

// The free slots of an allocation far larger than the job are isolated vertices:
// they cut nothing wherever they go. METIS restarts its first bisection in every
// component it has not reached, quadratic in them (600,000 vertices took minutes
// in canopy map), so it sees only the communicating vertices and the isolated ones
// fill the room left.
TEST(Partition, MostlyIsolatedVerticesFillTheRoomLeft) {
  const int n = 400000;
  CommGraphBuilder b(n);
  for (int i = 0; i < 5; ++i) b.add(i * 1000, (i + 1) * 1000, 100);  // a chain of 6 across the numbering
  CommGraph g = b.build();
  for (const std::vector<int> &sizes : {std::vector<int>{n / 2, n / 2}, std::vector<int>{n / 4, n / 4, n / 2}}) {
    std::vector<int> part = partition_exact(g, sizes, 1);
    for (size_t p = 0; p < sizes.size(); ++p)
      EXPECT_EQ(std::count(part.begin(), part.end(), static_cast<int>(p)), sizes[p]) << sizes.size() << " parts";
    EXPECT_DOUBLE_EQ(edge_cut(g, part), 0) << sizes.size() << " parts";  // the chain fits in any part
  }
}

TEST(Partition, SidesChooseWhichPartsShareTheFirstBisection) {
  // Two cliques of 8 and four parts of 4: the first bisection separates the cliques, so the
  // parts on one side share a clique. In halves of the part list: parts 0 and 1, 2 and 3;
  // with sides {0, 1, 0, 1}: parts 0 and 2, 1 and 3.
  CommGraphBuilder b(16);
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j) b.add(i, j, 100), b.add(i + 8, j + 8, 100);
  CommGraph g = b.build();
  auto clique_of_part = [](const std::vector<int> &part) {
    std::vector<std::set<int>> cliques(4);
    for (int v = 0; v < 16; ++v) cliques[static_cast<size_t>(part[static_cast<size_t>(v)])].insert(v / 8);
    std::vector<int> clique;
    for (const auto &c : cliques) {
      EXPECT_EQ(c.size(), 1u);  // no part spans both cliques
      clique.push_back(*c.begin());
    }
    return clique;
  };
  std::vector<int> halves = clique_of_part(partition_exact(g, {4, 4, 4, 4}, 1));
  EXPECT_EQ(halves[0], halves[1]);
  EXPECT_EQ(halves[2], halves[3]);
  EXPECT_NE(halves[0], halves[2]);
  std::vector<int> part = partition_exact(g, {4, 4, 4, 4}, 1, {0, 1, 0, 1});
  for (int p = 0; p < 4; ++p) EXPECT_EQ(std::count(part.begin(), part.end(), p), 4);
  std::vector<int> sides = clique_of_part(part);
  EXPECT_EQ(sides[0], sides[2]);
  EXPECT_EQ(sides[1], sides[3]);
  EXPECT_NE(sides[0], sides[1]);
  // All parts on one side: the halves again. Sides that do not match the parts: an error.
  EXPECT_EQ(clique_of_part(partition_exact(g, {4, 4, 4, 4}, 1, {1, 1, 1, 1})), halves);
  EXPECT_THROW(partition_exact(g, {4, 4, 4, 4}, 1, {0, 1}), Error);
  EXPECT_THROW(partition_exact(g, {4, 4, 4, 4}, 1, {0, 1, 2, 1}), Error);
}

TEST(Partition, OtherSideGroupingsPairOtherSizesOnce) {
  // 8, 24, 8, 24: the halves pair {8, 24} with {8, 24}; the others {8, 8} with {24, 24}, and one
  // part of either size against the rest. Part 0 is always on side 1.
  std::vector<std::vector<int>> uneven = {{1, 0, 0, 0}, {1, 0, 1, 0}, {1, 1, 1, 0}};
  EXPECT_EQ(other_side_groupings({8, 24, 8, 24}), uneven);
  EXPECT_EQ(other_side_groupings({4, 4, 4, 4}), (std::vector<std::vector<int>>{{1, 0, 0, 0}}));
  EXPECT_TRUE(other_side_groupings({4, 4, 4}).empty());
  EXPECT_EQ(other_side_groupings({2, 4, 2}), (std::vector<std::vector<int>>{{1, 0, 1}}));  // {2, 2} against {4}
  EXPECT_TRUE(other_side_groupings({2, 4}).empty());
  EXPECT_TRUE(other_side_groupings({1, 2, 3, 4, 5}).empty());
}

TEST(Partition, RepairWithDistancesMovesWhatSavesHopBytes) {
  // Hosts A B C D, one slot each; A holds vertices 0 and 1, only B has room. Vertex 0
  // talks to vertex 2 on C, which is 2 links from B but 4 from A: moving 0 saves hop-bytes.
  HopTable hops = HopTable::from_matrix({0, 2, 4, 4,  //
                                         2, 0, 2, 4,  //
                                         4, 2, 0, 4,  //
                                         4, 4, 4, 0},
                                        4);
  CommGraphBuilder b(4);
  b.add(0, 2, 10);
  CommGraph g = b.build();
  std::vector<int> part = {0, 0, 2, 3};
  repair_balance(g, part, {1, 1, 1, 1}, &hops);
  EXPECT_EQ(part, (std::vector<int>{1, 0, 2, 3}));
}

TEST(Partition, IntegerWeightsStayUnderTheLimit) {
  CommGraphBuilder b(3);
  b.add(0, 1, 3e9);
  b.add(1, 2, 1);
  CommGraph g = b.build();
  std::vector<int> w = integer_edge_weights(g, 1e6);
  double total = 0;
  for (int x : w) {
    EXPECT_GE(x, 1);
    total += x;
  }
  EXPECT_LE(total, 1e6 + w.size());
}

}  // namespace
}  // namespace canopy::map
