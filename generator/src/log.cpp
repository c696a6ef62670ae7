#include <ktune/generator/log.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <ctime>
#include <mutex>

namespace ktune {

std::shared_ptr<spdlog::logger> logger(const char* name) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto l = spdlog::get(name)) return l;
  auto l = spdlog::stderr_color_mt(name);
  l->set_pattern("[%H:%M:%S.%e] [%n] [%^%l%$] %v");
  const char* level = std::getenv("KTUNE_LOG_LEVEL");
  l->set_level(level && *level ? spdlog::level::from_str(level) : spdlog::level::info);
  return l;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

}  // namespace ktune
