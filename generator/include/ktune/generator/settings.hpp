#pragma once
// Every KTUNE_* environment variable the library and the `ktune` binary read is read
// here and nowhere else; docs/settings.md lists them in one table. Each returns the
// value as given, "" when unset or empty; its user parses it and names the variable in
// any error. (Variables of the test programs and scripts are theirs: docs/testing.md.)
#include <string>

namespace ktune::settings {

std::string cache_dir();          // KTUNE_CACHE_DIR: the database's folder
std::string log_level();          // KTUNE_LOG_LEVEL: trace, debug, info, warn, error, off
std::string db_busy_ms();         // KTUNE_DB_BUSY_MS: wait for another writer (ms)
std::string capture();            // KTUNE_CAPTURE: families or kernels whose calls are captured
std::string capture_dir();        // KTUNE_CAPTURE_DIR: where capture bundles go
std::string capture_limit_mb();   // KTUNE_CAPTURE_LIMIT_MB: the largest bundle
std::string tune_on_miss();       // KTUNE_TUNE_ON_MISS: "1" tunes a problem at its first call
std::string tune_on_miss_args();  // KTUNE_TUNE_ON_MISS_ARGS: extra `ktune tune` arguments then
std::string tuner();              // KTUNE_TUNER: the ktune binary the runtime starts
std::string shipped_winners();    // KTUNE_SHIPPED_WINNERS: a winners table instead of the shipped ones; "off": none
// KTUNE_FAULTED_CONFIGS: set by `ktune tune` for the fresh process it continues in after
// a kernel faulted (config -> reason, JSON); not for users.
std::string faulted_configs();
// KTUNE_CUDA_INCLUDE: the CUDA toolkit's include folder, for kernels that include its
// headers (cuda_fp16.h, cuda_bf16.h); found without it in the usual places.
std::string cuda_include();
// KTUNE_CUPTI_LIBRARY: the libcupti the tuner loads for hardware counters (found without
// it in the usual places).
std::string cupti_library();
// KTUNE_COUNTERS_REFUSED: "1" makes the tuner act as if the driver refused performance
// counters (ERR_NVGPUCTRPERM); for tests of that path on machines that allow them.
std::string counters_refused();
// CUDA_PATH, else CUDA_HOME (not ktune's: the toolkit's usual variables), read here too.
std::string cuda_path();

}  // namespace ktune::settings
