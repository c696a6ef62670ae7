// The runtime's pitched copy kernel (ktune/runtime/pitched_copy.hpp) on the device: every
// element size, sources misaligned in base and pitch, rows with and without a partial
// last 16-byte chunk; each copied row checked byte for byte and the destination's padding
// left as poisoned; bad arguments refused before anything launches.
#include "gpu_test_support.hpp"

#include <ktune/error.hpp>
#include <ktune/runtime/pitched_copy.hpp>

#include <cstdint>
#include <vector>

namespace ktune {
namespace {

TEST(PitchedCopyGpu, CopiesRowsOfEveryElementSizeFromAnyAlignment) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const PitchedCopy copy(dev);
  const auto& d = driver::api();
  struct Case {
    std::size_t elem, rows, cols, src_offset, src_pitch_extra;
  };
  for (const Case& c : {Case{1, 37, 53, 1, 3}, Case{2, 37, 53, 2, 1}, Case{2, 1000, 13577, 2, 3}, Case{4, 5, 3, 4, 1},
                        Case{8, 9, 130, 8, 1}, Case{2, 13577, 86, 0, 0}, Case{4, 1, 4, 0, 0}}) {
    const std::size_t width = c.cols * c.elem, src_pitch = width + c.src_pitch_extra * c.elem;
    const std::size_t dst_pitch = (width + 15) / 16 * 16 + 16;
    std::vector<std::uint8_t> src(c.src_offset + c.rows * src_pitch), dst(c.rows * dst_pitch, 0xAB);
    std::uint64_t s = 0x9e3779b97f4a7c15ull ^ c.cols;
    for (auto& b : src) b = static_cast<std::uint8_t>((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    DeviceBuffer src_dev(src.size()), dst_dev(dst.size());
    driver::check(d.cuMemcpyHtoD(src_dev.get(), src.data(), src.size()), "cuMemcpyHtoD");
    driver::check(d.cuMemcpyHtoD(dst_dev.get(), dst.data(), dst.size()), "cuMemcpyHtoD");
    copy.enqueue(nullptr, dst_dev.get(), dst_pitch, src_dev.get() + c.src_offset, src_pitch, c.rows, width, c.elem);
    driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
    std::vector<std::uint8_t> out(dst.size());
    driver::check(d.cuMemcpyDtoH(out.data(), dst_dev.get(), out.size()), "cuMemcpyDtoH");
    std::size_t wrong = 0, padding = 0;
    for (std::size_t r = 0; r < c.rows; ++r)
      for (std::size_t b = 0; b < dst_pitch; ++b) {
        const std::uint8_t got = out[r * dst_pitch + b];
        if (b < width) wrong += got != src[c.src_offset + r * src_pitch + b];
        else padding += got != 0xAB;
      }
    EXPECT_EQ(wrong, 0u) << c.elem << "-byte elements, " << c.rows << " x " << c.cols;
    EXPECT_EQ(padding, 0u) << c.elem << "-byte elements, " << c.rows << " x " << c.cols << ": padding written";
  }
  // Bad arguments: a message, nothing launched.
  DeviceBuffer a(4096), b(4096);
  EXPECT_THROW(copy.enqueue(nullptr, b.get() + 8, 64, a.get(), 64, 2, 32, 2), InvalidArgument);   // dst misaligned
  EXPECT_THROW(copy.enqueue(nullptr, b.get(), 40, a.get(), 64, 2, 32, 2), InvalidArgument);       // dst pitch not 16s
  EXPECT_THROW(copy.enqueue(nullptr, b.get(), 16, a.get(), 64, 2, 32, 2), InvalidArgument);       // dst pitch < width
  EXPECT_THROW(copy.enqueue(nullptr, b.get(), 64, a.get() + 1, 64, 2, 32, 2), InvalidArgument);   // src not elements
  EXPECT_THROW(copy.enqueue(nullptr, b.get(), 64, a.get(), 64, 2, 30, 4), InvalidArgument);       // width not elements
  EXPECT_THROW(copy.enqueue(nullptr, b.get(), 64, a.get(), 63, 2, 32, 3), InvalidArgument);       // 3-byte elements
  copy.enqueue(nullptr, b.get(), 64, a.get(), 64, 0, 32, 2);  // nothing to copy: fine
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace
}  // namespace ktune
