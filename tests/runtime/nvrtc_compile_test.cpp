// Compiles transpose configs with NVRTC for sm_90: needs no GPU, runs in CI.
#include <ktune/generator/error.hpp>
#include <ktune/generator/transpose_family.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("transpose"); }

// Compiles `configs` (every stride-th one) and returns the failures.
std::vector<std::string> compile_all(DType dtype, std::int64_t align, std::size_t stride, std::size_t* count) {
  const Problem p{dtype, {{"rows", 8192}, {"cols", 2048}, {"align", align}}};
  const auto configs = enumerate(spec(), DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += stride)
    names.push_back(instantiate(spec(), configs[i], DeviceLimits{}, p).name_expression);
  CompilePool pool(spec().source(), names, 90, 0, "transpose");
  std::vector<std::string> failures;
  std::size_t compiled = 0;
  while (auto b = pool.next()) {
    for (const auto& u : b->units) {
      EXPECT_FALSE(u.cubin.empty());
      for (const auto& [i, lowered] : u.entries) {
        EXPECT_EQ(lowered.rfind("_Z15ktune_transpose", 0), 0u) << lowered;
        ++compiled;
      }
    }
    for (const auto& [i, e] : b->errors) failures.push_back(names[i] + ": " + e);
  }
  *count = compiled;
  EXPECT_EQ(compiled + failures.size(), names.size());
  return failures;
}

TEST(NvrtcCompile, EveryF32ConfigCompilesForSm90) {
  std::size_t n = 0;
  const auto failures = compile_all(DType::f32, 4, 1, &n);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
  EXPECT_GE(n, 300u);
}

TEST(NvrtcCompile, EveryRealignedConfigCompiles) {
  // Realigned configs exist only where pointers or pitches are not 16-byte aligned.
  for (DType dtype : {DType::f32, DType::f64}) {
    const Problem p{dtype, {{"rows", 8191}, {"cols", 4097}, {"align", 1}}};
    std::vector<std::string> names;
    for (const auto& c : enumerate(spec(), DeviceLimits{}, p))
      if (std::get<std::int64_t>(c.back()) == 1) names.push_back(instantiate(spec(), c, DeviceLimits{}, p).name_expression);
    EXPECT_GE(names.size(), 20u) << to_string(dtype);
    CompilePool pool(spec().source(), names, 90, 0, "transpose");
    std::size_t compiled = 0;
    while (auto b = pool.next()) {
      for (const auto& u : b->units) compiled += u.entries.size();
      for (const auto& [i, e] : b->errors) ADD_FAILURE() << names[i] << ": " << e;
    }
    EXPECT_EQ(compiled, names.size());
  }
}

TEST(NvrtcCompile, SampleOfOtherElementSizesCompiles) {
  for (auto [dtype, align] : {std::pair{DType::u8, 16}, {DType::f16, 8}, {DType::f64, 2}}) {
    std::size_t n = 0;
    const auto failures = compile_all(dtype, align, 9, &n);
    EXPECT_TRUE(failures.empty()) << to_string(dtype) << ": " << failures.front();
    EXPECT_GE(n, 30u);
  }
}

TEST(NvrtcCompile, StoredProgramsAreNotCompiledAgain) {
  const auto dir = std::filesystem::temp_directory_path() / ("ktune-store-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Database db(dir / "tuning.db");
  const Problem p{DType::f32, {{"rows", 512}, {"cols", 512}, {"align", 4}}};
  const auto configs = enumerate(spec(), DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += configs.size() / 12)
    names.push_back(instantiate(spec(), configs[i], DeviceLimits{}, p).name_expression);
  std::map<std::size_t, std::string> first, second;
  std::size_t compiled = 0, stored = 0;
  for (auto* lowered : {&first, &second}) {
    CompilePool pool(spec().source(), names, 90, 2, "transpose", &db);
    while (auto b = pool.next())
      for (const auto& u : b->units) {
        (u.stored ? stored : compiled) += u.entries.size();
        for (const auto& [i, l] : u.entries) (*lowered)[i] = l;
      }
  }
  EXPECT_EQ(compiled, names.size());  // first pass compiles everything...
  EXPECT_EQ(stored, names.size());    // ...the second compiles nothing
  EXPECT_EQ(first, second);
  std::filesystem::remove_all(dir);
}

// Candidates with one name expression (configs that differ in runtime tunables only)
// are compiled once and each is delivered with that kernel; a failing name fails all
// of its candidates.
TEST(NvrtcCompile, EqualNamesCompileOnce) {
  const Problem p{DType::f32, {{"rows", 512}, {"cols", 512}, {"align", 4}}};
  const std::string a = instantiate(spec(), transpose_default_config(spec()), DeviceLimits{}, p).name_expression;
  const std::string b = instantiate(spec(), enumerate(spec(), DeviceLimits{}, p).back(), DeviceLimits{}, p).name_expression;
  ASSERT_NE(a, b);
  const std::string bad = "ktune_transpose<unsigned int, 3>";
  const std::vector<std::string> names{a, b, a, bad, a, bad};
  CompilePool pool(spec().source(), names, 90, 2, "transpose", nullptr, 8);
  EXPECT_EQ(pool.kernel_count(), 3u);
  std::map<std::size_t, std::string> lowered;
  std::set<std::size_t> failed;
  while (auto batch = pool.next()) {
    for (const auto& u : batch->units)
      for (const auto& [i, l] : u.entries) EXPECT_TRUE(lowered.emplace(i, l).second) << i;
    for (const auto& [i, e] : batch->errors) EXPECT_TRUE(failed.insert(i).second) << i;
  }
  EXPECT_EQ(lowered.size(), 4u);
  EXPECT_EQ(lowered.at(0), lowered.at(2));
  EXPECT_EQ(lowered.at(0), lowered.at(4));
  EXPECT_NE(lowered.at(0), lowered.at(1));
  EXPECT_EQ(failed, (std::set<std::size_t>{3, 5}));
}

// The runtime's path: one instance, loaded from the store once it is there, compiled
// without a store, and a read-only store that cannot take it costs nothing but a compile.
TEST(NvrtcCompile, LoadOrCompileSingleInstance) {
  const auto dir = std::filesystem::temp_directory_path() / ("ktune-program-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const Problem p{DType::f32, {{"rows", 100}, {"cols", 100}, {"align", 4}}};
  const std::string name = instantiate(spec(), transpose_default_config(spec()), DeviceLimits{}, p).name_expression;
  const Program plain = load_or_compile(nullptr, spec().source(), {name}, 90, "transpose");
  EXPECT_FALSE(plain.stored);
  ASSERT_EQ(plain.entries.size(), 1u);
  {
    Database db(dir / "tuning.db");
    EXPECT_FALSE(load_or_compile(&db, spec().source(), {name}, 90, "transpose").stored);
    const Program again = load_or_compile(&db, spec().source(), {name}, 90, "transpose");
    EXPECT_TRUE(again.stored);
    EXPECT_EQ(again.entries, plain.entries);
    EXPECT_EQ(again.cubin.size(), plain.cubin.size());
  }
  Database read_only(dir / "tuning.db", true);
  const std::string other = instantiate(spec(), enumerate(spec(), DeviceLimits{}, p).front(), DeviceLimits{}, p).name_expression;
  EXPECT_FALSE(load_or_compile(&read_only, spec().source(), {other}, 90, "transpose").stored);
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompile, ErrorsCarryProgramOptionsAndLog) {
  try {
    compile_cubin("__global__ void k() { this is not cuda; }", {"k"}, 90, "broken");
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken"), std::string::npos) << what;
    EXPECT_NE(what.find("--gpu-architecture=sm_90"), std::string::npos) << what;
    EXPECT_NE(what.find("error"), std::string::npos) << what;  // NVRTC's log
  }
}

TEST(NvrtcCompile, BinaryKeyChangesWithEveryInput) {
  const std::string k = binary_key("src", {"a<1>"}, 90);
  EXPECT_EQ(k, binary_key("src", {"a<1>"}, 90));
  EXPECT_NE(k, binary_key("src2", {"a<1>"}, 90));
  EXPECT_NE(k, binary_key("src", {"a<2>"}, 90));
  EXPECT_NE(k, binary_key("src", {"a<1>"}, 80));
}

}  // namespace
}  // namespace ktune
