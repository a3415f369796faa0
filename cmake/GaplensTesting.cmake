# SPDX-License-Identifier: MIT
# gaplens_add_test(NAME n SOURCES ... LIBS ... LABELS ...): one Qt Test executable per test,
# run offscreen with the real exports' folder passed in the environment.
# Each test's time limit; the asan-ubsan preset raises it, its tests run up to 30x slower.
set(GAPLENS_TEST_TIMEOUT 300 CACHE STRING "Time limit of each test, in seconds")

function(gaplens_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  set_target_properties(${T_NAME} PROPERTIES AUTOMOC ON)
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test gaplens_testsupport ${T_LIBS} gaplens_warnings)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "${T_LABELS}"
    TIMEOUT ${GAPLENS_TEST_TIMEOUT}
    # gaplens-cli keeps a report cache: the tests' goes in the build tree, not the home folder.
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_SCALE_FACTOR=1;GAPLENS_REAL_DATA_DIR=${GAPLENS_REAL_DATA_DIR};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache;GAPLENS_CACHE_MAX_GIB=2")
endfunction()

# Adds one test per tst_*.cpp file in the calling folder.
function(gaplens_add_tests_in_folder)
  cmake_parse_arguments(F "" "" "LIBS;LABELS" ${ARGN})
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tst_*.cpp)
  foreach(src ${tests})
    get_filename_component(name ${src} NAME_WE)
    gaplens_add_test(NAME ${name} SOURCES ${src} LIBS ${F_LIBS} LABELS ${F_LABELS})
  endforeach()
endfunction()
