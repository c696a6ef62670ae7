// The verifier's host side: test data (fill_random), threaded past a million words.
#include <ktune/tuner/verifier.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace ktune {
namespace {

// The same bytes as one splitmix64 stream written word after word, however the words
// are split between threads; the odd size checks the partial last word.
TEST(FillRandom, ThreadedBytesAreOneSeededStream) {
  const std::size_t n = (3u << 23) + 5;
  std::vector<unsigned char> bytes(n);
  fill_random(bytes, 42);
  std::vector<unsigned char> expect(n);
  std::uint64_t s = 42;
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t z = splitmix64(s) | 0x0101010101010101ull;
    std::memcpy(&expect[i], &z, std::min<std::size_t>(8, n - i));
  }
  EXPECT_TRUE(bytes == expect);
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0), 0);  // zeros would hide unwritten outputs
  std::vector<unsigned char> other(n);
  fill_random(other, 43);
  EXPECT_FALSE(bytes == other);
}

}  // namespace
}  // namespace ktune
