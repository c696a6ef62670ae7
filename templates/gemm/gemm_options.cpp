#include <gemm/gemm_options.hpp>

#include <ktune/error.hpp>
#include <gemm/gemm_harness.hpp>

namespace ktune {

std::vector<ProblemOption> gemm_options(const char* default_dtype) {
  return {{"dtype", "element type of A, B and C: f32, f64, f16, bf16 (f16 and bf16 accumulate in f32)", default_dtype},
          {"out-dtype", "element type of C when not --dtype's: f32 for f16 and bf16 inputs (tensor cores)", ""},
          {"shape", "MxNxK", "4096x4096x4096"},
          {"layout", "nn, nt, tn or tt (row-major A and B as stored; t: that operand transposed)", "nn"},
          {"math",
           "auto (f16 and bf16 on tensor cores, f32 and f64 exact SIMT FMAs), simt (SIMT for every dtype) or tf32 "
           "(f32 on tensor cores as TF32: 10-bit mantissas, an opt-in)",
           "auto"}};
}

GemmArgs gemm_args(const OptionValues& values) {
  const auto shape = shape_option(values, 3, "4096x4096x4096");
  GemmArgs a{dtype_option(values), shape[0], shape[1], shape[2]};
  const std::string& layout = single_option(values, "layout");
  if (!set_gemm_layout(a, layout))
    throw InvalidArgument("unknown --layout '" + layout + "' (nn, nt, tn, tt: n = as stored, t = transposed; A first)");
  const std::string& math = single_option(values, "math");
  const auto parsed = parse_gemm_math(math);
  if (!parsed) throw InvalidArgument("unknown --math '" + math + "' (auto, simt or tf32)");
  a.math = *parsed;
  if (values.count("out-dtype") && dtype_option(values, "out-dtype") != a.dtype) a.out = dtype_option(values, "out-dtype");
  // cuMemAlloc'd dense matrices: the tuning alignment class.
  return gemm_probe_args(gemm_dense_pitches(a));
}

TuneTarget gemm_target(const GemmArgs& a) {
  return {gemm_tuning_problem(a),
          [=](const DeviceInfo& dev, const TimingProtocol& t) { return std::make_unique<GemmHarness>(dev, a, t); }};
}

OptionValues gemm_options_of(const TuningRecord& r, const KernelSpec& spec) {
  if (r.shape.size() != 3) throw InvalidArgument("a gemm record has an MxNxK shape");
  const std::size_t arrow = r.dtype.find('>');  // "bf16>f32": f32 output
  OptionValues values{{"dtype", {r.dtype.substr(0, arrow)}},
                      {"shape", {shape_to_string(r.shape)}},
                      {"layout", {r.variant}},
                      {"math", {"auto"}}};
  if (arrow != std::string::npos) values["out-dtype"] = {r.dtype.substr(arrow + 1)};
  // A SIMT record of a dtype that tensor cores take by default was tuned with --math
  // simt; a tensor-core record of f32, with --math tf32.
  GemmArgs probe{dtype_option(values)};
  for (GemmMath math : {GemmMath::automatic, GemmMath::simt, GemmMath::tf32}) {
    probe.math = math;
    if (&gemm_spec(probe) == &spec) {
      values["math"] = {to_string(math)};
      break;
    }
  }
  return values;
}

}  // namespace ktune
