# The MPI builds ("flavours") of the collectives runtime. libcanopy-mpi.so defines MPI_*
# and calls PMPI_*, so it is bound to one MPI's ABI (an MPI_Comm is a pointer in Open MPI,
# an int in MPICH): everything that includes mpi.h is built once per flavour, by
# canopy_add_coll_runtime (src/) and canopy_add_mpi_tests (tests/mpi/).
#
#   flavour   MPI                                   drop-in library              MPI test names
#   openmpi   the default MPI (FindMPI, `mpicc`)    lib/libcanopy-mpi.so         mpi_*
#   mpich     MPICH beside it (pkg-config mpich)    lib/libcanopy-mpi-mpich.so   mpi_*_mpich
#   asan      the default MPI; collectives and      (none)                       mpi_*_asan (a subset)
#             their test built with ASan + UBSan
#
# The default MPI's flavour is named after its vendor (openmpi, mpich, or mpi when it is
# neither); MPICH is added beside it when the default is not MPICH already. For each
# flavour F in CANOPY_MPI_FLAVOURS: CANOPY_MPI_F_TARGET (the imported MPI target),
# CANOPY_MPI_F_SUFFIX (of target and test names), CANOPY_MPI_F_LIBRARY (output name of the
# drop-in library; empty: none), CANOPY_MPI_F_LAUNCHER (its mpiexec) and
# CANOPY_MPI_F_OPTIONS (extra compile and link options) and CANOPY_MPI_F_FORTRAN (its Fortran
# compiler wrapper, for the Fortran test program; empty when it has none).

set(CANOPY_MPI_FLAVOURS "")

macro(canopy_mpi_flavour name)
  cmake_parse_arguments(_flavour "" "TARGET;SUFFIX;LIBRARY;LAUNCHER;FORTRAN" "OPTIONS" ${ARGN})
  list(APPEND CANOPY_MPI_FLAVOURS ${name})
  foreach(_key TARGET SUFFIX LIBRARY LAUNCHER FORTRAN OPTIONS)
    set(CANOPY_MPI_${name}_${_key} "${_flavour_${_key}}")
  endforeach()
  string(REPLACE ";" " " _options "${_flavour_OPTIONS}")
  message(STATUS "Canopy collectives, flavour ${name}: ${_flavour_TARGET}, launcher ${_flavour_LAUNCHER} ${_options}")
endmacro()

find_package(MPI COMPONENTS C)
if(MPI_FOUND)
  set(_canopy_mpi_default ON)
else()
  set(_canopy_mpi_default OFF)
endif()
option(CANOPY_WITH_MPI "Build the MPI collectives runtime (libcanopy-mpi.so)" ${_canopy_mpi_default})
option(CANOPY_WITH_MPICH "Also build the collectives runtime and MPI tests against MPICH when it is installed" ON)
option(CANOPY_MPI_ASAN "Also build the collectives and their test with ASan + UBSan and run a subset of the MPI tests" ON)
if(NOT CANOPY_WITH_MPI)
  return()
endif()
if(NOT MPI_FOUND)
  message(FATAL_ERROR "CANOPY_WITH_MPI=ON but no MPI was found (install libopenmpi-dev openmpi-bin)")
endif()

include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OPEN_MPI mpi.h CANOPY_DEFAULT_MPI_IS_OPENMPI)
check_symbol_exists(MPICH_VERSION mpi.h CANOPY_DEFAULT_MPI_IS_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
if(CANOPY_DEFAULT_MPI_IS_OPENMPI)
  set(_canopy_default_mpi openmpi)
elseif(CANOPY_DEFAULT_MPI_IS_MPICH)
  set(_canopy_default_mpi mpich)
else()
  set(_canopy_default_mpi mpi)
endif()
find_program(CANOPY_MPI_FORTRAN NAMES mpifort.${_canopy_default_mpi} mpifort mpif90)
canopy_mpi_flavour(${_canopy_default_mpi} TARGET MPI::MPI_C LIBRARY canopy-mpi LAUNCHER ${MPIEXEC_EXECUTABLE}
                   FORTRAN ${CANOPY_MPI_FORTRAN})

if(CANOPY_WITH_MPICH AND NOT _canopy_default_mpi STREQUAL mpich)
  pkg_check_modules(MPICH QUIET IMPORTED_TARGET mpich)
  find_program(MPICH_LAUNCHER NAMES mpiexec.hydra mpiexec.mpich mpirun.mpich)
  find_program(MPICH_FORTRAN NAMES mpifort.mpich mpif90.mpich)
  if(MPICH_FOUND AND MPICH_LAUNCHER)
    canopy_mpi_flavour(mpich TARGET PkgConfig::MPICH SUFFIX _mpich LIBRARY canopy-mpi-mpich LAUNCHER ${MPICH_LAUNCHER}
                       FORTRAN ${MPICH_FORTRAN})
  else()
    message(STATUS "MPICH not found (pkg-config mpich and mpiexec.hydra; Debian: mpich libmpich-dev): "
                   "libcanopy-mpi-mpich.so and the MPICH tests are skipped")
  endif()
endif()

# The ASan flavour instruments what includes mpi.h (src/coll except plan/, the test); the
# rest of Canopy is linked uninstrumented (its parsers are fuzzed under ASan) so that the
# subset costs seconds to build. A sanitized or fuzzing build instruments everything already.
if(CANOPY_MPI_ASAN AND CANOPY_BUILD_TESTS AND NOT (CANOPY_SANITIZE OR CANOPY_FUZZ))
  include(CheckCXXSourceCompiles)
  set(_canopy_asan_options -fsanitize=address,undefined -fno-omit-frame-pointer)
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${_canopy_asan_options}")
  set(CMAKE_REQUIRED_LINK_OPTIONS ${_canopy_asan_options})
  check_cxx_source_compiles("int main() { return 0; }" CANOPY_HAVE_ASAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(CANOPY_HAVE_ASAN)
    canopy_mpi_flavour(asan TARGET MPI::MPI_C SUFFIX _asan LAUNCHER ${MPIEXEC_EXECUTABLE} OPTIONS ${_canopy_asan_options})
  else()
    message(STATUS "The compiler cannot build with -fsanitize=address,undefined: the ASan MPI tests are skipped")
  endif()
endif()
