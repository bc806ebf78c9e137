// Working memory of the collective algorithms, kept between calls on a communicator
// (Hierarchy::scratch). Applications repeat their collectives with the same sizes, and a
// fresh std::vector per call costs an allocation, zeroing every byte, and above glibc's mmap
// threshold (128 KiB) a fresh mapping whose pages fault in on every call: Bruck Alltoall with
// 64 KiB blocks took 12x the library's time at 2 ranks mostly for that.
#pragma once
#include <cstddef>
#include <memory>

namespace canopy::coll {

class Scratch {
 public:
  /** At least @p bytes, uninitialised, valid until the next get() on this object. It only
      grows: a communicator keeps the largest working set it has needed until it is freed. */
  char *get(size_t bytes) {
    if (bytes > size_) {
      data_.reset();  // release before allocating: never hold both
      size_ = 0;
      data_.reset(new char[bytes]);
      size_ = bytes;
    }
    return data_.get();
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

/** Who holds a Hierarchy scratch buffer during a call; nested users take different ones. */
enum class ScratchUse {
  Entry,          // the entry point (an MPI_IN_PLACE Alltoall's copy of the input)
  Algorithm,      // the algorithm the entry point runs
  BuildingBlock,  // a flat algorithm run by a hierarchical one (between node leaders)
};
inline constexpr int kScratchUses = 3;

}  // namespace canopy::coll
