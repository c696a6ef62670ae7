// Which counters: the default set, `--counters` parsed, names checked against a chip
// with CUPTI's host API (no GPU needed).
#include <ktune/error.hpp>
#include <ktune/tuner/counters.hpp>

#include "measure/counters/cupti_api.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace ktune {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// unit__counter[.rollup[.submetric...]]: lower-case letters, digits, '_' and '.'.
bool metric_shaped(const std::string& m) {
  if (m.size() > 200 || m.find("__") == std::string::npos || m.front() == '_' || m.front() == '.') return false;
  return std::all_of(m.begin(), m.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.';
  });
}

// A host object for `chip`, released on scope exit.
class HostObject {
 public:
  HostObject(const cupti::Api& api, const std::string& chip) : api_(api) {
    auto p = cupti::params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    if (api.cuptiProfilerHostInitialize(&p) == CUPTI_SUCCESS) object_ = p.pHostObject;
  }
  ~HostObject() {
    if (!object_) return;
    auto d = cupti::params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    d.pHostObject = object_;
    api_.cuptiProfilerHostDeinitialize(&d);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  const cupti::Api& api_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

}  // namespace

const std::vector<std::string>& default_counter_metrics() {
  static const std::vector<std::string> metrics{
      "gpu__time_duration.sum",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "lts__t_sector_hit_rate.pct",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "sm__inst_issued.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__cycles_elapsed.avg.per_second",
  };
  return metrics;
}

std::vector<std::string> parse_counter_metrics(const std::string& text) {
  const std::string t = trim(text);
  if (t == "default") return default_counter_metrics();
  if (t == "none") return {};
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = t.find(',', at);
    const std::string name = trim(t.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (name.empty())
      throw InvalidArgument("--counters '" + text + "': an empty metric name (names separated by commas, 'default' or 'none')");
    if (!metric_shaped(name))
      throw InvalidArgument("--counters: '" + name + "' is not a metric name as Nsight Compute spells them "
                            "(e.g. dram__bytes_read.sum; `ncu --query-metrics` lists a GPU's)");
    if (!seen.insert(name).second) throw InvalidArgument("--counters: '" + name + "' is given twice");
    out.push_back(name);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

std::vector<std::string> counter_chips() {
  const cupti::Api* api = cupti::api();
  if (!api) return {};
  auto c = cupti::params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  if (api->cuptiProfilerHostGetSupportedChips(&c) != CUPTI_SUCCESS) return {};
  return std::vector<std::string>(c.ppChipNames, c.ppChipNames + c.numChips);
}

std::optional<std::string> counter_metrics_problem(const std::vector<std::string>& metrics, const std::string& chip) {
  std::string why;
  const cupti::Api* api = cupti::api(&why);
  if (!api) return why;
  // One metric at a time, each with a host object of its own (a failed add leaves the
  // object unusable), so the message names the first unknown one.
  for (const auto& m : metrics) {
    const HostObject host(*api, chip);
    if (!host.get()) return "CUPTI does not know the chip " + chip;
    const char* names[] = {m.c_str()};
    auto a = cupti::params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    a.pHostObject = host.get();
    a.ppMetricNames = names;
    a.numMetrics = 1;
    if (api->cuptiProfilerHostConfigAddMetrics(&a) != CUPTI_SUCCESS)
      return "--counters: " + chip + " has no metric '" + m + "' (names as Nsight Compute spells them; "
             "`ncu --query-metrics` lists this GPU's)";
  }
  return std::nullopt;
}

}  // namespace ktune
