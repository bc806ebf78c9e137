// Slurm hostlist expansion: ranges, padding, lists, Slurm's bracket order, and
// refusal of malformed or oversized expressions; host files (the slots syntax, names with a colon).
#include <gtest/gtest.h>

#include <chrono>

#include "common/error.h"
#include "topo/loaders/hostlist.h"
#include "topo/loaders/loaders.h"

using canopy::Error;
using canopy::topo::expand_hostlist;
using Names = std::vector<std::string>;

namespace {
// The Error(PARSE) message for @p expression, or "" if it expanded.
std::string parse_failure(const std::string &expression) {
  try {
    expand_hostlist(expression);
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), CANOPY_ERR_PARSE) << expression;
    return e.what();
  }
  return "";
}

std::string parse_failure_limited(const std::string &expression, uint64_t max_names) {
  try {
    canopy::topo::detail::expand_hostlist_limited(expression, max_names);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Hostlist, RangesListsAndPadding) {
  EXPECT_EQ(expand_hostlist("node[001-003,7]"), (Names{"node001", "node002", "node003", "node7"}));
  EXPECT_EQ(expand_hostlist("n[08-10]"), (Names{"n08", "n09", "n10"}));
  EXPECT_EQ(expand_hostlist("n[8-10]"), (Names{"n8", "n9", "n10"}));
  EXPECT_EQ(expand_hostlist("n[5]"), (Names{"n5"}));
  EXPECT_EQ(expand_hostlist("[1-3]"), (Names{"1", "2", "3"}));
  EXPECT_EQ(expand_hostlist("login1,node[1-3]"), (Names{"login1", "node1", "node2", "node3"}));
  EXPECT_EQ(expand_hostlist(" a , b\tc"), (Names{"a", "b", "c"}));
  EXPECT_EQ(expand_hostlist("n[1-2]-ib"), (Names{"n1-ib", "n2-ib"}));
  EXPECT_EQ(expand_hostlist("n1,n1"), (Names{"n1", "n1"}));  // duplicates are the caller's business
  EXPECT_TRUE(expand_hostlist("").empty());
  EXPECT_TRUE(expand_hostlist(", ,,").empty());
  EXPECT_EQ(expand_hostlist("node[001-128,200]").size(), 129u);
}

TEST(Hostlist, SeveralBracketsFollowSlurmOrder) {
  EXPECT_EQ(expand_hostlist("a[1-2]b[3-4]"), (Names{"a1b3", "a1b4", "a2b3", "a2b4"}));
  // Slurm expands the last bracket innermost, then the others right to left.
  EXPECT_EQ(expand_hostlist("a[1-2]b[3-4]c[5-6]"),
            (Names{"a1b3c5", "a1b3c6", "a2b3c5", "a2b3c6", "a1b4c5", "a1b4c6", "a2b4c5", "a2b4c6"}));
  EXPECT_EQ(expand_hostlist("r[1,3]n[01-02],x"), (Names{"r1n01", "r1n02", "r3n01", "r3n02", "x"}));
}

TEST(Hostlist, MalformedExpressionsAreParseErrorsWithoutFileLine) {
  const char *bad[] = {"n[3-1]", "n[1-",   "n[]",   "n]",    "n[1,,2]", "n[a-b]", "n[1-2-3]",
                       "n[[1]]", "n[-1]",  "n[1-]", "n[1 ]", "n\x01",   "n\xff",  "[",
                       "n[1234567890123456789]"};
  for (const char *expression : bad) {
    std::string message = parse_failure(expression);
    EXPECT_EQ(message.rfind("invalid hostlist '", 0), 0u) << expression << ": " << message;
  }
  EXPECT_NE(parse_failure("n[3-1]").find("descending"), std::string::npos);
  EXPECT_NE(parse_failure("n[1-").find("never closed"), std::string::npos);
}

TEST(Hostlist, HugeExpansionsAreRefusedQuickly) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_NE(parse_failure("n[0-99999999999]").find("1000000"), std::string::npos);
  EXPECT_NE(parse_failure("a[0-999]b[0-1000]").find("1000000"), std::string::npos);
  EXPECT_NE(parse_failure("a[1-999999],b,c").find("1000000"), std::string::npos);
  EXPECT_NE(parse_failure("a[0-99]b[0-99]c[0-99]d[0-99]e[0-99]").find("1000000"), std::string::npos);
  EXPECT_NE(parse_failure(std::string(100, 'x') + "[1-1000000]").find("64 MiB"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(expand_hostlist("n[1-1000000]").size(), 1000000u);  // the limit itself is allowed
}

TEST(Hostlist, SizeWithoutExpandingAndExplicitLimits) {
  using canopy::topo::detail::expand_hostlist_limited;
  using canopy::topo::detail::hostlist_size;
  EXPECT_EQ(hostlist_size("n[1-3],x"), 4u);
  EXPECT_EQ(hostlist_size("a[1-1000]b[1-1000]"), 1000000u);
  EXPECT_EQ(hostlist_size(""), 0u);
  EXPECT_EQ(expand_hostlist_limited("n[1-3]", 3).size(), 3u);
  EXPECT_NE(parse_failure_limited("n[1-4]", 3).find("more than 3 names"), std::string::npos);
}

TEST(Hostfile, SlotsSyntaxAndNamesWithColons) {
  std::vector<canopy::topo::HostfileEntry> entries = canopy::topo::read_hostfile(
      "# job\nn001\nn002 slots=16\nn003:16\nrack:a\nrack:b:4  # a torus name with ':'\n", "job.hosts");
  Names names;
  for (const auto &e : entries) names.push_back(e.name);
  EXPECT_EQ(names, (Names{"n001", "n002", "n003", "rack:a", "rack:b"}));
  EXPECT_EQ(entries[4].line, 6u);
  std::vector<int> slots;
  for (const auto &e : entries) slots.push_back(e.slots);
  EXPECT_EQ(slots, (std::vector<int>{0, 16, 16, 0, 4}));
  EXPECT_EQ(canopy::topo::read_hostfile("n1 max_slots=8 slots=2\n", "job.hosts")[0].slots, 2);
  auto failure = [](const std::string &text) {
    try {
      canopy::topo::read_hostfile(text, "job.hosts");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(failure("n1\n:16\n").find("job.hosts:2: no host name before ':'"), std::string::npos);
  EXPECT_NE(failure("# nothing\n").find("job.hosts: no hosts listed"), std::string::npos);
  EXPECT_NE(failure("").find("job.hosts: no hosts listed"), std::string::npos);  // "job.hosts:0:" before
  for (const char *twice : {"n0 slots=8 slots=4\n", "n0:8 slots=4\n"})  // the last won before
    EXPECT_NE(failure(twice).find("job.hosts:1: host 'n0' gives its slot count twice"), std::string::npos) << twice;
  EXPECT_NE(failure("n1\nn2 slots=x\n").find("job.hosts:2: slot count 'x' is not a whole number"), std::string::npos);
  EXPECT_NE(failure("n1:0\n").find("job.hosts:1: slot count '0'"), std::string::npos);
  EXPECT_NE(failure("n1 slots=2000000\n").find("job.hosts:1: slot count '2000000'"), std::string::npos);
  // Two hosts on one line would lose the second.
  EXPECT_NE(failure("n0\nn1 slots=8 n2 slots=8\n").find("job.hosts:2: 'n2' after host 'n1': one host per line"),
            std::string::npos);
}
