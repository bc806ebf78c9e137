// Keeps canopyd's snapshot fresh: watches a dump directory (a canopy-collect
// output directory with its `current` link, or a plain dump directory) by
// polling, loads a changed dump in a background thread, and publishes it only
// once it has loaded completely. A dump that fails to load leaves the last good
// snapshot in place and marks the store stale with the loader's message.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "service/snapshot.h"

namespace canopy::service {

/** Identity of a file as stat(2) sees it; a rewrite or replacement changes it. */
struct FileStamp {
  bool exists = false;
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0;

  bool operator==(const FileStamp &o) const {
    return exists == o.exists && device == o.device && inode == o.inode && size == o.size && mtime_ns == o.mtime_ns;
  }
};

/** Which dump a dump directory offers now: the directory to load (DIR/ + the
    `current` link's target, or DIR itself) and the stamps of every file its load
    reads (topo::dump_files: the fabric, each forwarding table, the manifest), so
    that a plain directory whose tables are rewritten in place is loaded again.
    No fabric file: nothing to load yet. */
struct DumpSignature {
  std::string dir;
  bool has_fabric = false;
  std::vector<std::pair<std::string, FileStamp>> files;
  std::string unlisted;  // why the forwarding tables could not be listed (the load then says so too)

  bool operator==(const DumpSignature &o) const {
    return dir == o.dir && has_fabric == o.has_fabric && files == o.files && unlisted == o.unlisted;
  }
  bool operator!=(const DumpSignature &o) const { return !(*this == o); }
};

DumpSignature dump_signature(const std::string &dump_dir);

class Reloader {
 public:
  Reloader(SnapshotStore &store, std::string dump_dir, std::chrono::milliseconds poll);
  ~Reloader();
  Reloader(const Reloader &) = delete;
  Reloader &operator=(const Reloader &) = delete;

  /** Starts the background thread: a check at once, then one every poll period. */
  void start();
  void stop();
  /** Wakes the thread for a check that loads the dump even if it looks unchanged (SIGHUP). */
  void request_reload();

  /** One check in the calling thread; loads the dump if it changed (or if
      @p force). True when a new snapshot was published. Never throws. */
  bool check(bool force = false);

 private:
  void run();
  bool load(const DumpSignature &signature);

  SnapshotStore &store_;
  std::string dump_dir_;
  std::chrono::milliseconds poll_;
  DumpSignature last_;  // the dump last tried, loaded or not: it is not retried until it changes
  bool checked_ = false;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false, force_ = false;
  std::thread thread_;
};

}  // namespace canopy::service
