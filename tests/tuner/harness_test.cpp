// The harness's host-side rules: the bytes of the memcpy ceiling.
#include <ktune/tuner/harness.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

// Half of the bytes moved (read + written), rounded up to 16: u8 8191x4097 reads
// 33,558,527 bytes, and a copy of that count is 15% slower than one of 33,558,528 (H200).
TEST(CeilingCopyBytes, HalfTheMovedBytesRoundedUpTo16) {
  EXPECT_EQ(ceiling_copy_bytes(2.0 * 33558527), 33558528u);
  EXPECT_EQ(ceiling_copy_bytes(2.0 * 33554432), 33554432u);  // a multiple of 16 stays
  EXPECT_EQ(ceiling_copy_bytes(2.0 * 262140), 262144u);      // f32 257x255
  EXPECT_EQ(ceiling_copy_bytes(2.0), 16u);
  EXPECT_EQ(ceiling_copy_bytes(0.0), 0u);
}

}  // namespace
}  // namespace ktune
