# The runtime-only build (-DPLACER_RUNTIME_ONLY=ON): libplacer_rt, the plain
# C++ runtime library (PlacerArtifactRuntime) and a placer-run that runs
# artifact folders written by the full build (docs/Execution.md, "A runtime
# apart from the compiler"). Same sources as the full build, no compiler.
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/PlacerUtils.cmake)

# Optional: without MPI, whole programs run and split ones are refused.
find_package(MPI COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(STATUS "MPI not found: the runtime runs whole programs only")
endif()

add_compile_options(-fno-exceptions -Wall -Wno-unused-parameter)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/lib)
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/lib)

add_subdirectory(lib/Runtime)
add_subdirectory(tools/placer-run)
# The GPU tests (ctest -L gpu): what a GPU machine runs (scripts/gpu-check.sh).
enable_testing()
add_subdirectory(test/Runtime/Gpu)
install(TARGETS placer_rt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
