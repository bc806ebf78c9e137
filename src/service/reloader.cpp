#include "service/reloader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <new>

#include "common/error.h"
#include "common/log.h"
#include "topo/loaders/loaders.h"
#include "topo/source.h"

namespace canopy::service {
namespace {

FileStamp stamp(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// DIR/current as canopy-collect writes it: a symlink to a dump beside it. The
// link is read once, so the whole load uses one dump even if the link moves on.
std::string dump_to_load(const std::string &dump_dir) {
  std::string current = dump_dir + "/current";
  struct stat st {};
  if (::lstat(current.c_str(), &st) != 0) return dump_dir;
  if (!S_ISLNK(st.st_mode)) return current;
  std::string target(4096, '\0');
  ssize_t n = ::readlink(current.c_str(), target.data(), target.size());
  if (n <= 0 || static_cast<size_t>(n) >= target.size()) return current;
  target.resize(static_cast<size_t>(n));
  return target[0] == '/' ? target : dump_dir + "/" + target;
}

}  // namespace

DumpSignature dump_signature(const std::string &dump_dir) {
  DumpSignature s;
  s.dir = dump_to_load(dump_dir);
  try {
    topo::DumpFiles files = topo::dump_files(s.dir);
    s.has_fabric = !files.fabric.empty();
    std::vector<std::string> paths = std::move(files.forwarding);
    paths.push_back(files.fabric);
    paths.push_back(files.manifest);
    for (const std::string &path : paths) s.files.emplace_back(path, stamp(path));
  } catch (const Error &e) {
    s.has_fabric = true;  // something to load, whose load will report the error
    s.unlisted = e.what();
  }
  return s;
}

Reloader::Reloader(SnapshotStore &store, std::string dump_dir, std::chrono::milliseconds poll)
    : store_(store), dump_dir_(std::move(dump_dir)), poll_(poll) {}

Reloader::~Reloader() { stop(); }

void Reloader::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Reloader::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Reloader::request_reload() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    force_ = true;
  }
  wake_.notify_all();
}

void Reloader::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    bool force = force_;
    force_ = false;
    lock.unlock();
    check(force);
    lock.lock();
    wake_.wait_for(lock, poll_, [this] { return stopping_ || force_; });
  }
}

bool Reloader::check(bool force) {
  DumpSignature signature = dump_signature(dump_dir_);
  if (checked_ && !force && signature == last_) return false;
  bool first = !checked_;
  checked_ = true;
  last_ = signature;
  if (signature.has_fabric) return load(signature);
  // Nothing to load: normal before the first dump; after one, the directory lost its dump.
  std::string reason = "no dump in " + signature.dir + " (no ibnetdiscover.txt or opensm-subnet.lst)";
  if (store_.snapshot()) {
    CANOPY_LOG(Error, "%s; still serving snapshot %llu", reason.c_str(),
               static_cast<unsigned long long>(store_.snapshot()->generation));
    store_.mark_stale(reason);
  } else if (first || force) {
    CANOPY_LOG(Info, "%s; waiting for the first dump", reason.c_str());
  }
  return false;
}

bool Reloader::load(const DumpSignature &signature) {
  auto start = std::chrono::steady_clock::now();
  std::string failure;
  try {
    topo::Topology topology = topo::load_topology("dump:" + signature.dir);
    // A plain directory rewritten while it loaded may have mixed two dumps:
    // drop the result and load it again at the next check.
    DumpSignature after = dump_signature(dump_dir_);
    if (after.dir == signature.dir && after != signature) {
      CANOPY_LOG(Warn, "%s changed while it was loading; loading it again", signature.dir.c_str());
      last_ = DumpSignature{};
      return false;
    }
    std::shared_ptr<const Snapshot> snapshot = store_.publish(std::move(topology));
    CANOPY_LOG(Info, "snapshot %llu: %s, %zu hosts, %zu switches, loaded in %.3f s",
               static_cast<unsigned long long>(snapshot->generation), snapshot->source().c_str(),
               snapshot->topology.hosts().size(), snapshot->topology.switches().size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return true;
  } catch (const Error &e) {
    failure = e.what();
  } catch (const std::bad_alloc &) {
    failure = "out of memory loading " + signature.dir;
  } catch (const std::exception &e) {
    failure = std::string("internal error loading ") + signature.dir + ": " + e.what();
  }
  std::shared_ptr<const Snapshot> serving = store_.snapshot();
  CANOPY_LOG(Error, "cannot load %s: %s; %s", signature.dir.c_str(), failure.c_str(),
             serving ? ("still serving snapshot " + std::to_string(serving->generation)).c_str()
                     : "no topology to serve yet");
  store_.mark_stale(failure);
  return false;
}

}  // namespace canopy::service
