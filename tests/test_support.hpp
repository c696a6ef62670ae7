#pragma once
// Helpers the test programs share.
#include <ktune/error.hpp>
#include <ktune/generator/arch_table.hpp>
#include <ktune/generator/family_model.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/runtime/cubin_info.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

// Compiles the instances with NVRTC for `arch`; returns (compiled, "name: error"
// failures). `spills`, when given, counts the instances that keep data in local memory.
inline std::pair<std::size_t, std::vector<std::string>> compile_all(const std::string& source,
                                                                    const std::vector<std::string>& names,
                                                                    const std::string& family, int arch = 90,
                                                                    std::size_t* spills = nullptr) {
  CompilePool pool(source, names, arch, 0, family);
  std::size_t compiled = 0;
  std::vector<std::string> failures;
  // KTUNE_COMPILE_DUMP=DIR: each unit's CUBIN to DIR/<first kernel's index>.cubin, so
  // scripts/sass_diff.sh can show that a template's rewrite left the machine code as it was.
  // Also the source (DIR/<family>.cu) and each unit's instances (.names), to compare PTX.
  const char* dump = std::getenv("KTUNE_COMPILE_DUMP");
  if (dump) std::ofstream(std::string(dump) + "/" + family + ".cu") << source;
  while (auto b = pool.next()) {
    for (const auto& u : b->units) {
      compiled += u.entries.size();
      if (spills)
        for (const auto& [i, lowered] : u.entries)
          if (const auto res = cubin_resources(u.cubin, lowered); res && res->frame_bytes > 0) ++*spills;
      if (!dump || u.entries.empty()) continue;
      const std::string stem = std::string(dump) + "/" + family + "-" + std::to_string(u.entries.front().first);
      std::ofstream(stem + ".cubin", std::ios::binary) << u.cubin;
      std::ofstream list(stem + ".names");
      for (const auto& [i, lowered] : u.entries) list << names[i] << "\n";
    }
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
  // What sets it apart among spaces sampled together (e.g. dtype and layout); as many
  // in each of them.
  std::vector<std::string> tags = {};
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

// Every config of the space (its problems' together), then this process's shard.
inline std::vector<std::string> swept_kernels(const CompileSpace& space) {
  std::set<std::string> names;
  for (const Problem& p : space.problems)
    for (const Config& c : enumerate(*space.spec, DeviceLimits{}, p))
      names.insert(instantiate(*space.spec, c, DeviceLimits{}, p, space.type_argument).name_expression);
  const auto [shard, shards] = sweep_shard();
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& n : names)
    if (i++ % shards == shard) out.push_back(n);
  return out;
}

// A pairwise covering sample of the spaces' configs together, each config followed by
// its space's tags and its problem's index as if they were tunables too: every value of
// every tunable is compiled in every space (e.g. each dtype, each layout) and for every
// problem (e.g. each pitch), and every pair of values somewhere, every pair of tags too.
inline std::vector<std::string> sampled_kernels(const std::vector<CompileSpace>& spaces,
                                                const DeviceLimits& limits = DeviceLimits{}, int strength = 2) {
  std::vector<Config> configs;
  std::vector<std::pair<std::size_t, std::size_t>> origin;  // (space, problem) of each
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    EXPECT_EQ(spaces[s].tags.size(), spaces.front().tags.size()) << spaces[s].label;
    for (std::size_t p = 0; p < spaces[s].problems.size(); ++p) {
      const auto problem_configs = enumerate(*spaces[s].spec, limits, spaces[s].problems[p]);
      EXPECT_FALSE(problem_configs.empty()) << spaces[s].label << ": empty space";
      for (const Config& c : problem_configs) {
        configs.push_back(c);
        for (const auto& tag : spaces[s].tags) configs.back().emplace_back(tag);
        configs.back().emplace_back(std::in_place_type<std::int64_t>, static_cast<std::int64_t>(p));
        origin.emplace_back(s, p);
      }
    }
  }
  std::set<std::string> names;
  for (std::size_t i : covering_sample(configs, strength)) {
    const CompileSpace& space = spaces[origin[i].first];
    const Config config(configs[i].begin(), configs[i].end() - static_cast<std::ptrdiff_t>(space.tags.size() + 1));
    names.insert(instantiate(*space.spec, config, limits, space.problems[origin[i].second], space.type_argument)
                     .name_expression);
  }
  return {names.begin(), names.end()};
}

// Compiles kernels of one template for sm_90 and fails the test on any NVRTC error;
// returns how many compiled.
inline std::size_t expect_kernels_compile(const std::string& label, const CompileSpace& space,
                                          const std::vector<std::string>& names) {
  const auto [compiled, failures] = compile_all(space.source, names, space.spec->family());
  EXPECT_TRUE(failures.empty()) << label << ": " << failures.size() << " of " << names.size()
                                << " failed, first: " << failures.front();
  std::printf("%s: %zu kernels compiled%s\n", label.c_str(), compiled, compile_sweep() ? " (sweep)" : "");
  std::fflush(stdout);  // a sweep stopped part-way still records the spaces it finished
  return compiled;
}

// The architectures of the tier: KTUNE_ARCH_TIER = a list (sm_89,sm_100), "all" (every
// row of the table but sm_90), "0" (none); unset: sm_80 and sm_120, the oldest and the
// newest ISA and the two shared-memory sizes besides sm_90's (what CI's 15 minutes allow).
inline std::vector<int> arch_tier() {
  const char* v = std::getenv("KTUNE_ARCH_TIER");
  const std::string text = v ? v : "sm_80,sm_120";
  std::vector<int> out;
  if (text == "0") return out;
  if (text == "all") {
    for (const ArchInfo& a : arch_table())
      if (a.arch != 90) out.push_back(a.arch);
    return out;
  }
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(parse_arch(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return out;
}

// The static model picks a config on `arch` at the first problem of the first space
// where the template has a model (else the untuned call would have no config there). One
// problem: every problem on every architecture took GEMM's compile test 13 minutes.
inline void expect_model_pick(const std::vector<CompileSpace>& spaces, const ArchInfo& arch) {
  const CompileSpace& space = spaces.front();
  if (!find_model(*space.spec) || space.problems.empty()) return;
  EXPECT_TRUE(model_pick(*space.spec, arch.limits, space.problems.front()).has_value())
      << space.label << " on " << arch.name << ": the model picks no config";
}

// The architecture tier: for each architecture of arch_tier(), a sample of the spaces
// as that architecture's limits admit them that takes every value of every tunable (and
// every space and problem) at least once (strength 1), compiled for it, and the model's
// pick there (ranked, not compiled: the sample covers its values; ranking a GEMM space
// takes about 1.5 s, so once a template and process). Reports the configs that spill
// there (the tuner would reject them on such a GPU).
inline std::size_t expect_spaces_compile_for_archs(const std::string& label, const std::vector<CompileSpace>& spaces) {
  static std::set<const KernelSpec*> ranked;
  const bool rank = ranked.insert(spaces.front().spec).second;
  std::size_t compiled = 0;
  for (const int a : arch_tier()) {
    const ArchInfo& arch = arch_info(a);
    if (rank) expect_model_pick(spaces, arch);
    const auto names = sampled_kernels(spaces, arch.limits, 1);
    std::size_t spills = 0;
    const auto [n, failures] = compile_all(spaces.front().source, names, spaces.front().spec->family(), arch.arch, &spills);
    EXPECT_TRUE(failures.empty()) << label << " on " << arch.name << ": " << failures.size() << " of " << names.size()
                                  << " failed, first: " << failures.front();
    std::printf("%s on %s: %zu kernels compiled, %zu spill\n", label.c_str(), arch.name.c_str(), n, spills);
    compiled += n;
  }
  std::fflush(stdout);
  return compiled;
}

// Spaces of one template (same source): in a sweep every config of each, else one
// pairwise covering sample of them all (sampled_kernels) and the architecture tier.
// Returns how many compiled.
inline std::size_t expect_spaces_compile(const std::string& label, const std::vector<CompileSpace>& spaces) {
  if (!compile_sweep()) {
    const std::string what = spaces.size() == 1 ? label : label + " (" + std::to_string(spaces.size()) + " spaces sampled together)";
    return expect_kernels_compile(what, spaces.front(), sampled_kernels(spaces)) +
           expect_spaces_compile_for_archs(what, spaces);
  }
  std::size_t compiled = 0;
  for (const auto& space : spaces) compiled += expect_kernels_compile(space.label, space, swept_kernels(space));
  return compiled;
}

inline std::size_t expect_space_compiles(const CompileSpace& space) { return expect_spaces_compile(space.label, {space}); }

}  // namespace ktune
