#pragma once
// What every public call of ktune returns, and the stream type it takes; the family
// headers and <ktune/ktune.hpp> share it.
#include <ktune/match_level.hpp>

#include <string>

struct CUstream_st;

namespace ktune {

using Stream = CUstream_st*;  // the type behind both cudaStream_t and CUstream

struct LaunchInfo {
  MatchLevel match = MatchLevel::fallback;  // exact / nearest tuned problem / safe default
  std::string config;                       // e.g. "tile_m=64 tile_n=64 ... layout=pad"
  std::string tuned_shape;                  // the stored problem used (empty at fallback)
};

class Runtime;
// The process-wide runtime (default database), created at first use.
Runtime& default_runtime();

}  // namespace ktune
