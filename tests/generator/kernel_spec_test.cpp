#include <ktune/error.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/generator/space.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

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
  const auto families = KernelSpec::builtin_families();  // every template with a `// @kernel`, sorted
  EXPECT_TRUE(std::is_sorted(families.begin(), families.end()));
  for (const char* fragment : {"common", "reduce_ops"})
    EXPECT_EQ(std::count(families.begin(), families.end(), fragment), 0) << fragment;
  for (const auto& family : families) EXPECT_EQ(KernelSpec::builtin(family).family(), family);
  for (const char* family : {"elementwise", "reduce", "reduce_rows", "reduce_cols"}) {
    const std::string& src = KernelSpec::builtin(family).source();
    EXPECT_NE(src.find("struct ktune_half"), std::string::npos) << family;  // from common
    EXPECT_EQ(src.find("// @include"), std::string::npos) << family;       // resolved
  }
  EXPECT_NE(KernelSpec::builtin("reduce").source().find("ktune_block_reduce"), std::string::npos);  // reduce_ops
  EXPECT_EQ(KernelSpec::builtin("transpose").source().find("struct ktune_half"), std::string::npos);
  // transpose's designs, a fragment each
  for (const char* design : {"ktune_copy(", "ktune_transpose_direct(", "ktune_transpose_staged(",
                             "ktune_transpose_bytes(", "ktune_transpose_bytes_async("})
    EXPECT_NE(KernelSpec::builtin("transpose").source().find(design), std::string::npos) << design;
}

TEST(KernelSpec, UnknownFamilyListsKnownOnes) {
  try {
    KernelSpec::builtin("gemmm");
    FAIL();
  } catch (const Error& e) {
    std::string known;
    for (const auto& family : KernelSpec::builtin_families()) known += (known.empty() ? "" : ", ") + family;
    EXPECT_NE(std::string(e.what()).find("known: " + known + ")"), std::string::npos) << e.what();
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

// Issue 51: `@derive d = d + 1` and two derives reading each other recursed until the
// stack overflowed; a chain of derives each reading the one above twice took 2^n
// evaluations (30 lines hung). A derived value reads only those above it, and what one
// expression may cost is bounded, each said with the line.
TEST(KernelSpec, DerivedValuesAreAcyclicAndBounded) {
  const std::string head = "// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1, 2\n";
  const std::string tail =
      "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n"
      "template <typename T, int a> __global__ void k(T* p) {}\n";
  const auto expect_error = [&](const std::string& derives, const std::string& needle) {
    try {
      KernelSpec::parse(head + derives + tail);
      FAIL() << derives.substr(0, 80);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("// @derive d = d + 1\n", "line 5 '@derive d = ...': 'd' reads itself");
  expect_error("// @derive d = e + 1\n// @derive e = d + 1\n", "line 5 '@derive d = ...': reads 'e', derived below");
  std::string doubling = "// @derive d0 = a\n";
  for (int i = 1; i <= 12; ++i) {  // each reads the one above 4 times: 4^12 evaluations
    const std::string above = "d" + std::to_string(i - 1);
    doubling += "// @derive d" + std::to_string(i) + " = " + above + " + " + above + " + " + above + " + " + above + "\n";
  }
  expect_error(doubling, "evaluates more than");
  std::string chain = "// @derive d0 = a\n";
  for (int i = 1; i <= 20; ++i) chain += "// @derive d" + std::to_string(i) + " = d" + std::to_string(i - 1) + " + 1\n";
  expect_error(chain, "chain of more than");
  // Within the bounds: a derive reading those above it, several times.
  const KernelSpec ok = KernelSpec::parse(head + "// @derive b = a * 2\n// @derive c = b + b + a\n// @require c < 100\n" + tail);
  EXPECT_EQ(ok.derived().size(), 2u);
}

// Two `@launch block` (or grid, or smem) lines: an error naming both lines, not the last
// winning silently (issue 66, item 7).
TEST(KernelSpec, ALaunchDimensionGivenTwiceIsAnError) {
  const std::string head = "// @kernel k\n// @entry k\n// @tune a = 1, 2\n";
  const auto error = [&](const std::string& launch) {
    try {
      KernelSpec::parse(head + launch + "template <int a> __global__ void k() {}\n");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string both = "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n";
  EXPECT_EQ(error(both), "no error");
  EXPECT_NE(error(both + "// @launch block = (64, 1, 1)\n").find("'@launch block' given twice (the first on line 4)"),
            std::string::npos);
  EXPECT_NE(error(both + "// @launch grid = (2, 1, 1)\n").find("'@launch grid' given twice"), std::string::npos);
  EXPECT_NE(error(both + "// @launch smem = 0\n// @launch smem = 8\n").find("'@launch smem' given twice"),
            std::string::npos);
}

// A `// @compatible CODE: HASH, ...` line keeps the records of earlier texts current
// only while the code is what it was: comments and blank lines may change, code not.
TEST(KernelSpec, CompatibleHashesHoldWhileTheCodeIsUnchanged) {
  const std::string head = "// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1, 2\n";
  const std::string tail =
      "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n"
      "template <typename T, int a> __global__ void k(T* p) { p[0] = a; }\n";
  const KernelSpec plain = KernelSpec::parse(head + tail);
  const std::string code = KernelSpec::code_hash(plain.source());
  EXPECT_EQ(KernelSpec::code_hash(head + "// why a is 1 or 2\n\n" + tail + "  // the end\n"), code);
  EXPECT_NE(KernelSpec::code_hash(head + tail + "// @require a == 1\n"), code);  // `// @` lines are code
  EXPECT_NE(KernelSpec::code_hash(head + tail + "__device__ int x;\n"), code);
  EXPECT_EQ(KernelSpec::code_hash(head + "// @default a=2\n" + tail), code);  // the untuned config is no code

  const KernelSpec moved = KernelSpec::parse("// comments moved\n" + head + "// @compatible " + code + ": " +
                                             plain.source_hash() + ", 0123456789abcdef\n" + tail);
  EXPECT_NE(moved.source_hash(), plain.source_hash());
  EXPECT_TRUE(moved.is_current(moved.source_hash()));
  EXPECT_TRUE(moved.is_current(plain.source_hash()));
  EXPECT_TRUE(moved.is_current("0123456789abcdef"));
  EXPECT_FALSE(moved.is_current("fedcba9876543210"));
  EXPECT_EQ(moved.current_hashes().size(), 3u);
  EXPECT_FALSE(plain.is_current(moved.source_hash()));

  try {  // the code changed: the line is an error that names itself
    KernelSpec::parse(head + "// @compatible " + code + ": " + plain.source_hash() + "\n" + tail + "__device__ int x;\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the code changed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(KernelSpec::parse(head + "// @compatible " + code + "\n" + tail), Error);
  EXPECT_THROW(KernelSpec::parse(head + "// @compatible " + code + ": 12ab\n" + tail), Error);
}

// The family split into one file per design and the run history taken out of its
// comments changed the text, not the code: records of both earlier texts stay current.
// gemm_mma's code changed since (ping-pong, 2026-11-28): its earlier records are stale.
TEST(KernelSpec, ReorganizedTemplatesKeepTheirRecords) {
  const KernelSpec& transpose = KernelSpec::builtin("transpose");
  EXPECT_TRUE(transpose.is_current("9b3f4f485de4e608"));  // 5c66303
  EXPECT_TRUE(transpose.is_current("2dbf0a8301ed02be"));  // d174da9
  EXPECT_FALSE(KernelSpec::builtin("gemm_mma").is_current("c9c0ef9dca70a09e"));
  EXPECT_FALSE(KernelSpec::builtin("gemm").is_current("c9c0ef9dca70a09e"));
}

}  // namespace
// `// @default`: the config a call runs untuned, declared once, a config of the space;
// every built-in family that declares one declares a valid one.
TEST(KernelSpec, DeclaredDefaultIsOneConfigOfTheSpace) {
  const std::string head = "// @kernel k\n// @entry k\n// @type T = element\n// @tune a = 1, 2\n// @tune b = x, y\n";
  const std::string tail = "// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\ntemplate <typename T, int a, int b> "
                           "__global__ void k(T* p) {}\n";
  const KernelSpec spec = KernelSpec::parse(head + "// @default a=2, b=y\n" + tail);
  EXPECT_EQ(config_to_string(spec, declared_default(spec)), "a=2 b=y");
  const auto refused = [&](const std::string& defaults, const std::string& why) {
    try {
      (void)declared_default(KernelSpec::parse(head + defaults + tail));
      ADD_FAILURE() << defaults << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("", "declares no '// @default'");
  refused("// @default a=1 b=x\n// @default a=2 b=y\n", "line 7: '@default' is declared twice");
  refused("// @default a=3 b=x\n", "line 6 '// @default'");
  refused("// @default a=1\n", "line 6 '// @default'");
  std::set<std::string> declared;
  for (const auto& family : KernelSpec::builtin_families()) {
    const KernelSpec& builtin = KernelSpec::builtin(family);
    const bool has = std::any_of(builtin.directives().begin(), builtin.directives().end(),
                                 [](const auto& d) { return d.key == "default"; });
    if (!has) continue;
    declared.insert(family);
    EXPECT_NO_THROW((void)declared_default(builtin)) << family;
  }
  // This test's families (FAMILIES in tests/CMakeLists.txt) but the GEMM, whose untuned
  // config depends on the call: each declares one, whatever else the build holds.
  for (const char* family : {"transpose", "elementwise", "reduce", "reduce_rows", "reduce_cols"})
    EXPECT_TRUE(declared.count(family)) << family << " declares no // @default";
}

}  // namespace ktune
