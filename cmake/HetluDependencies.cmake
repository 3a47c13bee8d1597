# Every dependency is a Debian package installed by scripts/setup.sh; nothing is downloaded here.
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)

# OpenBLAS provides BLAS, CBLAS and LAPACK; LAPACKE is its C interface (Debian's liblapacke).
find_library(HETLU_OPENBLAS_LIBRARY NAMES openblas REQUIRED)
find_library(HETLU_LAPACKE_LIBRARY NAMES lapacke REQUIRED)
find_path(HETLU_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-openmp openblas REQUIRED)
find_path(HETLU_LAPACKE_INCLUDE_DIR lapacke.h REQUIRED)
add_library(hetlu_blas INTERFACE)
target_include_directories(hetlu_blas INTERFACE ${HETLU_CBLAS_INCLUDE_DIR} ${HETLU_LAPACKE_INCLUDE_DIR})
target_link_libraries(hetlu_blas INTERFACE ${HETLU_LAPACKE_LIBRARY} ${HETLU_OPENBLAS_LIBRARY})

pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(SQLite3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt 9 REQUIRED)
find_package(CLI11 REQUIRED)
if(HETLU_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
