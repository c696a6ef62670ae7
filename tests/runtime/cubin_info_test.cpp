// Resources read from a CUBIN without a GPU: registers and the local-memory frame of each
// kernel, and nothing read outside the image however it is cut or damaged.
#include <ktune/runtime/cubin_info.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

constexpr const char* k_source = R"(
template <int local> __global__ void k(float* y, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (local) {
    float t[64];
    for (int j = 0; j < 64; ++j) t[j] = x[(i + j) % n];
    y[i] = t[i & 63];
  } else {
    y[i] = 2 * x[i];
  }
}
)";

TEST(CubinInfo, RegistersAndLocalFrameOfEachKernel) {
  const CompileOutput out = compile_cubin(k_source, {"k<0>", "k<1>"}, 90, "cubin info");
  const auto plain = cubin_resources(out.cubin, out.lowered_names[0]);
  const auto local = cubin_resources(out.cubin, out.lowered_names[1]);
  ASSERT_TRUE(plain && local);
  EXPECT_EQ(plain->frame_bytes, 0);
  EXPECT_EQ(local->frame_bytes, 256);  // float t[64]
  EXPECT_GT(plain->registers, 0);
  EXPECT_LE(plain->registers, 255);
  EXPECT_GT(local->registers, 0);
  EXPECT_FALSE(cubin_resources(out.cubin, "no_such_kernel"));
}

TEST(CubinInfo, DamagedImagesReadNothingOutside) {
  const CompileOutput out = compile_cubin(k_source, {"k<1>"}, 90, "cubin info");
  const std::string& name = out.lowered_names[0];
  EXPECT_FALSE(cubin_resources("", name));
  EXPECT_FALSE(cubin_resources("not an ELF image at all, but long enough to have a header of 64 bytes....", name));
  // Every prefix, and single bytes flipped all over: an answer or none, never a crash
  // (run under ASan by scripts/fuzz.sh's build as well).
  for (std::size_t n = 0; n < out.cubin.size(); n += 13) (void)cubin_resources(out.cubin.substr(0, n), name);
  for (std::size_t i = 0; i < out.cubin.size(); i += 7) {
    std::string bad = out.cubin;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    (void)cubin_resources(bad, name);
  }
}

}  // namespace
}  // namespace ktune
