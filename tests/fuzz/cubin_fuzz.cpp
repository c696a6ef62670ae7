// libFuzzer target: arbitrary bytes as a CUBIN (what dry runs read resources from, also
// out of the program store, a file). cubin_resources answers or says nothing; it never
// reads outside the image or crashes.
#include <ktune/runtime/cubin_info.hpp>

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string image(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"k", "_Z1kILi1EEvPfPKfi", ""}) (void)ktune::cubin_resources(image, name);
  return 0;
}
