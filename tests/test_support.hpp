#pragma once
// Helpers the test programs share.
#include <ktune/error.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
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

// One space of a family for the compile tests: its source, its problems (e.g. aligned
// and odd pitches, which admit different vector widths) and the template's type argument.
struct CompileSpace {
  std::string label;  // for messages, e.g. "gemm f16 tn"
  const KernelSpec* spec;
  std::string source;
  std::vector<Problem> problems;
  std::string type_argument;  // empty: the dtype's bits type
};

// True when KTUNE_COMPILE_SWEEP=1 (the `sweep` ctest label): compile every config.
inline bool compile_sweep() {
  const char* v = std::getenv("KTUNE_COMPILE_SWEEP");
  return v && std::string(v) == "1";
}

// KTUNE_SWEEP_SHARD=i/n: this process compiles the i-th of n shares of each space's
// kernels, so a sweep can be spread over processes or machines. {0, 1} when unset.
inline std::pair<std::size_t, std::size_t> sweep_shard() {
  const char* v = std::getenv("KTUNE_SWEEP_SHARD");
  if (!v) return {0, 1};
  unsigned long i = 0, n = 0;
  char tail = 0;
  if (std::sscanf(v, "%lu/%lu%c", &i, &n, &tail) != 2 || n == 0 || i >= n)
    throw Error(std::string("KTUNE_SWEEP_SHARD must be i/n with 0 <= i < n, not '") + v + "'");
  return {i, n};
}

// The distinct kernels the compile tests compile for a space: by default the first
// config and a pairwise covering sample (every value of every tunable, and every pair of
// values of two tunables that the space holds together) of each problem; in a sweep
// every config, then this process's shard.
inline std::vector<std::string> kernels_to_compile(const CompileSpace& space) {
  std::set<std::string> names;
  for (const Problem& p : space.problems) {
    const auto configs = enumerate(*space.spec, DeviceLimits{}, p);
    EXPECT_FALSE(configs.empty()) << space.label << ": empty space";
    std::vector<std::size_t> picks;
    if (compile_sweep())
      for (std::size_t i = 0; i < configs.size(); ++i) picks.push_back(i);
    else if (!configs.empty())
      picks = covering_sample(configs, 2), picks.push_back(0);
    for (std::size_t i : picks)
      names.insert(instantiate(*space.spec, configs[i], DeviceLimits{}, p, space.type_argument).name_expression);
  }
  const auto [shard, shards] = compile_sweep() ? sweep_shard() : std::pair<std::size_t, std::size_t>{0, 1};
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& n : names)
    if (i++ % shards == shard) out.push_back(n);
  return out;
}

// Compiles a space's kernels (see kernels_to_compile) for sm_90 and fails the test on
// any NVRTC error; returns how many kernels compiled.
inline std::size_t expect_space_compiles(const CompileSpace& space) {
  const auto names = kernels_to_compile(space);
  const auto [compiled, failures] = compile_all(space.source, names, space.spec->family());
  EXPECT_TRUE(failures.empty()) << space.label << ": " << failures.size() << " of " << names.size()
                                << " failed, first: " << failures.front();
  std::printf("%s: %zu kernels compiled%s\n", space.label.c_str(), compiled, compile_sweep() ? " (sweep)" : "");
  std::fflush(stdout);  // a sweep stopped part-way still records the spaces it finished
  return compiled;
}

}  // namespace ktune
