#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace spdlog {
class logger;
}

namespace ktune {

// An argument of a log message: text, or a number that a `{:.Nf}` field may format.
struct LogArg {
  template <typename T>
  LogArg(const T& v) {  // NOLINT: implicit, so that call sites pass values as they are
    if constexpr (std::is_floating_point_v<T>) {
      number = static_cast<double>(v);
      is_number = true;
    } else if constexpr (std::is_integral_v<T>) {
      text = std::to_string(v);
    } else {
      text = std::string(v);
    }
  }
  std::string text;
  double number = 0;
  bool is_number = false;
};

// `format` with each `{}` (or `{:.Nf}`, N digits after the point) replaced by the next
// argument: text and integers as fmt wrote them, a number in a plain `{}` as a stream does
// (6 significant digits; no call site logs one).
std::string format_log(const char* format, std::initializer_list<LogArg> args);

// One named log per module ("ktune.cache", "ktune.runtime", ...), writing to stderr
// through spdlog, level from $KTUNE_LOG_LEVEL (trace, debug, info, warn, error, off;
// default info). spdlog stays inside log.cpp: a file that included it took 13 s to
// compile.
// A message below the level is not formatted.
class Log {
 public:
  explicit Log(std::shared_ptr<spdlog::logger> sink) : sink_(std::move(sink)) {}
  template <typename... A>
  void info(const char* format, const A&... a) const {
    if (enabled(2)) write(2, format_log(format, {LogArg(a)...}));
  }
  template <typename... A>
  void warn(const char* format, const A&... a) const {
    if (enabled(3)) write(3, format_log(format, {LogArg(a)...}));
  }
  template <typename... A>
  void error(const char* format, const A&... a) const {
    if (enabled(4)) write(4, format_log(format, {LogArg(a)...}));
  }

 private:
  // (spdlog's level numbers)
  bool enabled(int level) const;
  void write(int level, const std::string& message) const;
  std::shared_ptr<spdlog::logger> sink_;
};

// The module's log, created (with its spdlog logger) on first use; lives to the end.
const Log* logger(const char* name);

// The time now as ISO 8601 UTC, e.g. "2026-11-23T09:00:00Z" (logs, records, bundles).
std::string utc_now();

}  // namespace ktune
