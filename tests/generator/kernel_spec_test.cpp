#include <ktune/error.hpp>
#include <ktune/generator/kernel_spec.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(KernelSpec, TransposeDescriptionParses) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  EXPECT_EQ(spec.family(), "transpose");
  EXPECT_EQ(spec.entry(), "ktune_transpose");
  std::vector<std::string> names;
  for (const auto& t : spec.tunables()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tile_m", "tile_n", "block_x", "block_y", "vec", "layout", "realign", "copy", "wide",
                                               "order", "words"}));
  const auto& layout = spec.tunables()[5].values;
  EXPECT_EQ(layout, (std::vector<Value>{std::string("direct"), std::string("none"), std::string("pad"),
                                        std::string("xor"), std::string("shift")}));
  EXPECT_FALSE(spec.requirements().empty());
  EXPECT_EQ(spec.source_hash().size(), 16u);
}

// The one-description rule: the kernel's template parameters are the element type
// followed by the declared tunables, same names, same order.
TEST(KernelSpec, EveryFamilyTemplateParametersMatchTunables) {
  for (const auto& family : KernelSpec::builtin_families()) {
    const KernelSpec& spec = KernelSpec::builtin(family);
    std::vector<std::string> expected{spec.type_parameter()};
    for (const auto& t : spec.tunables())
      if (!t.runtime) expected.push_back(t.name);
    EXPECT_EQ(spec.template_parameters(), expected) << family;
  }
}

// Fragments (shared device code without `// @kernel`) are pulled in by `// @include`
// and are no family of their own.
TEST(KernelSpec, FragmentsAreIncludedNotFamilies) {
  EXPECT_EQ(KernelSpec::builtin_families(), (std::vector<std::string>{"elementwise", "gemm", "gemm_mma", "reduce", "reduce_cols", "reduce_rows", "transpose"}));
  for (const char* family : {"elementwise", "reduce", "reduce_rows", "reduce_cols"}) {
    const std::string& src = KernelSpec::builtin(family).source();
    EXPECT_NE(src.find("struct ktune_half"), std::string::npos) << family;  // from common
    EXPECT_EQ(src.find("// @include"), std::string::npos) << family;       // resolved
  }
  EXPECT_NE(KernelSpec::builtin("reduce").source().find("ktune_block_reduce"), std::string::npos);  // reduce_ops
  EXPECT_EQ(KernelSpec::builtin("transpose").source().find("struct ktune_half"), std::string::npos);
}

TEST(KernelSpec, UnknownFamilyListsKnownOnes) {
  try {
    KernelSpec::builtin("gemmm");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: elementwise, gemm, gemm_mma, reduce, reduce_cols, reduce_rows, transpose"), std::string::npos) << e.what();
  }
}

TEST(KernelSpec, MalformedDescriptionsNameTheLine) {
  const std::string ok_tail =
      "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n"
      "template <typename T, int a> __global__ void k(T* p) {}\n";
  EXPECT_NO_THROW(KernelSpec::parse("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1, 2\n" + ok_tail));
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    try {
      KernelSpec::parse(text);
      FAIL() << "expected an error for:\n" << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a 1, 2\n" + ok_tail, "line 4");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1,, 2\n" + ok_tail, "empty value");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1\n// @require a +\n" + ok_tail,
               "line 5");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1\n// @bogus x\n" + ok_tail,
               "unknown directive");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1\n// @tune a = 2\n" + ok_tail,
               "declared twice");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1\n// @runtime b\n" + ok_tail,
               "'b' is no tunable declared above");
  expect_error("// @kernel k\n// @entry k\n// @type T = element\n", "no '// @tune'");
  expect_error("// @entry k\n// @type T = element\n// @tune a = 1\n" + ok_tail, "missing '// @kernel");
}

}  // namespace
}  // namespace ktune
