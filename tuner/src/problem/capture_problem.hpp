#pragma once
// `ktune tune --capture BUNDLE`: a captured problem as a tuning target. A user's
// kernel is rebuilt from the source in the bundle (its hash must be the one the
// application looks up) and tuned on the captured data; a built-in call's bundle is its
// record key, tuned like `--record`. Either way the winner is stored for this GPU,
// whatever GPU captured it.
#include <ktune/cache/capture_bundle.hpp>
#include <ktune/tuner/family.hpp>

#include <filesystem>

namespace ktune {

// Throws CaptureError naming the file and the reason: unreadable, truncated, corrupted,
// another format, an unknown family or kernel description, a source that does not
// match its hash. The data's own hashes are checked when the harness reads them.
TuneTarget capture_target(const std::filesystem::path& bundle);

// "jacobi f32 nx=8192 ny=8192, captured on NVIDIA H100 80GB HBM3 at 2026-11-23T09:00:00Z"
std::string capture_summary(const CaptureBundle& header_only);

}  // namespace ktune
