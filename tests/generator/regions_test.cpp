// The memory checks every family's validate() shares (generator/regions.hpp).
#include <ktune/generator/regions.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

std::string why(std::initializer_list<Region> r, bool in_place = false) { return region_problem(r, in_place).value_or(""); }

TEST(Regions, NullMisalignedOverflowingAndOverlappingAreRefused) {
  const Region in{"input", 0x1000, 4, 3, 10, 16}, out{"output", 0x2000, 4, 3, 10, 12, true};
  EXPECT_EQ(why({in, out}), "");
  EXPECT_EQ(region_bytes(in), (2 * 16 + 10) * 4u);
  EXPECT_EQ(why({{"input", 0, 4, 1, 10, 10}, out}), "null pointer (input)");
  EXPECT_EQ(why({{"flags", 0, 1, 1, 10, 10, false, true}, out}), "");  // optional and absent
  EXPECT_EQ(why({{"input", 0x1002, 4, 1, 10, 10}, out}), "input pointer not aligned to its element size");
  EXPECT_EQ(why({{"input", 0x1000, 8, std::int64_t{1} << 40, 10, std::int64_t{1} << 40}, out}),
            "input's size overflows 64 bits");
  // The output starts inside the input's last row (0x1000 + 42 * 4 bytes long).
  EXPECT_EQ(why({in, {"output", 0x1000 + 41 * 4, 4, 3, 10, 12, true}}), "output overlaps input");
  // Inside the pitch padding counts too: extents, not elements.
  EXPECT_EQ(why({in, {"output", 0x1000 + 12 * 4, 4, 1, 2, 2, true}}), "output overlaps input");
  // Two regions only read may overlap; in place is only the very same region.
  EXPECT_EQ(why({in, {"other", 0x1000, 4, 3, 10, 16}, out}), "");
  EXPECT_EQ(why({in, {"output", 0x1000, 4, 3, 10, 16, true}}, true), "");
  EXPECT_EQ(why({in, {"output", 0x1000, 4, 3, 10, 12, true}}, true),
            "output overlaps input (only exactly in place is allowed)");
  EXPECT_EQ(why({in, {"output", 0x1000, 4, 3, 10, 16, true}}), "output overlaps input");
}

}  // namespace
}  // namespace ktune
