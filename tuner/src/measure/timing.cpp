#include <ktune/tuner/timing.hpp>


#include <algorithm>
#include <cmath>

namespace ktune {

TimingStats summarize(std::vector<float> samples) {
  TimingStats s;
  s.samples = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  s.raw_us = samples;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min_us = samples.front();
  s.max_us = samples.back();
  s.median_us = n % 2 ? samples[n / 2] : 0.5 * (static_cast<double>(samples[n / 2 - 1]) + samples[n / 2]);
  // Distribution-free CI of the median from order statistics: ranks n/2 -+ 0.98 sqrt(n).
  const double nd = static_cast<double>(n);
  const double half = 0.98 * std::sqrt(nd);
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(nd / 2.0 - half)));
  const auto hi = static_cast<std::size_t>(std::min(nd - 1.0, std::ceil(nd / 2.0 + half)));
  s.ci_pct = s.median_us > 0 ? 50.0 * (samples[hi] - samples[lo]) / s.median_us : 0;
  return s;
}

Timer::Timer(const DeviceInfo& device, CUstream stream, TimingProtocol protocol)
    : stream_(stream), protocol_(protocol) {
  if (protocol_.cold) flush_ = std::make_unique<L2Flush>(device);
}

Timer::~Timer() {
  for (CUevent e : events_) driver::api().cuEventDestroy(e);
}

namespace {

// An instantiated CUDA graph captured from `body` on `stream`; destroyed with it.
class Graph {
 public:
  Graph(CUstream stream, const std::function<void()>& body) {
    const auto& d = driver::api();
    driver::check(d.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    CUgraph graph = nullptr;
    try {
      body();
    } catch (...) {
      d.cuStreamEndCapture(stream, &graph);  // leave the stream usable
      if (graph) d.cuGraphDestroy(graph);
      throw;
    }
    driver::check(d.cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
    const CUresult rc = d.cuGraphInstantiate(&exec_, graph, 0);
    d.cuGraphDestroy(graph);
    driver::check(rc, "cuGraphInstantiate");
  }
  ~Graph() {
    if (exec_) driver::api().cuGraphExecDestroy(exec_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void launch(CUstream stream) const { driver::check(driver::api().cuGraphLaunch(exec_, stream), "cuGraphLaunch"); }

 private:
  CUgraphExec exec_ = nullptr;
};

}  // namespace

std::vector<float> Timer::sample(const std::function<void()>& launch, int reps, int batch) {
  const auto& d = driver::api();
  if (batch > 1) {
    // One flush more than kernels, after the last: each kernel's write-back of its
    // output falls in the next flush, so every kernel of the batch pays its own, and
    // the time a kernel is charged does not depend on the batch size.
    const Graph work(stream_, [&] {
      for (int k = 0; k < batch; ++k) {
        if (flush_) flush_->enqueue(stream_);
        launch();
      }
      if (flush_) flush_->enqueue(stream_);
    });
    std::unique_ptr<Graph> flushes;
    if (flush_)
      flushes = std::make_unique<Graph>(stream_, [&] {
        for (int k = 0; k <= batch; ++k) flush_->enqueue(stream_);
      });
    const auto timed = [&](const Graph* g) -> std::function<void()> {
      return [this, g] {
        if (g) g->launch(stream_);
      };
    };
    const auto with = sample(timed(&work), reps, 1);
    // The flush graph a third as often, its median subtracted from every sample: that
    // costs a third of timing it beside each sample and adds less noise (a median of
    // several against one sample). No flush graph (hot): nothing to subtract.
    const double without =
        flushes ? summarize(sample(timed(flushes.get()), std::max(3, reps / 3), 1)).median_us : 0.0;
    std::vector<float> out(with.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<float>((with[i] - without) / batch);
    return out;
  }
  while (events_.size() < 2 * static_cast<std::size_t>(reps)) {
    CUevent e = nullptr;
    driver::check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    events_.push_back(e);
  }
  for (int i = 0; i < reps; ++i) {
    if (flush_) flush_->enqueue(stream_);
    driver::check(d.cuEventRecord(events_[2 * i], stream_), "cuEventRecord");
    launch();
    driver::check(d.cuEventRecord(events_[2 * i + 1], stream_), "cuEventRecord");
  }
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize");
  std::vector<float> out(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    driver::check(d.cuEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]), "cuEventElapsedTime");
    out[static_cast<std::size_t>(i)] = ms * 1000.0f;
  }
  return out;
}

double Timer::flush_us() {
  if (!flush_) return 0;
  if (!flush_us_) flush_us_ = summarize(sample([this] { flush_->enqueue(stream_); }, 5)).median_us;
  return *flush_us_;
}

namespace {

// Kernels in a batch of about 200 us, each taking `us` (4 to 64).
int batch_for(double us) { return std::clamp(static_cast<int>(200.0 / us), 4, 64); }

}  // namespace

int retime_batch(const TimingStats& measured) {
  return measured.batch > 1 ? batch_for(std::max(measured.median_us, 0.5)) : 1;
}

bool far_behind(const TimingStats& probe, double hopeless_us, double floor_us) {
  return hopeless_us > 0 && probe.samples >= k_probe_reps && probe.median_us >= floor_us &&
         probe.median_us > 1.5 * hopeless_us;
}

TimingStats Timer::measure(const std::function<void()>& launch, double hopeless_us) {
  sample(launch, protocol_.warmup);
  std::vector<float> all = sample(launch, std::min(k_probe_reps, protocol_.min_reps));
  TimingStats s = summarize(all);
  if (far_behind(s, hopeless_us, 2 * protocol_.batch_below_us)) return s;
  if (protocol_.min_reps > k_probe_reps) {
    const auto rest = sample(launch, protocol_.min_reps - k_probe_reps);
    all.insert(all.end(), rest.begin(), rest.end());
    s = summarize(all);
  }
  if (!batched_) batched_ = s.median_us < protocol_.batch_below_us;
  int batch = 1;
  if (*batched_) {
    // A batched run: about 200 us of work per sample, the flushes included (4 kernels at
    // least), from scratch. Each flush reads twice the L2 (about 30 us on an H200, ten
    // times a 3 us kernel): batches sized by the kernel alone made samples of 2-4 ms, and
    // a small shape's search took 60-70 s (H200, 1000x999, 1432-1550 configs).
    batch = batch_for(std::max(s.median_us, 0.5) + flush_us());
    std::vector<float> batched = sample(launch, protocol_.min_reps, batch);
    const TimingStats b = summarize(batched);
    // The flushes' time is subtracted; where it varies more than the kernel takes (a
    // busy or instrumented GPU, e.g. under compute-sanitizer) the difference is no
    // time: keep timing launches one at a time.
    if (b.median_us > 0 && b.min_us > 0) {
      all = std::move(batched);
      s = b;
    } else {
      batch = 1;
    }
  }
  while (s.ci_pct > protocol_.target_ci_pct && s.samples < protocol_.max_reps &&
         !(hopeless_us > 0 && s.median_us > hopeless_us)) {
    const auto more = sample(launch, protocol_.min_reps, batch);
    all.insert(all.end(), more.begin(), more.end());
    s = summarize(all);
  }
  s.batch = batch;
  return s;
}

}  // namespace ktune
