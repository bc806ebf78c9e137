// FileFollower: `tail -F` semantics over a log another program appends to.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/file_follow.h"

using canopy::FileFollower;
using Lines = std::vector<std::string>;

namespace {

class FileFollowTest : public ::testing::Test {
 protected:
  std::string path = ::testing::TempDir() + "canopy_follow_" + std::to_string(::getpid()) + ".log";
  void SetUp() override { std::remove(path.c_str()); }
  void TearDown() override {
    std::remove(path.c_str());
    std::remove((path + ".1").c_str());
  }
  void append(const std::string &text) { std::ofstream(path, std::ios::app) << text; }
  void replace(const std::string &text) { std::ofstream(path, std::ios::trunc) << text; }
};

TEST_F(FileFollowTest, StartsAtTheEndAndReturnsCompleteLines) {
  append("old line\n");
  FileFollower log(path);
  EXPECT_EQ(log.read_lines(), Lines{});
  append("first\nsecond\r\nthird without newline");
  EXPECT_EQ(log.read_lines(), (Lines{"first", "second"}));
  append(" yet\n");
  EXPECT_EQ(log.read_lines(), Lines{"third without newline yet"});
  EXPECT_EQ(log.read_lines(), Lines{});
}

TEST_F(FileFollowTest, WaitsForAMissingFileAndReadsItFromItsStart) {
  FileFollower log(path);
  EXPECT_EQ(log.read_lines(), Lines{});
  append("SUBNET UP\n");
  EXPECT_EQ(log.read_lines(), Lines{"SUBNET UP"});
}

TEST_F(FileFollowTest, ReadsATruncatedFileAgainFromItsStart) {
  append("a fairly long line that was there before\n");
  FileFollower log(path);
  replace("");
  EXPECT_EQ(log.read_lines(), Lines{});
  append("new\n");
  EXPECT_EQ(log.read_lines(), Lines{"new"});
}

TEST_F(FileFollowTest, FinishesARotatedFileThenFollowsTheNewOne) {
  FileFollower log(path);
  append("before rotation\n");
  EXPECT_EQ(log.read_lines(), Lines{"before rotation"});
  append("last words\n");
  ASSERT_EQ(std::rename(path.c_str(), (path + ".1").c_str()), 0);
  EXPECT_EQ(log.read_lines(), Lines{"last words"});  // the old file, still open, until a new one appears
  append("in the new file\n");
  EXPECT_EQ(log.read_lines(), Lines{"in the new file"});
}


TEST_F(FileFollowTest, SaysOnceThatAPathCannotBeRead) {
  std::string folder = path + ".d";
  ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0);  // opens, but every read fails (EISDIR)
  FileFollower log(folder);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(log.read_lines(), Lines{});
  std::string said = ::testing::internal::GetCapturedStderr();
  ::rmdir(folder.c_str());
  size_t first = said.find("cannot read " + folder);
  EXPECT_NE(first, std::string::npos) << said;
  EXPECT_EQ(said.find("cannot read", first + 1), std::string::npos) << "said more than once: " << said;
}

}  // namespace
