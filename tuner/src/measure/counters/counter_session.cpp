// Counters of one launch with CUPTI's range profiler: auto ranges (one a kernel), user
// replay (the launch runs once per pass, as timing runs it many times; kernel replay, where
// CUPTI saves and restores device memory around every pass, took 5 s a GEMM config on an
// H200 against 0.1 s a transpose config), the values evaluated on the host for the chip.
#include <ktune/error.hpp>
#include <ktune/generator/settings.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/tuner/counters.hpp>

#include "measure/counters/cupti_api.hpp"

#include <algorithm>
#include <cstdint>

namespace ktune {
namespace {

constexpr std::size_t k_max_ranges = 16;  // kernels one launch may enqueue

const char* const k_refused =
    "hardware counters are restricted to administrators on this machine (ERR_NVGPUCTRPERM): the run goes on "
    "without counters. To allow them, load the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 or run "
    "as root (https://developer.nvidia.com/ERR_NVGPUCTRPERM)";

// A CUPTI call's failure as a typed error naming the call; the refusal as its own text.
void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) throw Error(k_refused);
  throw Error(std::string("counters: ") + what + " failed: " + cupti::result_name(r));
}

}  // namespace

struct CounterSession::State {
  const cupti::Api* api = nullptr;
  CUcontext ctx = nullptr;
  std::vector<std::string> metrics;
  std::vector<const char*> names;
  std::string chip;
  std::vector<std::uint8_t> availability, config, data;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  bool initialized = false;
  std::size_t passes = 0;

  ~State() {  // never throws: failures here are ignored
    if (profiler) {
      auto d = cupti::params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      d.pRangeProfilerObject = profiler;
      api->cuptiRangeProfilerDisable(&d);
    }
    if (host) {
      auto d = cupti::params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      d.pHostObject = host;
      api->cuptiProfilerHostDeinitialize(&d);
    }
    if (initialized) {
      auto d = cupti::params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      api->cuptiProfilerDeInitialize(&d);
    }
  }

  void start(int ordinal) {
    auto init = cupti::params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    check(api->cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    initialized = true;
    auto name = cupti::params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    name.deviceIndex = static_cast<std::size_t>(ordinal);
    check(api->cuptiDeviceGetChipName(&name), "cuptiDeviceGetChipName");
    chip = name.pChipName;
    auto avail = cupti::params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    check(api->cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
    availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    check(api->cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
  }

  void make_config() {
    auto h = cupti::params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    h.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    h.pChipName = chip.c_str();
    h.pCounterAvailabilityImage = availability.data();
    check(api->cuptiProfilerHostInitialize(&h), "cuptiProfilerHostInitialize");
    host = h.pHostObject;
    auto add = cupti::params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    check(api->cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
    auto size = cupti::params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host;
    check(api->cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
    config.resize(size.configImageSize);
    auto image = cupti::params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = host;
    image.configImageSize = config.size();
    image.pConfigImage = config.data();
    check(api->cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");
    auto n = cupti::params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    n.configImageSize = config.size();
    n.pConfigImage = config.data();
    check(api->cuptiProfilerHostGetNumOfPasses(&n), "cuptiProfilerHostGetNumOfPasses");
    passes = n.numOfPasses;
  }

  void enable() {
    auto e = cupti::params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    e.ctx = ctx;
    check(api->cuptiRangeProfilerEnable(&e), "cuptiRangeProfilerEnable");
    profiler = e.pRangeProfilerObject;
    auto size = cupti::params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = profiler;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = k_max_ranges;
    size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(k_max_ranges);
    check(api->cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
    data.resize(size.counterDataSize);
  }

  // A fresh counter data image and the config for one launch's ranges.
  void arm() {
    std::fill(data.begin(), data.end(), 0);
    auto init = cupti::params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = profiler;
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    check(api->cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
    auto set = cupti::params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = data.size();
    set.pCounterDataImage = data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = k_max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(api->cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
  }

  std::vector<std::vector<double>> ranges() {
    auto decode = cupti::params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = profiler;
    check(api->cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    if (decode.numOfRangeDropped)
      throw Error("counters: " + std::to_string(decode.numOfRangeDropped) + " kernel(s) of the launch were not "
                  "profiled (more than " + std::to_string(k_max_ranges) + " kernels)");
    auto info = cupti::params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    check(api->cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    std::vector<std::vector<double>> out(info.numTotalRanges, std::vector<double>(names.size()));
    for (std::size_t r = 0; r < out.size(); ++r) {
      auto eval = cupti::params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
      eval.pHostObject = host;
      eval.pCounterDataImage = data.data();
      eval.counterDataImageSize = data.size();
      eval.rangeIndex = r;
      eval.ppMetricNames = names.data();
      eval.numMetrics = names.size();
      eval.pMetricValues = out[r].data();
      check(api->cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
    }
    return out;
  }
};

std::unique_ptr<CounterSession> CounterSession::open(int device_ordinal, CUcontext ctx,
                                                     const std::vector<std::string>& metrics, std::string& why) {
  auto s = std::make_unique<State>();
  s->api = cupti::api(&why);
  if (!s->api) return nullptr;
  if (settings::counters_refused() == "1") {
    why = std::string(k_refused) + " [forced by KTUNE_COUNTERS_REFUSED=1]";
    return nullptr;
  }
  s->ctx = ctx;
  s->metrics = metrics;
  for (const auto& m : s->metrics) s->names.push_back(m.c_str());
  try {
    s->start(device_ordinal);
    if (auto problem = counter_metrics_problem(metrics, s->chip)) {
      why = *problem;
      return nullptr;
    }
    s->make_config();
    s->enable();
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
  return std::unique_ptr<CounterSession>(new CounterSession(std::move(s)));
}

CounterSession::CounterSession(std::unique_ptr<State> s) : state_(std::move(s)) {}
CounterSession::~CounterSession() = default;
std::size_t CounterSession::passes() const { return state_->passes; }
const std::string& CounterSession::chip() const { return state_->chip; }

CounterValues CounterSession::collect(const std::function<void()>& launch, const std::function<void()>& before_pass) {
  State& s = *state_;
  s.arm();
  // One pass a launch until CUPTI has every pass it needs (a bound: a runaway loop is an error).
  for (std::size_t pass = 0;; ++pass) {
    if (pass > s.passes + 2) throw Error("counters: CUPTI asked for more than " + std::to_string(s.passes + 2) + " passes");
    if (before_pass) {
      before_pass();
      driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize", "(before a pass for counters)");
    }
    auto start = cupti::params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = s.profiler;
    check(s.api->cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    launch();
    driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize", "(a launch replayed for counters)");
    auto stop = cupti::params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = s.profiler;
    check(s.api->cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    if (stop.isAllPassSubmitted) break;
  }
  const auto ranges = s.ranges();
  if (ranges.empty()) throw Error("counters: the launch ran no kernel that CUPTI profiled");
  // The longest kernel's values, and sums over every kernel for .sum metrics.
  const auto duration = std::find(s.metrics.begin(), s.metrics.end(), "gpu__time_duration.sum") - s.metrics.begin();
  std::size_t longest = ranges.size() - 1;
  if (static_cast<std::size_t>(duration) < s.metrics.size())
    for (std::size_t r = 0; r < ranges.size(); ++r)
      if (ranges[r][static_cast<std::size_t>(duration)] > ranges[longest][static_cast<std::size_t>(duration)]) longest = r;
  CounterValues out;
  for (std::size_t m = 0; m < s.metrics.size(); ++m) {
    const bool sum = s.metrics[m].size() > 4 && s.metrics[m].compare(s.metrics[m].size() - 4, 4, ".sum") == 0;
    double v = sum ? 0 : ranges[longest][m];
    if (sum)
      for (const auto& r : ranges) v += r[m];
    out[s.metrics[m]] = v;
  }
  return out;
}

}  // namespace ktune
