// A fresh directory under the test temp dir, removed at the end of the test,
// with helpers to fill it from tests/data or with small files.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "common/file_io.h"
#include "loader_test_util.h"

namespace canopy::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "canopy_test_XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }

  /** Copies tests/data/@p from to @p to inside this directory. */
  void copy(const std::string &from, const std::string &to) const {
    std::filesystem::create_directories(std::filesystem::path(*this / to).parent_path());
    std::filesystem::copy(data_path(from), *this / to, std::filesystem::copy_options::recursive);
  }
  void write(const std::string &name, const std::string &content) const {
    std::filesystem::create_directories(std::filesystem::path(*this / name).parent_path());
    write_file_atomic(*this / name, content);
  }

 private:
  std::string path_;
};

}  // namespace canopy::test
