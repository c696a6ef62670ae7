// libFuzzer target: arbitrary bytes as a capture bundle. Reading its header or all of
// it works or throws CaptureError; nothing crashes, and nothing is allocated on the
// word of a size the file cannot hold (libFuzzer's -rss_limit_mb catches that).
#include <ktune/cache/capture_bundle.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path file = fs::temp_directory_path() / ("ktune-capture-fuzz-" + std::to_string(getpid()) + ".ktcap");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  for (const bool with_data : {false, true}) {
    try {
      const ktune::CaptureBundle b = ktune::read_capture(file, with_data);
      (void)b.header.dump();
      std::size_t bytes = 0;
      for (const auto& buffer : b.buffers) bytes += buffer.bytes.size();
      if (bytes > size * 1100 + 1024) std::abort();  // more than the file could inflate to
    } catch (const ktune::CaptureError&) {
    }
  }
  return 0;
}
