#include <ktune/error.hpp>
#include <ktune/generator/json.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/generator/user_kernel.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace ktune {
namespace {

// Issue 51: a value nested 300k deep parsed, and dump() then recursed until the stack
// overflowed (cache list, log show, capture show).
TEST(Json, NestingIsBounded) {
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  EXPECT_TRUE(parse_json(deep).is_discarded());
  const std::string ok = std::string(json_max_depth - 1, '[') + std::string(json_max_depth - 1, ']');
  const nlohmann::json j = parse_json(ok);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j.dump(), ok);
  EXPECT_TRUE(parse_json("{\"a\": 1,}").is_discarded());
  EXPECT_EQ(parse_json("{\"a\": [1, 2]}")["a"][1], 2);
}

TEST(Json, Utf8) {
  EXPECT_TRUE(is_valid_utf8("plain // @kernel x"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));  // e-acute, euro, an emoji
  EXPECT_FALSE(is_valid_utf8("\xcb"));                                 // cut short
  EXPECT_FALSE(is_valid_utf8("a\xcb" "b"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xff"));
}

// Found by the description fuzzer: a `@verify config` value with a byte that is not
// UTF-8 made the JSON library throw past every handler (std::terminate).
TEST(Json, TextThatIsNotUtf8IsAnError) {
  std::ifstream in(std::string(KTUNE_TEST_DATA_DIR) + "/fuzz/description-config-not-utf8.cu", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  EXPECT_THROW(parse_user_kernel(text.str(), "fuzz.cu"), Error);
  EXPECT_THROW(KernelSpec::parse("// @kernel k\xcb\n"), Error);
  const KernelSpec spec = KernelSpec::parse(
      "// @kernel k\n// @entry k\n// @tune layout = pad, xor\n// @launch block = (1, 1, 1)\n"
      "// @launch grid = (1, 1, 1)\ntemplate <int layout> __global__ void k() {}\n");
  EXPECT_EQ(config_from_string(spec, "layout=xor").size(), 1u);
  EXPECT_THROW(config_from_string(spec, "layout=\xcb"), Error);
}

}  // namespace
}  // namespace ktune
