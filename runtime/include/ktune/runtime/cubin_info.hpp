#pragma once
// What a compiled kernel uses, read from its CUBIN without a GPU: the same registers and
// local-memory frame (spills and local arrays) the driver reports (cuFuncGetAttribute),
// so dry runs reject what a tuning run on the GPU would.
#include <optional>
#include <string>

namespace ktune {

struct CubinResources {
  int registers = 0;
  int frame_bytes = 0;  // local memory per thread: CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
};

// The resources of kernel `lowered_name` in `cubin` (an ELF image, as NVRTC writes it);
// nullopt when the image is malformed or holds no such kernel. Reads only within the image.
std::optional<CubinResources> cubin_resources(const std::string& cubin, const std::string& lowered_name);

}  // namespace ktune
