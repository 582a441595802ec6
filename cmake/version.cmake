# Writes OUT (rocesim_version.h) with `git describe --always --dirty` of SRC,
# or "unknown" outside git, and the version number NUMBER (CMakeLists.txt's
# project VERSION); rewritten only when it changes, so an unchanged tree
# rebuilds nothing. Run at every build (see CMakeLists.txt).
execute_process(COMMAND git -C "${SRC}" describe --always --dirty
                OUTPUT_VARIABLE v OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR v STREQUAL "")
  set(v "unknown")
endif()
set(text "#define ROCESIM_VERSION \"${v}\"\n#define ROCESIM_VERSION_NUMBER \"${NUMBER}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
