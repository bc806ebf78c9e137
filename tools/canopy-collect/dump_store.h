// The output directory of canopy-collect (docs/canopy-collect.md):
//
//   DIR/.incoming-XXXXXX/     a dump being written (removed if the run fails)
//   DIR/dump-<UTC>-<seq>/     published dumps, never modified after publication
//   DIR/current -> dump-...   symlink to the newest published dump
//
// Readers open DIR/current and see either the old dump or the new one, never a
// half-written one: a dump is complete before its rename, and the symlink is
// replaced with rename(2).
#pragma once
#include <string>
#include <vector>

namespace canopy::collect {

/** A dump under construction. The destructor removes it unless it was published. */
class IncomingDump {
 public:
  /** Creates @p out_dir if needed and a fresh DIR/.incoming-XXXXXX in it. */
  explicit IncomingDump(const std::string &out_dir);
  ~IncomingDump();
  IncomingDump(const IncomingDump &) = delete;
  IncomingDump &operator=(const IncomingDump &) = delete;

  const std::string &path() const { return path_; }

  /** Renames the dump to DIR/dump-<stamp>-<seq> (seq: first free, 3 digits) and
      points DIR/current at it. Returns the published path. On failure nothing
      is published and DIR/current is unchanged. */
  std::string publish(const std::string &stamp);

  /** Keeps a dump that did not validate as DIR/failed (replacing the last one kept there), for
      the errors that name its files to point at something; returns @p message with the
      incoming directory's name replaced by DIR/failed. */
  std::string keep_failed(const std::string &message);

 private:
  std::string out_dir_, path_;
  bool kept_ = false;  // published or kept as failed: not removed
};

/** The name of the dump DIR/current points to ("dump-..."), or "" if there is none. */
std::string current_dump(const std::string &out_dir);

/** Removes all but the newest @p keep dump-* directories; the one DIR/current
    points to is always kept. Returns the names removed; failures are logged. */
std::vector<std::string> prune_dumps(const std::string &out_dir, int keep);

/** Holds an exclusive flock on DIR/.lock, so concurrent collectors compare,
    publish and prune one at a time. Waits at most @p timeout_s seconds for it
    (another collector holds it only while it publishes), then throws. */
class StoreLock {
 public:
  StoreLock(const std::string &out_dir, double timeout_s);
  ~StoreLock();
  StoreLock(const StoreLock &) = delete;
  StoreLock &operator=(const StoreLock &) = delete;

 private:
  int fd_;
};

}  // namespace canopy::collect
