#include <ktune/runtime/pitched_copy.hpp>

#include <ktune/error.hpp>
#include <ktune/runtime/launch.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <algorithm>
#include <string>

namespace ktune {
namespace {

// Thread i writes 16-byte chunk i of the rows (row-major); a row's last chunk may be
// partial, written element by element. The source's elements are read one by one (any
// alignment); a warp's reads of a chunk's k-th elements share cache lines with its other
// reads, which L1 serves.
constexpr const char* k_pitched_copy_source = R"(
template <class E>
__device__ void ktune_copy_rows(unsigned char* dst, unsigned long long dst_pitch, const unsigned char* src,
                                unsigned long long src_pitch, unsigned long long rows, unsigned long long width) {
  constexpr int per = 16 / sizeof(E);
  const unsigned long long chunks = (width + 15) / 16, total = rows * chunks;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < total;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long r = i / chunks, c = i % chunks, left = width - c * 16;
    const E* s = reinterpret_cast<const E*>(src + r * src_pitch + c * 16);
    E* d = reinterpret_cast<E*>(dst + r * dst_pitch + c * 16);
    if (left >= 16) {
      union { uint4 v; E e[per]; } u;
#pragma unroll
      for (int k = 0; k < per; ++k) u.e[k] = __ldg(s + k);
      *reinterpret_cast<uint4*>(d) = u.v;
    } else {
      for (unsigned long long k = 0; k < left / sizeof(E); ++k) d[k] = __ldg(s + k);
    }
  }
}
#define KTUNE_COPY(name, E)                                                                                   \
  extern "C" __global__ void name(unsigned char* dst, unsigned long long dst_pitch, const unsigned char* src, \
                                  unsigned long long src_pitch, unsigned long long rows, unsigned long long width) { \
    ktune_copy_rows<E>(dst, dst_pitch, src, src_pitch, rows, width);                                        \
  }
KTUNE_COPY(ktune_pitched_copy_1, unsigned char)
KTUNE_COPY(ktune_pitched_copy_2, unsigned short)
KTUNE_COPY(ktune_pitched_copy_4, unsigned int)
KTUNE_COPY(ktune_pitched_copy_8, unsigned long long)
)";

using PitchedCopyParams =
    KernelParams<DevicePtr, unsigned long long, DevicePtr, unsigned long long, unsigned long long, unsigned long long>;

int size_index(std::size_t elem) { return elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : elem == 8 ? 3 : -1; }

}  // namespace

const char* PitchedCopy::source() { return k_pitched_copy_source; }

const std::vector<std::string>& PitchedCopy::kernel_names() {
  static const std::vector<std::string> names{"ktune_pitched_copy_1", "ktune_pitched_copy_2", "ktune_pitched_copy_4",
                                              "ktune_pitched_copy_8"};
  return names;
}

PitchedCopy::PitchedCopy(const DeviceInfo& device) {
  const std::vector<std::string>& names = kernel_names();
  const CompileOutput out = compile_cubin(k_pitched_copy_source, names, device.arch, "ktune_pitched_copy");
  module_ = std::make_unique<Module>(out.cubin, "ktune_pitched_copy");
  for (std::size_t i = 0; i < names.size(); ++i) kernels_[i] = module_->function(out.lowered_names[i]);
}

void PitchedCopy::enqueue(CUstream stream, CUdeviceptr dst, std::size_t dst_pitch, CUdeviceptr src,
                          std::size_t src_pitch, std::size_t rows, std::size_t width_bytes, std::size_t elem_bytes) const {
  const int k = size_index(elem_bytes);
  if (k < 0 || dst % 16 || dst_pitch % 16 || dst_pitch < width_bytes || src % elem_bytes || src_pitch % elem_bytes ||
      width_bytes % elem_bytes)
    throw InvalidArgument("pitched copy: " + std::to_string(rows) + " rows of " + std::to_string(width_bytes) +
                          " bytes in " + std::to_string(elem_bytes) + "-byte elements need a 16-byte aligned "
                          "destination pitch of at least the width and an element-aligned source");
  if (rows == 0 || width_bytes == 0) return;
  const std::size_t chunks = rows * ((width_bytes + 15) / 16);
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((chunks + 255) / 256, 8192));
  PitchedCopyParams::launch(kernels_[k], LaunchShape::linear(blocks, 256), stream, "ktune_pitched_copy", DevicePtr{dst},
                            static_cast<unsigned long long>(dst_pitch), DevicePtr{src},
                            static_cast<unsigned long long>(src_pitch), static_cast<unsigned long long>(rows),
                            static_cast<unsigned long long>(width_bytes));
}

}  // namespace ktune
