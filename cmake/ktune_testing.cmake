# Test helpers for tests/ and for each family folder's tests/.
#
# Labels (docs/testing.md): quick (seconds; the edit-compile-test loop), cpu (all that CI
# runs without a GPU; quick is part of it), gpu (needs a GPU), sweep (every config of
# every space compiled; only with `ctest -C sweep`, on a machine with many cores).
# GPU programs print "[  SKIPPED ]" with the reason when no GPU is usable; ctest then
# reports them as Skipped, never as Passed.
find_package(GTest REQUIRED)
set(KTUNE_TESTS_DIR ${PROJECT_SOURCE_DIR}/tests)

# ktune_test(name labels sources... [FAMILIES f...])
# KTUNE_QUICK_TESTS_ONLY: only the quick-labelled programs are built (scripts/test_subset.sh,
# whose build runs no others).
option(KTUNE_QUICK_TESTS_ONLY "build only the tests labelled quick" OFF)
function(ktune_test name labels)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "FAMILIES")
  ktune_has_families(ok ${arg_FAMILIES})
  if(NOT ok OR (KTUNE_QUICK_TESTS_ONLY AND NOT labels MATCHES "quick"))
    return()
  endif()
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ktune_tuner GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${KTUNE_TESTS_DIR})
  target_compile_definitions(${name} PRIVATE KTUNE_TEST_DATA_DIR="${KTUNE_TESTS_DIR}/data"
    KTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KTUNE_TEST_TUNER="$<TARGET_FILE:ktune>")
  # KTUNE_HAS_<FAMILY>: a layer's test may check what a built family adds (e.g. the
  # legacy keys it declares) and what a build without it does instead.
  foreach(f ${KTUNE_FAMILIES})
    string(TOUPPER ${f} upper)
    target_compile_definitions(${name} PRIVATE KTUNE_HAS_${upper})
  endforeach()
  ktune_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}"
    ENVIRONMENT "KTUNE_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${name}")
  if(labels STREQUAL "gpu")
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  endif()
endfunction()

# set_tests_properties for a test that may not be defined (KTUNE_QUICK_TESTS_ONLY).
function(ktune_test_properties name)
  if(TEST ${name})
    set_tests_properties(${name} PROPERTIES ${ARGN})
  endif()
endfunction()

# A compile test runs twice: on a covering sample of each space (cpu), and on every
# config (sweep; KTUNE_SWEEP_SHARD=i/n compiles one share, to spread it over machines).
function(ktune_compile_test name source)
  ktune_test(${name} cpu ${source})
  if(NOT TARGET ${name})
    return()
  endif()
  add_test(NAME ${name}_sweep COMMAND ${name} CONFIGURATIONS sweep)
  set_tests_properties(${name}_sweep PROPERTIES LABELS sweep RUN_SERIAL TRUE TIMEOUT 21600
    ENVIRONMENT "KTUNE_COMPILE_SWEEP=1;KTUNE_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${name}_sweep")
endfunction()

# The command line, end to end on temporary databases: a bash script given ktune and its
# arguments; gpu ones exit 77 (SKIPPED) without a GPU.
# ktune_script_test(name labels script args... [FAMILIES f...])
function(ktune_script_test name labels script)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "FAMILIES")
  ktune_has_families(ok ${arg_FAMILIES})
  if(NOT ok)
    return()
  endif()
  add_test(NAME ${name} COMMAND bash ${script} $<TARGET_FILE:ktune> ${arg_UNPARSED_ARGUMENTS})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
endfunction()
