#pragma once
#include <spdlog/spdlog.h>

#include <memory>

namespace ktune {

// One named spdlog logger per module ("ktune.cache", "ktune.runtime", ...), writing to
// stderr, level from $KTUNE_LOG_LEVEL (trace, debug, info, warn, error, off; default info).
std::shared_ptr<spdlog::logger> logger(const char* name);

}  // namespace ktune
