// Helpers for the loader tests: breadth-first hop counts over the links
// (tests/support), the message of a loader's Error(PARSE), test data.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "../support/topology_bfs.h"
#include "topo/topology.h"

namespace canopy::test {

/** The message of the Error(PARSE) that @p load throws, or "" if it does not. */
template <class Load>
std::string parse_failure(Load &&load) {
  try {
    load();
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), CANOPY_ERR_PARSE) << e.what();
    return e.what();
  }
  return "";
}

inline std::string test_data(const std::string &relative) { return read_file(std::string(CANOPY_TEST_DATA) + "/" + relative); }

}  // namespace canopy::test
