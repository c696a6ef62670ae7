#pragma once
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/l2_flush.hpp>

#include <functional>
#include <optional>
#include <vector>

namespace ktune {

struct TimingStats {
  double median_us = 0, min_us = 0, max_us = 0;
  double ci_pct = 0;  // half-width of the ~95% confidence interval of the median, % of it
  int samples = 0;
  int batch = 1;  // kernels per timed sample (CUDA graph) for short kernels
  std::vector<float> raw_us;
};

TimingStats summarize(std::vector<float> samples_us);

// Timer::measure's first samples, and whether they already rule a candidate out: their
// median more than 1.5 x hopeless_us (hopeless_us 0: never), i.e. about twice the best
// so far, where the median of 3 is robust to one outlier and a 1% noise moves nothing.
// Only at floor_us or more: single launches of shorter kernels carry launch and event
// overhead that the best's batched timing does not.
constexpr int k_probe_reps = 3;
bool far_behind(const TimingStats& probe, double hopeless_us, double floor_us);

// The batch in which a kernel measured in batches is re-timed interleaved with others
// (finalists, `ktune bench`): about 200 us of its own time a sample (4 to 64 kernels),
// where Timer::measure counts its flushes too, to search fast. Few kernels are re-timed,
// and these longer samples are the precise ones that decide between them.
int retime_batch(const TimingStats& measured);

struct TimingProtocol {
  bool cold = true;         // flush L2 before each repetition
  int warmup = 2;
  int min_reps = 10;
  int max_reps = 60;
  double target_ci_pct = 1.0;  // stop once the median is known this well
  // A run whose first measurement (the ceiling) is shorter is timed in CUDA-graph
  // batches, every kernel of it alike (Timer::measure).
  double batch_below_us = 10;
  // Re-time such a run's finalists in batches too, as its search did (before 2026-11-29
  // the only protocol; `--batched-finals`). By default they are timed one launch at a
  // time between events, as users and the peers time a kernel (docs/timing.md).
  bool batched_finals = false;
};

// Times device work with events around the work only. Cold mode flushes the L2
// (L2Flush: a read of twice its size) before each repetition.
class Timer {
 public:
  Timer(const DeviceInfo& device, CUstream stream, TimingProtocol protocol);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // `launch` enqueues the work on the stream. The first call decides, for the Timer's
  // life, whether samples are CUDA-graph batches (its work ran under batch_below_us), so
  // that every candidate of a run is timed by one protocol. Deciding per kernel mixed
  // them: at H200 f16 16384x1024 the configs under 20 us were batched, which charges
  // them the write-back of part of their output (2-4 us), and lost to slower ones timed
  // one launch at a time. Repeats until the CI target or the cap;
  // a candidate whose median is already above `hopeless_us` stops at min_reps (its
  // exact time cannot change the outcome), and one whose first 3 samples' median is
  // half again past it (far_behind) stops there: at large shapes most of a search's
  // GPU time went to timing such configs 10 times.
  TimingStats measure(const std::function<void()>& launch, double hopeless_us = 0);
  // Exactly `reps` timed samples (no warm-up), each the time of one kernel: for
  // interleaved re-timing. With batch > 1 a sample is a CUDA graph of `batch`
  // (flush, kernel) pairs and one flush more, minus the median time of a graph of its
  // `batch` + 1 flushes (timed after the samples, a third as often), divided by `batch`:
  // launch gaps and event resolution vanish from short kernels.
  std::vector<float> sample(const std::function<void()>& launch, int reps, int batch = 1);
  const TimingProtocol& protocol() const { return protocol_; }
  // Whether the first measure() chose CUDA-graph batches; from now on measure() times one
  // launch at a time (a batched run's finalists and its ceiling again, TuningRun).
  bool batched() const { return batched_.value_or(false); }
  void time_one_launch_at_a_time() { batched_ = false; }

 private:
  double flush_us();  // one flush's time (0 when hot), measured once

  CUstream stream_;
  TimingProtocol protocol_;
  std::unique_ptr<L2Flush> flush_;  // null when timing hot
  std::optional<bool> batched_;      // decided by the first measure()
  std::optional<double> flush_us_;   // flush_us(), once measured
  std::vector<CUevent> events_;
};

}  // namespace ktune
