# Every dependency comes from Debian 12 packages; scripts/setup.sh installs them.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)
find_package(nlohmann_json 3.10 REQUIRED)
# METIS 5 (Debian libmetis-dev, 32-bit idx_t): graph partitioning for task mapping.
find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
add_library(canopy_metis INTERFACE)
target_include_directories(canopy_metis INTERFACE ${METIS_INCLUDE_DIR})
target_link_libraries(canopy_metis INTERFACE ${METIS_LIBRARY})
# Scotch 7 (Debian libscotch-dev, 32-bit SCOTCH_Num): static mapping, the peer of
# `canopy map --algorithm scotch`. libscotcherr prints Scotch's messages to stderr.
find_path(SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch REQUIRED)
find_library(SCOTCH_LIBRARY scotch REQUIRED)
find_library(SCOTCHERR_LIBRARY scotcherr REQUIRED)
add_library(canopy_scotch INTERFACE)
target_include_directories(canopy_scotch INTERFACE ${SCOTCH_INCLUDE_DIR})
target_link_libraries(canopy_scotch INTERFACE ${SCOTCH_LIBRARY} ${SCOTCHERR_LIBRARY} Threads::Threads)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
# Standalone Asio (header-only, Debian libasio-dev): canopyd's networking.
find_path(ASIO_INCLUDE_DIR asio.hpp REQUIRED)
add_library(canopy_asio INTERFACE)
target_include_directories(canopy_asio INTERFACE ${ASIO_INCLUDE_DIR})
# ASIO_DISABLE_STD_ALIGNED_ALLOC: Asio otherwise pairs std::aligned_alloc with a free() that
# valgrind reports as mismatched in every handler allocation (615 errors in canopyd).
target_compile_definitions(canopy_asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED ASIO_DISABLE_STD_ALIGNED_ALLOC)
target_link_libraries(canopy_asio INTERFACE Threads::Threads)
if(CANOPY_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# MPI is optional: without it the topology library and tools still build, and
# the collectives runtime (libcanopy-mpi.so, tests/mpi) is left out.
include(${CMAKE_CURRENT_LIST_DIR}/CanopyMPI.cmake)
