# Helpers shared by Placer's CMake files.

# Every Placer library is a plain static library linked against the shared
# libMLIR / libLLVM, installed and exported under Placer::.
function(placer_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  set_property(GLOBAL APPEND PROPERTY PLACER_EXPORTED_LIBS ${name})
endfunction()

# ONNX's headers (schema registry, shape inference) throw. Libraries that
# include them are compiled with exceptions and catch everything at their
# boundary, so no exception ever crosses into LLVM/MLIR code.
function(placer_enable_exceptions name)
  target_compile_options(${name} PRIVATE -fexceptions)
endfunction()
