// The reloader on real directories: canopy-collect's layout (a `current`
// symlink switched atomically) and plain dump directories; corrupt and
// vanishing dumps keep the last good snapshot and mark it stale.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "service/reloader.h"
#include "temp_dir.h"

using namespace canopy;
using namespace canopy::service;
using canopy::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Points DIR/current at @p name the way canopy-collect does: a new link renamed over the old.
void point_current_at(const TempDir &dir, const std::string &name) {
  std::string tmp = dir / ".current-tmp";
  ::unlink(tmp.c_str());
  ASSERT_EQ(::symlink(name.c_str(), tmp.c_str()), 0);
  ASSERT_EQ(::rename(tmp.c_str(), (dir / "current").c_str()), 0);
}

// A copy of the recorded two-switch fabric, or of the dump sample with a manifest.
void add_dump(const TempDir &dir, const std::string &name, bool with_manifest = false) {
  dir.copy(with_manifest ? "dumps/ibnetdiscover" : "cli/two-switch-dump", name);
}

class Reloading : public ::testing::Test {
 protected:
  uint64_t generation() const { return store.snapshot() ? store.snapshot()->generation : 0; }
  std::string source() const { return store.snapshot()->source(); }

  TempDir dir;
  SnapshotStore store;
  Reloader reloader{store, dir.path(), std::chrono::milliseconds(10)};
};

TEST_F(Reloading, WaitsForTheFirstDumpThenFollowsTheCurrentLink) {
  EXPECT_FALSE(reloader.check());
  EXPECT_EQ(store.snapshot(), nullptr);
  add_dump(dir, "dump-a");
  point_current_at(dir, "dump-a");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 1u);
  EXPECT_EQ(source(), "dump:" + (dir / "dump-a"));
  EXPECT_FALSE(reloader.check());  // unchanged: not loaded again
  EXPECT_TRUE(reloader.check(true));  // SIGHUP: loaded again anyway
  EXPECT_EQ(generation(), 2u);
  add_dump(dir, "dump-b", true);
  point_current_at(dir, "dump-b");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 3u);
  EXPECT_EQ(source(), "dump:" + (dir / "dump-b"));
  EXPECT_FALSE(store.freshness()->stale);
}

TEST_F(Reloading, CorruptDumpKeepsTheLastGoodSnapshotUntilAGoodOne) {
  add_dump(dir, "dump-a");
  point_current_at(dir, "dump-a");
  ASSERT_TRUE(reloader.check());
  std::shared_ptr<const Snapshot> good = store.snapshot();
  add_dump(dir, "dump-bad", true);
  dir.write("dump-bad/manifest.json", R"({"format": "canopy-dump/1", "hosts": 99})");
  point_current_at(dir, "dump-bad");
  EXPECT_FALSE(reloader.check());
  EXPECT_EQ(store.snapshot(), good);
  ASSERT_TRUE(store.freshness()->stale);
  EXPECT_NE(store.freshness()->reason.find("dump-bad/manifest.json:1:"), std::string::npos)
      << store.freshness()->reason;
  EXPECT_FALSE(reloader.check());  // the same broken dump is not retried on every poll
  add_dump(dir, "dump-c", true);
  point_current_at(dir, "dump-c");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 2u);
  EXPECT_EQ(source(), "dump:" + (dir / "dump-c"));
  EXPECT_FALSE(store.freshness()->stale);
}

TEST_F(Reloading, VanishedFilesAndLinksAreStaleNotFatal) {
  add_dump(dir, "dump-a");
  point_current_at(dir, "dump-a");
  ASSERT_TRUE(reloader.check());
  // A forwarding table that disappeared between listing and reading.
  add_dump(dir, "dump-v");
  fs::remove(dir / "dump-v/ibroute/0x0000000000200001.txt");
  ASSERT_EQ(::symlink("gone.txt", (dir / "dump-v/ibroute/0x0000000000200001.txt").c_str()), 0);
  point_current_at(dir, "dump-v");
  EXPECT_FALSE(reloader.check());
  EXPECT_TRUE(store.freshness()->stale);
  // The dump the link names was removed altogether.
  point_current_at(dir, "dump-removed");
  EXPECT_FALSE(reloader.check());
  EXPECT_NE(store.freshness()->reason.find("no dump in " + dir.path()), std::string::npos)
      << store.freshness()->reason;
  EXPECT_EQ(generation(), 1u);
  point_current_at(dir, "dump-a");
  EXPECT_TRUE(reloader.check());
  EXPECT_FALSE(store.freshness()->stale);
}

TEST_F(Reloading, PlainDumpDirectoryReloadsWhenItsManifestChanges) {
  dir.copy("dumps/ibnetdiscover/ibnetdiscover.txt", "ibnetdiscover.txt");
  dir.copy("dumps/ibnetdiscover/ibroute", "ibroute");
  ASSERT_TRUE(reloader.check());
  EXPECT_EQ(source(), "dump:" + dir.path());
  EXPECT_FALSE(reloader.check());
  dir.write("manifest.json", R"({"format": "canopy-dump/1", "hosts": 4})");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 2u);
}

// ibroute run again for one switch, its table renamed over the old one, and the tables removed:
// the fabric file and the manifest stay as they were.
TEST_F(Reloading, PlainDumpDirectoryReloadsWhenItsForwardingTablesChange) {
  dir.copy("dumps/ibnetdiscover/ibnetdiscover.txt", "ibnetdiscover.txt");
  dir.copy("dumps/ibnetdiscover/ibroute", "ibroute");
  ASSERT_TRUE(reloader.check());
  EXPECT_FALSE(reloader.check());
  fs::copy_file(dir / "ibroute/S1.txt", dir / "ibroute/S1.txt.new");
  fs::rename(dir / "ibroute/S1.txt.new", dir / "ibroute/S1.txt");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 2u);
  EXPECT_FALSE(reloader.check());
  fs::remove_all(dir / "ibroute");
  EXPECT_TRUE(reloader.check());
  EXPECT_EQ(generation(), 3u);
  EXPECT_FALSE(store.freshness()->stale);
}

TEST_F(Reloading, BackgroundThreadPicksUpNewDumpsAndStops) {
  add_dump(dir, "dump-a");
  point_current_at(dir, "dump-a");
  reloader.start();
  auto wait_for = [&](uint64_t wanted) {
    for (int i = 0; i < 500 && generation() < wanted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return generation();
  };
  EXPECT_EQ(wait_for(1), 1u);
  add_dump(dir, "dump-b", true);
  point_current_at(dir, "dump-b");
  EXPECT_EQ(wait_for(2), 2u);
  reloader.request_reload();
  EXPECT_EQ(wait_for(3), 3u);
  reloader.stop();
  EXPECT_EQ(source(), "dump:" + (dir / "dump-b"));
}

}  // namespace
