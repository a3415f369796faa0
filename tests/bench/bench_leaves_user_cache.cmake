# SPDX-License-Identifier: MIT
# The bench times gaplens-cli reading exports: it must run it with --no-cache, or every run
# after the first maps a cache entry (and reports a figure for a read that never happened)
# and writes into the user's cache folder. Runs `gaplens-bench --split` on a tiny generated
# capture with XDG_CACHE_HOME pointed at an empty folder, and checks that the end-to-end rows
# were measured and that the folder is still empty. Asserts no figure.
# Usage: cmake -DBENCH=... -DWORK=... -P bench_leaves_user_cache.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/cache")
set(ENV{XDG_CACHE_HOME} "${WORK}/cache")
execute_process(
  COMMAND "${BENCH}" --ranks 1 --kernels 2000 --runtime 4000 --nvtx 8000 --split --runs 2 --dir "${WORK}/capture"
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "gaplens-bench --split failed (${result}):\n${out}\n${err}")
endif()
foreach(format table json)
  if(NOT out MATCHES "cli gaps --no-cache --format ${format}, 2 threads")
    message(FATAL_ERROR "gaplens-bench --split printed no end-to-end ${format} row:\n${out}")
  endif()
endforeach()
file(GLOB_RECURSE written LIST_DIRECTORIES true "${WORK}/cache/*")
if(written)
  message(FATAL_ERROR "gaplens-bench wrote into the user's cache folder: ${written}")
endif()
file(REMOVE_RECURSE "${WORK}")
