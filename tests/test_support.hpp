#pragma once
// Helpers the test programs share.
#include <ktune/generator/error.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ktune {

// The message of the ktune::Error `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Fails the test unless `call` throws a ktune::Error whose message contains `message`.
inline void expect_error(const std::function<void()>& call, const std::string& message) {
  const std::string e = error_of(call);
  if (e.empty()) ADD_FAILURE() << "accepted; expected: " << message;
  else EXPECT_NE(e.find(message), std::string::npos) << e;
}

// Compiles the instances with NVRTC for sm_90; returns (compiled, "name: error" failures).
inline std::pair<std::size_t, std::vector<std::string>> compile_all(const std::string& source,
                                                                    const std::vector<std::string>& names,
                                                                    const std::string& family) {
  CompilePool pool(source, names, 90, 0, family);
  std::size_t compiled = 0;
  std::vector<std::string> failures;
  while (auto b = pool.next()) {
    for (const auto& u : b->units) compiled += u.entries.size();
    for (const auto& [i, e] : b->errors) failures.push_back(names[i] + ": " + e.substr(0, 2000));
  }
  EXPECT_EQ(compiled + failures.size(), names.size());
  return {compiled, failures};
}

}  // namespace ktune
