# Every dependency comes from Debian 12 packages; scripts/setup.sh installs them.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)
find_package(nlohmann_json 3.10 REQUIRED)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
if(CANOPY_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
