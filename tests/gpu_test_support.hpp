#pragma once
#include <ktune/runtime/driver.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

// GPU tests skip loudly (reason on stderr and in the gtest SKIPPED line, which ctest
// turns into "Skipped") when no driver or device is usable; they never pass silently.
#define KTUNE_REQUIRE_GPU()                                                        \
  do {                                                                             \
    std::string ktune_why_;                                                        \
    if (!::ktune::driver::available(&ktune_why_)) {                                \
      std::fprintf(stderr, "*** ktune: SKIPPING GPU test: %s\n", ktune_why_.c_str()); \
      GTEST_SKIP() << "no GPU: " << ktune_why_;                                     \
    }                                                                              \
  } while (0)
