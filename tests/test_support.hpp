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
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
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
  // KTUNE_COMPILE_DUMP=DIR: each unit's CUBIN to DIR/<first kernel's index>.cubin, so
  // scripts/sass_diff.sh can show that a template's rewrite left the machine code as it was.
  // Also the source (DIR/<family>.cu) and each unit's instances (.names), to compare PTX.
  const char* dump = std::getenv("KTUNE_COMPILE_DUMP");
  if (dump) std::ofstream(std::string(dump) + "/" + family + ".cu") << source;
  while (auto b = pool.next()) {
    for (const auto& u : b->units) {
      compiled += u.entries.size();
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

// One kernel of a sample: the index of its space (whose source it is compiled from) and
// its name expression.
struct SampledKernel {
  std::size_t space;
  std::string name;
  bool operator<(const SampledKernel& o) const { return std::tie(space, name) < std::tie(o.space, o.name); }
};

// A covering sample of the spaces' configs together (strength 2: pairwise), each config
// followed by its space's tags and its problem's index as if they were tunables too:
// every value of every tunable is compiled in every space (e.g. each dtype, each layout)
// and for every problem (e.g. each pitch), and every pair of values somewhere, every
// pair of tags too.
inline std::vector<SampledKernel> covering_kernels(const std::vector<CompileSpace>& spaces,
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
  std::set<SampledKernel> kernels;
  for (std::size_t i : covering_sample(configs, strength)) {
    const auto [s, p] = origin[i];
    const CompileSpace& space = spaces[s];
    const Config config(configs[i].begin(), configs[i].end() - static_cast<std::ptrdiff_t>(space.tags.size() + 1));
    kernels.insert({s, instantiate(*space.spec, config, limits, space.problems[p], space.type_argument).name_expression});
  }
  return {kernels.begin(), kernels.end()};
}

// The names of a pairwise covering sample of spaces of one source.
inline std::vector<std::string> sampled_kernels(const std::vector<CompileSpace>& spaces) {
  std::vector<std::string> names;
  for (auto& k : covering_kernels(spaces)) names.push_back(std::move(k.name));
  return names;
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

// The architectures of the tier: every row of the arch table but sm_90 (sm_90 has the
// pairwise sample); KTUNE_ARCH_TIER = a list (sm_89,sm_100) or "0" (none) for quicker
// local runs.
inline std::vector<int> arch_tier() {
  const char* v = std::getenv("KTUNE_ARCH_TIER");
  const std::string text = v ? v : "all";
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

// What an untuned call may run on `arch`, as kernels of the sample: the static model's
// pick at the first problem of the first space, and the description's `@default` config
// where it declares one that is valid there. One problem: ranking a GEMM space takes
// 1.3 s, each dtype on each architecture took gemm's compile test 40 s more.
inline std::vector<SampledKernel> untuned_kernels(const std::vector<CompileSpace>& spaces, const ArchInfo& arch) {
  const CompileSpace& space = spaces.front();
  if (space.problems.empty()) return {};
  const Problem& problem = space.problems.front();
  std::vector<Config> configs;
  if (find_model(*space.spec)) {
    const auto pick = model_pick(*space.spec, arch.limits, problem);
    EXPECT_TRUE(pick.has_value()) << space.label << " on " << arch.name << ": the model picks no config";
    if (pick) configs.push_back(*pick);
  }
  const bool declared = std::any_of(space.spec->directives().begin(), space.spec->directives().end(),
                                    [](const auto& d) { return d.key == "default"; });
  if (declared) {
    const Config fallback = declared_default(*space.spec);
    if (!why_invalid(*space.spec, fallback, arch.limits, problem)) configs.push_back(fallback);
  }
  std::vector<SampledKernel> out;
  for (const Config& c : configs)
    out.push_back({0, instantiate(*space.spec, c, arch.limits, problem, space.type_argument).name_expression});
  return out;
}

// Compiles the kernels for `arch`, a unit of work per source; fails the test on any
// NVRTC error. Returns how many compiled and how many of them spill; names each of
// `picks` that spills (an untuned call would run it, slowly, where a tuning run would
// reject it).
inline std::pair<std::size_t, std::size_t> expect_compile_on_arch(const std::string& label,
                                                                  const std::vector<CompileSpace>& spaces,
                                                                  const std::vector<SampledKernel>& kernels,
                                                                  const ArchInfo& arch,
                                                                  const std::vector<SampledKernel>& picks) {
  const auto first_of_source = [&](std::size_t s) {
    std::size_t first = 0;
    while (spaces[first].source != spaces[s].source) ++first;
    return first;
  };
  std::map<std::size_t, std::set<std::string>> by_source;  // first space of a source -> its kernels
  for (const auto& k : kernels) by_source[first_of_source(k.space)].insert(k.name);
  std::set<std::pair<std::size_t, std::string>> picked;
  for (const auto& k : picks) picked.insert({first_of_source(k.space), k.name});
  std::size_t compiled = 0, spills = 0;
  for (const auto& [s, set] : by_source) {
    const std::vector<std::string> names(set.begin(), set.end());
    CompilePool pool(spaces[s].source, names, arch.arch, 0, spaces[s].spec->family());
    while (auto b = pool.next()) {
      for (const auto& u : b->units)
        for (const auto& [i, lowered] : u.entries) {
          ++compiled;
          const auto res = cubin_resources(u.cubin, lowered);
          const bool spilled = res && res->frame_bytes > 0;
          spills += spilled;
          if (spilled && picked.count({s, names[i]}))
            std::printf("%s on %s: an untuned config spills %u bytes: %s\n", label.c_str(), arch.name.c_str(),
                        static_cast<unsigned>(res->frame_bytes), names[i].c_str());
        }
      for (const auto& [i, e] : b->errors)
        ADD_FAILURE() << label << " on " << arch.name << ": " << names[i] << ": " << e.substr(0, 2000);
    }
  }
  return {compiled, spills};
}

// The architecture tier, once a template: for each architecture of arch_tier(), a sample
// of all its spaces together as that architecture's limits admit them, in which every
// value of every tunable, every tag (each space's dtype among them, added where the
// caller's tags lack it) and every problem index appears at least once (strength 1), and
// the untuned configs (untuned_kernels), compiled for it. Fails on a config that does not
// compile or when the model picks nothing; reports how many spill (the tuner rejects
// those on such a GPU) and names the untuned ones that do.
inline std::size_t expect_template_compiles_on_archs(const std::string& label, std::vector<CompileSpace> spaces) {
  for (auto& s : spaces) {
    const std::string dtype(to_string(s.problems.front().dtype));
    if (std::find(s.tags.begin(), s.tags.end(), dtype) == s.tags.end()) s.tags.push_back(dtype);
  }
  std::size_t compiled = 0;
  for (const int a : arch_tier()) {
    const ArchInfo& arch = arch_info(a);
    auto kernels = covering_kernels(spaces, arch.limits, 1);
    const auto picks = untuned_kernels(spaces, arch);
    kernels.insert(kernels.end(), picks.begin(), picks.end());
    const auto [n, spills] = expect_compile_on_arch(label, spaces, kernels, arch, picks);
    std::printf("%s on %s: %zu kernels compiled (the untuned ones among them), %zu spill\n", label.c_str(),
                arch.name.c_str(), n, spills);
    compiled += n;
  }
  std::fflush(stdout);
  return compiled;
}

// Spaces of one template (same source) for sm_90: in a sweep every config of each, else
// one pairwise covering sample of them all (sampled_kernels). Returns how many compiled.
// The other architectures: expect_template_compiles_on_archs, once a template.
inline std::size_t expect_spaces_compile(const std::string& label, const std::vector<CompileSpace>& spaces) {
  if (!compile_sweep()) {
    const std::string what = spaces.size() == 1 ? label : label + " (" + std::to_string(spaces.size()) + " spaces sampled together)";
    return expect_kernels_compile(what, spaces.front(), sampled_kernels(spaces));
  }
  std::size_t compiled = 0;
  for (const auto& space : spaces) compiled += expect_kernels_compile(space.label, space, swept_kernels(space));
  return compiled;
}

inline std::size_t expect_space_compiles(const CompileSpace& space) { return expect_spaces_compile(space.label, {space}); }

}  // namespace ktune
