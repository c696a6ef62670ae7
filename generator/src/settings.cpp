#include <ktune/generator/settings.hpp>

#include <cstdlib>

namespace ktune::settings {
namespace {

std::string read(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::string cache_dir() { return read("KTUNE_CACHE_DIR"); }
std::string log_level() { return read("KTUNE_LOG_LEVEL"); }
std::string db_busy_ms() { return read("KTUNE_DB_BUSY_MS"); }
std::string capture() { return read("KTUNE_CAPTURE"); }
std::string capture_dir() { return read("KTUNE_CAPTURE_DIR"); }
std::string capture_limit_mb() { return read("KTUNE_CAPTURE_LIMIT_MB"); }
std::string tune_on_miss() { return read("KTUNE_TUNE_ON_MISS"); }
std::string tune_on_miss_args() { return read("KTUNE_TUNE_ON_MISS_ARGS"); }
std::string tuner() { return read("KTUNE_TUNER"); }
std::string shipped_winners() { return read("KTUNE_SHIPPED_WINNERS"); }
std::string faulted_configs() { return read("KTUNE_FAULTED_CONFIGS"); }
std::string cuda_include() { return read("KTUNE_CUDA_INCLUDE"); }
std::string cupti_library() { return read("KTUNE_CUPTI_LIBRARY"); }
std::string counters_refused() { return read("KTUNE_COUNTERS_REFUSED"); }
std::string cuda_path() {
  const std::string p = read("CUDA_PATH");
  return p.empty() ? read("CUDA_HOME") : p;
}

}  // namespace ktune::settings
