// The compile pipeline (NVRTC, the compile pool, the binary store) on transpose
// instances: needs no GPU.
#include <ktune/error.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/generator/arch_table.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/runtime/pitched_copy.hpp>
#include <ktune/runtime/program_store.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("transpose"); }

// An empty folder of this process for a test's databases.
std::filesystem::path fresh_dir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() / ("ktune-" + tag + "-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// A 512 x 512 f32 transpose and its space.
const Problem k_square{DType::f32, {{"rows", 512}, {"cols", 512}, {"align", 4}, {"copy_align", 0}}};
const std::vector<Config>& square_configs() {
  static const std::vector<Config> configs = enumerate(spec(), DeviceLimits{}, k_square);
  return configs;
}

// The runtime's pitched copy kernels (misaligned GEMM operands) compile for every
// architecture of the table, each kernel found by its name.
TEST(NvrtcCompile, PitchedCopyCompilesForEveryArchitecture) {
  for (const ArchInfo& arch : arch_table()) {
    const CompileOutput out =
        compile_cubin(PitchedCopy::source(), PitchedCopy::kernel_names(), arch.arch, "pitched copy");
    EXPECT_FALSE(out.cubin.empty()) << arch.name;
    EXPECT_EQ(out.lowered_names, PitchedCopy::kernel_names()) << arch.name;  // extern "C": names as written
  }
}

TEST(NvrtcCompile, StoredProgramsAreNotCompiledAgain) {
  const auto dir = fresh_dir("store");
  Database db(dir / "tuning.db");
  const auto& configs = square_configs();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += configs.size() / 12)
    names.push_back(instantiate(spec(), configs[i], DeviceLimits{}, k_square).name_expression);
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

// A kernel compiled in one program serves whatever needs it later (another problem's
// batch, the runtime's single instance): load_stored finds the program that holds it,
// and a batch mixing compiled and new kernels compiles only the new ones, together.
TEST(NvrtcCompile, KernelsCompiledInOneProgramServeLaterBatches) {
  const auto dir = fresh_dir("kernels");
  Database db(dir / "programs.db");
  const auto& configs = square_configs();
  std::vector<std::string> n;  // six distinct kernels
  for (std::size_t i = 0; n.size() < 6; i += configs.size() / 7)
    n.push_back(instantiate(spec(), configs[i], DeviceLimits{}, k_square).name_expression);
  const std::string& source = spec().source();
  const Program first = load_or_compile(&db, source, {n[0], n[1], n[2]}, 90, "transpose");
  EXPECT_FALSE(first.stored);
  const auto one = load_stored(&db, source, {n[1]}, 90);
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->stored);
  EXPECT_EQ(one->entries, std::vector<std::string>{first.entries[1]});
  EXPECT_EQ(one->cubin, first.cubin);
  EXPECT_FALSE(load_stored(&db, source, {n[5]}, 90));  // never compiled
  EXPECT_FALSE(load_stored(nullptr, source, {n[1]}, 90));

  CompilePool pool(source, {n[1], n[3], n[2], n[4]}, 90, 1, "transpose", &db, 4);
  const auto batch = pool.next();
  ASSERT_TRUE(batch);
  EXPECT_FALSE(pool.next());
  EXPECT_TRUE(batch->errors.empty());
  ASSERT_EQ(batch->units.size(), 2u);  // the first program once, and one new program
  std::map<std::size_t, std::string> lowered;
  for (const auto& u : batch->units) {
    std::set<std::size_t> candidates;
    for (const auto& [i, l] : u.entries) candidates.insert(i), lowered[i] = l;
    const std::set<std::size_t> expected = u.stored ? std::set<std::size_t>{0, 2} : std::set<std::size_t>{1, 3};
    EXPECT_EQ(candidates, expected);
    EXPECT_EQ(u.stored, u.cubin == first.cubin);
  }
  EXPECT_EQ(lowered.at(0), first.entries[1]);
  EXPECT_EQ(lowered.at(2), first.entries[2]);
  // The new program's kernels are located too, and a batch of exactly its kernels
  // reads it whole.
  EXPECT_TRUE(load_stored(&db, source, {n[4]}, 90));
  EXPECT_TRUE(load_stored(&db, source, {n[3], n[4]}, 90));
  // A location whose program no longer holds the kernel (replaced, say) is a miss.
  db.put_binary(binary_key(source, {n[0], n[1], n[2]}, 90), {"not that program", "_Z5otherv"});
  EXPECT_FALSE(load_stored(&db, source, {n[1]}, 90));
  std::filesystem::remove_all(dir);
}

// Candidates with one name expression (configs that differ in runtime tunables only)
// are compiled once and each is delivered with that kernel; a failing name fails all
// of its candidates.
TEST(NvrtcCompile, EqualNamesCompileOnce) {
  const std::string a = instantiate(spec(), declared_default(spec()), DeviceLimits{}, k_square).name_expression;
  const std::string b = instantiate(spec(), square_configs().back(), DeviceLimits{}, k_square).name_expression;
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
  const auto dir = fresh_dir("program");
  const Problem p{DType::f32, {{"rows", 100}, {"cols", 100}, {"align", 4}, {"copy_align", 0}}};
  const std::string name = instantiate(spec(), declared_default(spec()), DeviceLimits{}, p).name_expression;
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
