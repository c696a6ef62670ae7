#include "run/bench.hpp"

#include <ktune/error.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <algorithm>

namespace ktune {

BenchResult bench(Harness& harness, const DeviceInfo& dev, const std::vector<nlohmann::json>& configs, int min_reps,
                  int rounds) {
  if (configs.empty()) throw Error("bench: no configs given");
  const KernelSpec& spec = harness.spec();
  BenchResult result;
  result.device_name = dev.fingerprint.name;
  result.ceiling_gbps = harness.bytes_moved() / (harness.time_ceiling().median_us * 1e3);

  std::vector<Instance> instances;
  std::vector<std::size_t> valid;  // rows that compile
  result.rows.resize(configs.size());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    BenchRow& row = result.rows[i];
    row.config = configs[i].dump();
    try {
      const Config c = config_from_json(spec, configs[i]);
      row.config = config_to_string(spec, c);
      instances.push_back(instantiate(spec, c, dev.limits, harness.problem(), harness.type_argument()));
      names.push_back(instances.back().name_expression);
      valid.push_back(i);
    } catch (const Error& e) {
      row.status = "invalid";
      row.reason = e.what();
    }
  }
  if (valid.empty()) return result;
  const CompileOutput out = compile_cubin(harness.tuning_problem().source, names, dev.arch, spec.family());
  Module module(out.cubin, spec.family() + " bench");
  std::vector<CUfunction> functions;
  std::vector<std::size_t> ok;  // positions in `valid`
  for (std::size_t k = 0; k < valid.size(); ++k) {
    functions.push_back(module.function(out.lowered_names[k]));
    prepare_function(functions.back(), instances[k]);
    BenchRow& row = result.rows[valid[k]];
    if (auto wrong = harness.verify(functions.back(), instances[k])) {
      row.status = "wrong";
      row.reason = *wrong;
    } else {
      row.status = "ok";
      ok.push_back(k);
    }
  }
  // A first measurement says whether each kernel is batched (the ceiling's measurement
  // decided for the run); re-timing batches about 200 us of it (retime_batch).
  std::vector<int> batch(valid.size(), 1);
  for (auto k : ok) batch[k] = retime_batch(harness.timer().measure([&] { harness.launch(functions[k], instances[k]); }));
  std::vector<std::vector<float>> samples(valid.size());
  for (int r = 0; r < std::max(1, rounds); ++r)
    for (auto k : ok) {
      const auto s =
          harness.timer().sample([&] { harness.launch(functions[k], instances[k]); }, min_reps, batch[k]);
      samples[k].insert(samples[k].end(), s.begin(), s.end());
    }
  double lo = 0, hi = 0;
  for (auto k : ok) {
    BenchRow& row = result.rows[valid[k]];
    row.timing = summarize(samples[k]);
    row.timing.batch = batch[k];
    row.gbps = harness.bytes_moved() / (row.timing.median_us * 1e3);
    row.ceiling_fraction = row.gbps / result.ceiling_gbps;
    lo = lo == 0 ? row.timing.median_us : std::min(lo, row.timing.median_us);
    hi = std::max(hi, row.timing.median_us);
  }
  result.spread_pct = lo > 0 ? 100 * (hi - lo) / lo : 0;
  return result;
}

}  // namespace ktune
