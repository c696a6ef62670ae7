#include <ktune/generator/log.hpp>
#include <ktune/generator/settings.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace ktune {

std::string format_log(const char* format, std::initializer_list<LogArg> args) {
  std::string out;
  auto next = args.begin();
  for (const char* p = format; *p; ++p) {
    const char* close = *p == '{' ? std::strchr(p, '}') : nullptr;
    if (!close || next == args.end()) {
      out += *p;
      continue;
    }
    const std::string spec(p + 1, close);
    const LogArg& a = *next++;
    if (!a.is_number) {
      out += a.text;
    } else if (spec.size() > 2 && spec.compare(0, 2, ":.") == 0 && spec.back() == 'f') {
      char text[64];
      std::snprintf(text, sizeof text, "%.*f", std::atoi(spec.c_str() + 2), a.number);
      out += text;
    } else {
      std::ostringstream s;
      s << a.number;
      out += s.str();
    }
    p = close;
  }
  return out;
}

bool Log::enabled(int level) const { return sink_->should_log(static_cast<spdlog::level::level_enum>(level)); }

void Log::write(int level, const std::string& message) const {
  sink_->log(static_cast<spdlog::level::level_enum>(level), message);
}

const Log* logger(const char* name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Log>> logs;
  std::lock_guard<std::mutex> lock(mutex);
  auto& log = logs[name];
  if (!log) {
    auto l = spdlog::stderr_color_mt(name);
    l->set_pattern("[%H:%M:%S.%e] [%n] [%^%l%$] %v");
    const std::string level = settings::log_level();
    l->set_level(level.empty() ? spdlog::level::info : spdlog::level::from_str(level));
    log = std::make_unique<Log>(std::move(l));
  }
  return log.get();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

}  // namespace ktune
