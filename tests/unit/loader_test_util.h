// Helpers shared by the loader tests: sample data, and checking that a call
// fails through canopy::guard with the expected status and "file:line: " message.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "topo/loaders/loaders.h"

namespace canopy::test {

inline std::string data_path(const std::string &relative) { return std::string(CANOPY_TEST_DATA) + "/" + relative; }

inline std::string read_data(const std::string &relative) { return read_file(data_path(relative)); }

/** The two-switch, four-host fabric that the forwarding-table samples route. */
inline topo::Topology two_switch_fabric() {
  return topo::load_subnet_lst(read_data("subnet_lst/two_switches.lst"), "two_switches.lst");
}

/** Runs @p body through guard(); expects @p status and a message that starts with
    @p where (e.g. "f.txt:3: ") and contains @p what. */
inline void expect_error(canopy_status_t status, const std::function<void()> &body, const std::string &where,
                         const std::string &what) {
  EXPECT_EQ(guard(body), status) << "expected '" << where << "... " << what << "'";
  std::string message = canopy_last_error();
  EXPECT_EQ(message.rfind(where, 0), 0u) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

inline void expect_parse_error(const std::function<void()> &body, const std::string &where, const std::string &what) {
  expect_error(CANOPY_ERR_PARSE, body, where, what);
}

}  // namespace canopy::test
