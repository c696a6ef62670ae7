// A user's kernel description: parsing, problem binding, keys, instantiation; and the
// runtime's ktune::Kernel refusing what does not match the description (no GPU needed).
#include <ktune/error.hpp>
#include <ktune/generator/user_kernel.hpp>
#include <ktune/ktune.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ktune {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string k_stencil = std::string(KTUNE_SOURCE_DIR) + "/examples/stencil/jacobi.cu";
const std::string k_scale = std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/scale.cu";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(UserKernel, ParsesTheStencilDeclaration) {
  const auto k = load_user_kernel(k_stencil);
  EXPECT_EQ(k->spec.family(), "jacobi");
  EXPECT_EQ(k->variables, (std::vector<std::string>{"nx", "ny"}));
  ASSERT_EQ(k->args.size(), 4u);
  EXPECT_EQ(k->args[0].role, KernelArg::Role::out);
  EXPECT_EQ(k->args[0].type, "T");
  EXPECT_EQ(k->args[1].role, KernelArg::Role::in);
  EXPECT_EQ(k->args[2].role, KernelArg::Role::scalar);
  EXPECT_EQ(k->args[2].value, "nx");
  EXPECT_EQ(k->reference, "jacobi_reference");
  EXPECT_TRUE(k->tolerance.exact());
  EXPECT_EQ(k->spec.type_choices(), (std::vector<DType>{DType::f32, DType::f64}));
}

TEST(UserKernel, ProblemKeysAndInstances) {
  const auto k = load_user_kernel(k_stencil);
  const UserProblem p = bind_user_problem(*k, {"ny=999", "nx=1001", "T=f64"});
  EXPECT_EQ(p.values, (std::vector<std::int64_t>{1001, 999}));  // declaration order
  EXPECT_EQ(p.type, DType::f64);
  const TuningProblem t = user_tuning_problem(*k, p);
  EXPECT_EQ(t.family(), "jacobi");
  EXPECT_EQ(t.variant, k->spec.source_hash());  // two files with one kernel name never share records
  EXPECT_EQ(t.dtype_key, "f64");
  EXPECT_EQ(t.shape, (std::vector<std::int64_t>{1001, 999}));
  EXPECT_EQ(arg_values(*k, p), (std::vector<double>{1001.0 * 999, 1001.0 * 999, 1001, 999}));
  const auto configs = enumerate(k->spec, DeviceLimits{}, t.problem);
  ASSERT_FALSE(configs.empty());
  const Instance inst = instantiate(k->spec, configs.front(), DeviceLimits{}, t.problem, t.type_argument);
  EXPECT_EQ(inst.name_expression.rfind("jacobi_step<double, ", 0), 0u) << inst.name_expression;
  EXPECT_EQ(t.default_config, configs.front());  // no trusted config: the first valid one
  // The trusted config of a kernel that has one is its default.
  const auto scale = load_user_kernel(k_scale);
  const TuningProblem st = user_tuning_problem(*scale, bind_user_problem(*scale, {"n=77"}));
  EXPECT_EQ(config_to_string(scale->spec, st.default_config), "threads=64 bug=0");
}

// `// @default`: what a call nobody tuned runs (no model knows a user's kernel), where it
// is valid for the problem; a bad one is refused when the file is read, naming the line.
TEST(UserKernel, DeclaredDefaultServesUntunedCalls) {
  std::string text = file_text(k_scale);
  const std::string verify = "// @verify  config = threads=64 bug=0\n";
  ASSERT_NE(text.find(verify), std::string::npos);
  const auto with = [&](const std::string& line) {
    std::string t = text;
    t.insert(t.find(verify), line + "\n");
    return t;
  };
  const auto k = parse_user_kernel(with("// @default threads=256, bug=0"), "scale.cu");
  ASSERT_TRUE(k->preferred);
  const TuningProblem t = user_tuning_problem(*k, bind_user_problem(*k, {"n=77"}));
  EXPECT_EQ(config_to_string(k->spec, t.default_config), "threads=256 bug=0");
  for (const auto& [line, message] : {std::pair{"// @default threads=96 bug=0", "96"},
                                      std::pair{"// @default threads=64 bug=0 vec=2", "vec"},
                                      std::pair{"// @default threads=64 bug=0\n// @default threads=64 bug=0", "twice"}}) {
    const std::string error = error_of([&] { parse_user_kernel(with(line), "scale.cu"); });
    EXPECT_NE(error.find("@default"), std::string::npos) << error;
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_NE(error.find("line "), std::string::npos) << error;
  }
}

TEST(UserKernel, BadProblemsAreRefusedWithTheReason) {
  const auto k = load_user_kernel(k_stencil);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"nx=5"}); }).find("needs --problem ny=VALUE"), std::string::npos);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"nx=5", "ny=5", "nz=5"}); }).find("no problem variable nz"),
            std::string::npos);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"nx=5", "ny=-5"}); }).find("integer from 1"), std::string::npos);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"nx=5", "ny=5", "T=i32"}); }).find("@type line"), std::string::npos);
}

TEST(UserKernel, MalformedDescriptionsNameTheLine) {
  std::string text = file_text(k_scale);
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return error_of([&] { parse_user_kernel(t, "mine.cu"); });
  };
  EXPECT_NE(with("// @problem n", "// @problem n, n").find("mine.cu: line 6"), std::string::npos);
  EXPECT_NE(with("out y : T[n]", "out y : T[n + k]").find("refers to 'k', which is no problem variable"),
            std::string::npos);
  EXPECT_NE(with("out y : T[n]", "out y : T[n] in [0, 1]").find("only in and inout"), std::string::npos);
  EXPECT_NE(with("in  x : T[n]", "in  x : T[n] in [3, 1]").find("LOW < HIGH"), std::string::npos);
  EXPECT_NE(with("scalar n : i64 = n", "scalar n : i64").find("a scalar needs a value"), std::string::npos);
  EXPECT_NE(with("// @verify  tolerance = exact", "// @verify  tolerance = ulp -1").find("is negative"),
            std::string::npos);
  EXPECT_NE(with("// @verify  config = threads=64 bug=0", "// @verify  reference = ref").find("needs '@verify block"),
            std::string::npos);
  EXPECT_NE(with("// @tune    bug     = 0, 1, 2", "// @tune    bug     = 0, 1, 2\n// @frobnicate x")
                .find("unknown directive '@frobnicate'"),
            std::string::npos);
}

TEST(UserKernel, RuntimeKernelChecksItsDeclaration) {
  Runtime rt(Runtime::Options{"/nonexistent/ktune-test.db", true});
  EXPECT_NE(error_of([&] { rt.kernel(k_stencil, "jacobi"); }).find("its @entry is 'jacobi_step'"), std::string::npos);
  EXPECT_NE(error_of([&] { rt.kernel(k_stencil, "jacobi_step", {"int"}); }).find("not among the types"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rt.kernel(k_stencil, "jacobi_step", {"quaternion"}); }).find("unknown template argument"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rt.kernel("/nonexistent/k.cu", "k"); }).find("cannot read kernel file"), std::string::npos);
  const Kernel k = rt.kernel(file_text(k_stencil), "jacobi_step", {"double"});  // from its text
  EXPECT_EQ(k.name(), "jacobi");
  EXPECT_EQ(k.problem_variables(), (std::vector<std::string>{"nx", "ny"}));
  // Argument checks come before anything touches a GPU.
  double* p = reinterpret_cast<double*>(256);
  const int n = 64;
  EXPECT_NE(error_of([&] { k.launch(nullptr, {{"nx", n}, {"ny", n}}, p, p, n); }).find("takes 4 arguments, got 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { k.launch(nullptr, {{"nx", n}, {"ny", n}}, p, p, 1.5, n); }).find("nx is an int, got a double"),
            std::string::npos);
  EXPECT_NE(error_of([&] { k.launch(nullptr, {{"nx", n}, {"ny", n}}, n, p, n, n); }).find("next is a pointer, got an int"),
            std::string::npos);
  EXPECT_NE(error_of([&] { k.launch(nullptr, {{"nx", n}, {"ny", n}}, p, nullptr, n, n); }).find("grid is null"),
            std::string::npos);
}

// Issue 51 (14): what passed `space` and `--dry-run` and failed only at run time, or
// failed with a raw library error, is refused when the description is read.
// A scalar whose value its type cannot hold is an error naming it, never a wrapped or
// rounded value (issue 66, item 5): out of range, not integral, not finite.
TEST(UserKernel, ScalarsOutsideTheirTypeAreRefused) {
  const std::string scale = file_text(k_scale);
  const auto values_with = [&](const std::string& arg, const std::string& problem) {
    std::string s = scale;
    const std::string from = "// @arg     scalar n : i64 = n";
    s.replace(s.find(from), from.size(), "// @arg     scalar n : " + arg);
    const auto k = parse_user_kernel(s, "k.cu");
    return error_of([&] { arg_values(*k, bind_user_problem(*k, {problem})); });
  };
  EXPECT_EQ(values_with("i32 = n * 4", "n=536870911"), "no error");  // 2147483644 fits
  EXPECT_NE(values_with("i32 = n * 4", "n=2147483647").find("scalar n = n * 4 is 8589934588 at this problem, outside "
                                                             "the range of i32"),
            std::string::npos);
  EXPECT_NE(values_with("i32 = 3000000000", "n=5").find("outside the range of i32"), std::string::npos);
  EXPECT_NE(values_with("i8 = n", "n=128").find("outside the range of i8"), std::string::npos);
  EXPECT_EQ(values_with("i8 = n", "n=127"), "no error");
  EXPECT_NE(values_with("u8 = 0 - 1", "n=5").find("outside the range of u8"), std::string::npos);
  EXPECT_NE(values_with("f32 = 1e300", "n=5").find("outside the range of f32"), std::string::npos);
  EXPECT_NE(values_with("i32 = 1.5", "n=5").find("not an integer"), std::string::npos);
  EXPECT_NE(values_with("i64 = 1e19", "n=5").find("outside the range of i64"), std::string::npos);
  EXPECT_EQ(values_with("f64 = 1e300", "n=5"), "no error");
}

// @derive may not stand in for what ktune binds (issue 66, item 4): with `@derive align = 4`
// a vec-4 config would pass `@require align % vec == 0` for a misaligned call.
TEST(UserKernel, DerivesMayNotNameWhatKtuneBinds) {
  const std::string scale = file_text(k_scale);
  const auto with_derive = [&](const std::string& line) {
    std::string s = scale;
    const std::string at = "// @launch  block";
    s.insert(s.find(at), line + "\n");
    return error_of([&] { parse_user_kernel(s, "k.cu"); });
  };
  EXPECT_NE(with_derive("// @derive  align = 4").find("@derive may not name 'align'"), std::string::npos);
  EXPECT_NE(with_derive("// @derive  elem_bytes = 3").find("@derive may not name 'elem_bytes'"), std::string::npos);
  EXPECT_NE(with_derive("// @derive  max_threads_per_block = 100000").find("may not name 'max_threads_per_block'"),
            std::string::npos);
  EXPECT_NE(with_derive("// @derive  n = 64").find("@derive may not name the problem variable 'n'"), std::string::npos);
  EXPECT_NE(with_derive("// @derive  threads = 64").find("it is a tunable"), std::string::npos);
  EXPECT_NE(with_derive("// @derive  half = n / 2\n// @derive  half = n").find("derived twice"), std::string::npos);
  EXPECT_EQ(with_derive("// @derive  half = n / 2"), "no error");
}

// A FIFO (or a device) as a kernel file is refused before it is opened: opening a FIFO
// blocks until someone writes (issue 66, item 2).
TEST(UserKernel, AKernelFileMustBeARegularFile) {
  const std::string fifo = ::testing::TempDir() + "ktune-kernel-fifo-" + std::to_string(::getpid());
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { load_user_kernel(fifo); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of([] { load_user_kernel("/dev/zero"); }).find("not a regular file"), std::string::npos);
  ::unlink(fifo.c_str());
}

TEST(UserKernel, HostileDeclarationsAreRefusedWhenRead) {
  const std::string scale = file_text(k_scale);
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string s = scale;
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @problem n", "// @problem n, align"), "k.cu"); })
                .find("'align' is a name ktune defines"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @problem n", "// @problem n, sm_count"), "k.cu"); })
                .find("'sm_count' is a name ktune defines"),
            std::string::npos);
  std::string vars = "// @problem n";
  for (int i = 0; i < 19; ++i) vars += ", v" + std::to_string(i);
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @problem n", vars), "k.cu"); }).find("at most 8 and 32"),
            std::string::npos);
  std::string args = "// @arg     in  x : T[n]";
  for (int i = 0; i < 40; ++i) args += "\n// @arg     scalar s" + std::to_string(i) + " : i32 = n";
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @arg     in  x : T[n]", args), "k.cu"); }).find("at most 8 and 32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @kernel  scale_test", "// @kernel  ../../x"), "k.cu"); })
                .find("is not a name"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @kernel  scale_test", "// @kernel  a:b c"), "k.cu"); })
                .find("is not a name"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_user_kernel(edited("// @tune    threads = ", "// @tune    threads = 123456789012345678901, "), "k.cu"); })
                .find("larger than 10^18"),
            std::string::npos);
  const auto k = parse_user_kernel(scale, "k.cu");
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"n=10", "T=f64", "T=f32"}); }).find("given twice"), std::string::npos);
  const std::string big = ::testing::TempDir() + "ktune-big-kernel-" + std::to_string(::getpid()) + ".cu";
  std::ofstream(big).close();
  ASSERT_EQ(::truncate(big.c_str(), 17 << 20), 0);  // a sparse file of 17 MiB
  EXPECT_NE(error_of([&] { load_user_kernel(big); }).find("larger than 16 MiB"), std::string::npos);
  ::unlink(big.c_str());
}

// The alignment class: from the call's pointers (in elements of the type), from
// --problem align=N, or the largest (16 bytes) for the tuner's own buffers; a config whose
// @require needs more alignment is not in the space of a smaller class.
TEST(UserKernel, AlignmentClass) {
  EXPECT_EQ(align_class_of({0x1000, 0x2000}, DType::f32), 4);
  EXPECT_EQ(align_class_of({0x1000, 0x2008}, DType::f32), 2);
  EXPECT_EQ(align_class_of({0x1004, 0x2000}, DType::f32), 1);
  EXPECT_EQ(align_class_of({0x1002}, DType::f32), 1);  // under one element: 1
  EXPECT_EQ(align_class_of({0x1002}, DType::f16), 1);
  EXPECT_EQ(align_class_of({0x1000, 0}, DType::f16), 8);  // nullptr: no constraint
  EXPECT_EQ(align_class_of({0x1008}, DType::f64), 1);
  EXPECT_EQ(align_class_of({}, DType::u8), 16);
  const auto k = load_user_kernel(std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/vec_scale.cu");
  const auto count = [&](const std::vector<std::string>& problem) {
    const TuningProblem t = user_tuning_problem(*k, bind_user_problem(*k, problem));
    return enumerate(k->spec, DeviceLimits{}, t.problem).size();
  };
  EXPECT_EQ(count({"n=4096"}), 6u);  // the tuner's buffers: 16 bytes, every vec
  EXPECT_EQ(count({"n=4096", "align=2"}), 4u);
  EXPECT_EQ(count({"n=4096", "align=1"}), 2u);
  EXPECT_EQ(align_class(bind_user_problem(*k, {"n=8"})), 4);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"n=8", "align=3"}); }).find("a power of two"), std::string::npos);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"n=8", "align=8"}); }).find("at most 4 elements of f32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { bind_user_problem(*k, {"n=8", "align=1", "align=2"}); }).find("given twice"),
            std::string::npos);
  // The fallback config is valid for the class even where the trusted one is not.
  EXPECT_EQ(config_to_string(k->spec, user_tuning_problem(*k, bind_user_problem(*k, {"n=8", "align=1"})).default_config),
            "threads=128 vec=1");
}

}  // namespace
}  // namespace ktune
