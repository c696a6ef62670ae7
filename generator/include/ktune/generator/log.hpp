#pragma once
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace ktune {

// One named spdlog logger per module ("ktune.cache", "ktune.runtime", ...), writing to
// stderr, level from $KTUNE_LOG_LEVEL (trace, debug, info, warn, error, off; default info).
std::shared_ptr<spdlog::logger> logger(const char* name);

// The time now as ISO 8601 UTC, e.g. "2026-11-23T09:00:00Z" (logs, records, bundles).
std::string utc_now();

}  // namespace ktune
