#pragma once
// `ktune tune --workload FILE --devices LIST`: a workload spread over several GPUs of
// one host that share a device fingerprint, one worker process per GPU at a time (each
// `ktune tune PROBLEM --device N`: its own tuner lock, timing and CUDA context), handed
// the next problem as soon as it finishes, with one progress line per problem and an
// ETA. Problems already stored for the current template are skipped first; the rest are
// handed out in the order given, and each one's time is recorded (tuning_times_path).
#include "workload/workload.hpp"

#include "run/tune.hpp"

#include <string>
#include <vector>

namespace ktune {

// "0,1,3" or "all" (every visible GPU with device 0's fingerprint); throws ktune::Error
// for other text, repeated or missing ordinals, or GPUs whose fingerprints differ.
std::vector<int> parse_devices(const std::string& text);

// Tunes the entries not yet stored on `devices`; `opt` as given to `ktune tune`
// (its device is ignored; NVRTC threads default to the host's cores over the workers).
// Ctrl-C lets the running problems store their best so far and starts no new one.
// Returns 0 when every problem is tuned or stored, 1 otherwise.
int tune_workload_on_devices(const std::vector<WorkloadEntry>& entries, const TuneOptions& opt,
                             const std::vector<int>& devices, const std::string& summary);

}  // namespace ktune
