# HETLU_WITH_MPI: AUTO builds the distributed layer (distributed/, #18) when MPI and ScaLAPACK
# (Debian's openmpi and libscalapack-openmpi-dev, which scripts/setup.sh installs) are found; ON
# requires them; OFF leaves it out.
set(HETLU_WITH_MPI AUTO CACHE STRING "Build the distributed layer (MPI + ScaLAPACK): AUTO, ON or OFF")
set_property(CACHE HETLU_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set(HETLU_MPI_ENABLED OFF)
if(NOT HETLU_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS CXX QUIET)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(SCALAPACK QUIET IMPORTED_TARGET scalapack-openmpi)
  endif()
  if(MPI_CXX_FOUND AND SCALAPACK_FOUND)
    set(HETLU_MPI_ENABLED ON)
    find_program(HETLU_MPIEXEC NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
  elseif(HETLU_WITH_MPI STREQUAL "ON")
    message(FATAL_ERROR "HETLU_WITH_MPI=ON but MPI or ScaLAPACK (scalapack-openmpi) was not found")
  endif()
endif()
