// docs/own-kernels.md's reference cannot drift from the parser: every directive, every
// function of both expression languages, every device-limit name and tolerance form the
// parser knows is in it, and every directive it lists is one the parser knows.
#include <ktune/error.hpp>
#include <ktune/generator/expr.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/generator/tolerance.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace ktune {
namespace {

std::string reference() {
  std::ifstream in(std::string(KTUNE_SOURCE_DIR) + "/docs/own-kernels.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string doc = s.str();
  const std::size_t at = doc.find("## Reference");
  EXPECT_NE(at, std::string::npos) << "docs/own-kernels.md has no '## Reference' section";
  return at == std::string::npos ? "" : doc.substr(at);
}

TEST(ReferenceDoc, EveryDirectiveIsDocumentedAndEveryDocumentedOneExists) {
  const std::string ref = reference();
  const auto& known = KernelSpec::directive_names();
  for (const auto& d : known) EXPECT_NE(ref.find("| `@" + d + "` |"), std::string::npos) << "@" << d;
  const std::regex row(R"(\n\| `@([a-z_]+)` \|)");
  std::size_t rows = 0;
  for (auto it = std::sregex_iterator(ref.begin(), ref.end(), row); it != std::sregex_iterator(); ++it, ++rows)
    EXPECT_NE(std::find(known.begin(), known.end(), (*it)[1].str()), known.end()) << "documented: @" << (*it)[1];
  EXPECT_EQ(rows, known.size());
}

// The table itself is the parser's: each name in it is read, any other is refused.
TEST(ReferenceDoc, TheDirectiveTableIsWhatTheParserReads) {
  const std::string base = "// @kernel k\n// @entry e\n// @tune a = 1\n// @launch block = (1, 1, 1)\n// @launch grid = (1, 1, 1)\n";
  const auto error = [&](const std::string& line) {
    try {
      KernelSpec::parse(base + line + "\n");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const auto& d : KernelSpec::directive_names())
    EXPECT_EQ(error("// @" + d + " x").find("unknown directive"), std::string::npos) << d << ": " << error("// @" + d + " x");
  EXPECT_NE(error("// @frobnicate x").find("unknown directive '@frobnicate'"), std::string::npos);
}

TEST(ReferenceDoc, EveryNameFunctionAndToleranceForm) {
  const std::string ref = reference();
  for (const auto& n : DeviceLimits::names()) EXPECT_NE(ref.find("`" + n + "`"), std::string::npos) << n;
  for (const auto& f : Expr::functions()) EXPECT_NE(ref.find("`" + f + "(a, b)`"), std::string::npos) << f;
  for (const auto& f : FloatExpr::functions()) EXPECT_NE(ref.find("`" + f + "("), std::string::npos) << f;
  for (const auto& k : Tolerance::kinds())
    EXPECT_TRUE(ref.find("`" + k + " X`") != std::string::npos || ref.find("`" + k + " N`") != std::string::npos) << k;
  for (const auto& w : tolerance_words()) EXPECT_NE(ref.find("`" + w + "`"), std::string::npos) << w;
  for (const char* name : {"`elem_bytes`", "`align`", "`exact`"}) EXPECT_NE(ref.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace ktune
