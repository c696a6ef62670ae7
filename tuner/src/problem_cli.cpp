#include "problem_cli.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/generator/elementwise_family.hpp>
#include <ktune/generator/gemm_family.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/reduce_family.hpp>
#include <ktune/generator/transpose_family.hpp>
#include <ktune/tuner/elementwise_harness.hpp>
#include <ktune/tuner/gemm_harness.hpp>
#include <ktune/tuner/reduce_harness.hpp>
#include <ktune/tuner/transpose_harness.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {
namespace {

DType dtype_of(const std::string& name) {
  const auto d = parse_dtype(name);
  if (!d) throw Error("unknown dtype '" + name + "' (known: " + std::string(dtype_names()) + ")");
  return *d;
}

// The problem options each family reads; any other one given is an error, not ignored.
// (Moves into the families' registered parts with the kernel registry.)
void check_options_apply(const ProblemArgs& p) {
  if (!p.command) return;
  static const std::vector<std::pair<std::string, std::vector<std::string>>> used = {
      {"transpose", {"--dtype", "--shape"}},
      {"elementwise", {"--dtype", "--expr", "--out-dtype", "--scalar", "--n"}},
      {"reduce", {"--dtype", "--op", "--n"}},
      {"reduce_rows", {"--dtype", "--op", "--shape"}},
      {"reduce_cols", {"--dtype", "--op", "--shape"}},
      {"gemm", {"--dtype", "--shape", "--layout"}}};
  for (const auto& [family, options] : used) {
    if (family != p.family) continue;
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "" : " ") + o;
    for (const char* option : {"--dtype", "--shape", "--expr", "--out-dtype", "--scalar", "--n", "--layout", "--op"})
      if (p.command->count(option) && std::find(options.begin(), options.end(), option) == options.end())
        throw Error(std::string(option) + " does not apply to " + family + " (its options: " + list + ")");
  }
}

}  // namespace

void add_problem_options(CLI::App* cmd, ProblemArgs& p) {
  p.command = cmd;
  cmd->add_option("family", p.family, "kernel family: transpose | elementwise | reduce | reduce_rows | reduce_cols | gemm")
      ->required();
  cmd->add_option("--dtype", p.dtype, std::string("element type: ") + std::string(dtype_names()) +
                                          " (elementwise: f32, f16, bf16, f64; of the inputs)")
      ->capture_default_str();
  cmd->add_option("--shape", p.shape, "transpose, reduce_rows, reduce_cols: ROWSxCOLS of the (source) matrix; gemm: MxNxK")
      ->capture_default_str();
  cmd->add_option("--expr", p.expr,
                  "elementwise: e.g. 'out = a * b + c', or add, mul, fma, axpy, relu, scale, cast");
  cmd->add_option("--out-dtype", p.out_dtype, "elementwise: element type of the outputs (default: --dtype)");
  cmd->add_option("--scalar", p.scalars, "elementwise: a scalar and its value, e.g. alpha=2.5 (repeatable)");
  cmd->add_option("--n", p.n, "elementwise, reduce: number of elements")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option("--layout", p.layout, "gemm: nn, nt, tn or tt (row-major A and B as stored; t: that operand transposed)")
      ->capture_default_str();
  cmd->add_option("--op", p.op, "reduce, reduce_rows, reduce_cols: sum | max | min | mean")->capture_default_str();
}

std::string problem_options(const ProblemArgs& p) {
  if (p.family == "gemm") return "--dtype " + p.dtype + " --shape " + p.shape + " --layout " + p.layout;
  if (p.family == "reduce") return "--op " + p.op + " --dtype " + p.dtype + " --n " + std::to_string(p.n);
  if (p.family == "reduce_rows" || p.family == "reduce_cols")
    return "--op " + p.op + " --dtype " + p.dtype + " --shape " + p.shape;
  if (p.family != "elementwise") return "--dtype " + p.dtype + " --shape " + p.shape;
  std::string s = "--expr '" + p.expr + "' --dtype " + p.dtype + (p.out_dtype.empty() ? "" : " --out-dtype " + p.out_dtype) +
                  " --n " + std::to_string(p.n);
  for (const auto& v : p.scalars) s += " --scalar " + v;
  return s;
}

ParsedProblem parse_problem(const ProblemArgs& p) {
  ParsedProblem out;
  out.spec = &KernelSpec::builtin(p.family);  // throws on an unknown family
  check_options_apply(p);
  const DType dtype = dtype_of(p.dtype);
  if (p.family == "reduce" || p.family == "reduce_rows" || p.family == "reduce_cols") {
    const auto op = parse_reduce_op(p.op);
    if (!op) throw Error("unknown --op '" + p.op + "' (sum, max, min, mean)");
    std::int64_t rows = 1, cols = p.n;
    if (p.family != "reduce") {
      const auto shape = parse_shape(p.shape);
      if (!shape || shape->size() != 2)
        throw Error("bad --shape '" + p.shape + "': expected ROWSxCOLS with positive integers, e.g. 16384x16384");
      rows = (*shape)[0], cols = (*shape)[1];
    }
    const ReduceArgs a = reduce_probe_args({*op, dtype, rows, cols, cols, 0, 0, p.family == "reduce_cols"});
    validate(a);
    out.problem = p.family == "reduce" ? reduce_problem(a) : reduce_rows_problem(a);
    out.source = out.spec->source();
    out.type_argument = reduce_type_argument(*op, dtype);
    out.description = p.family + " " + p.op + " " + p.dtype + " " +
                      (p.family == "reduce" ? "n=" + std::to_string(cols) : p.shape);
    const std::string family = p.family;
    out.harness = [=](const DeviceInfo& dev, const TimingProtocol& t) {
      return std::make_unique<ReduceHarness>(dev, family, *op, dtype, rows, cols, t);
    };
    return out;
  }
  if (p.family == "gemm") {
    const auto shape = parse_shape(p.shape);
    if (!shape || shape->size() != 3)
      throw Error("bad --shape '" + p.shape + "': expected MxNxK with positive integers, e.g. 4096x4096x4096");
    const std::int64_t m = (*shape)[0], n = (*shape)[1], k = (*shape)[2];
    GemmArgs a{dtype, m, n, k};
    if (!set_gemm_layout(a, p.layout))
      throw Error("unknown --layout '" + p.layout + "' (nn, nt, tn, tt: n = as stored, t = transposed; A first)");
    // cuMemAlloc'd dense matrices: the tuning alignment class.
    a = gemm_probe_args(gemm_dense_pitches(a));
    validate(a);
    out.problem = gemm_problem(a);
    out.source = out.spec->source();
    out.type_argument = gemm_type_argument(a);
    out.description = "gemm " + p.dtype + " " + p.shape + " " + p.layout;
    out.harness = [=](const DeviceInfo& dev, const TimingProtocol& t) {
      return std::make_unique<GemmHarness>(dev, a, t);
    };
    return out;
  }
  if (p.family == "transpose") {
    const auto shape = parse_shape(p.shape);
    if (!shape || shape->size() != 2)
      throw Error("bad --shape '" + p.shape + "': expected ROWSxCOLS with positive integers, e.g. 8192x2048");
    const std::int64_t rows = (*shape)[0], cols = (*shape)[1];
    if (rows > std::numeric_limits<std::int32_t>::max() || cols > std::numeric_limits<std::int32_t>::max())
      throw Error("transpose " + p.shape + ": rows and cols must each be below 2^31");
    out.problem = transpose_problem_unpitched(dtype, rows, cols);
    out.source = out.spec->source();
    out.description = "transpose " + p.dtype + " " + p.shape;
    out.harness = [=](const DeviceInfo& dev, const TimingProtocol& t) {
      return std::make_unique<TransposeHarness>(dev, dtype, rows, cols, t);
    };
    return out;
  }
  // elementwise
  if (p.expr.empty()) throw Error("elementwise needs --expr, e.g. --expr 'out = a * b + c' or --expr add");
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& s : p.scalars) {
    const auto eq = s.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(s.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == s.c_str() + eq + 1 || *end || !std::isfinite(v))
      throw Error("bad --scalar '" + s + "': expected NAME=VALUE, e.g. alpha=2.5");
    if (std::find(names.begin(), names.end(), s.substr(0, eq)) != names.end())
      throw Error("--scalar " + s.substr(0, eq) + " is given twice");
    names.push_back(s.substr(0, eq));
    values.push_back(v);
  }
  ElementwiseOp op = make_elementwise_op(p.expr, dtype, p.out_dtype.empty() ? dtype : dtype_of(p.out_dtype), names);
  // Values in the expression's order of scalars (the shortcuts' alpha defaults to 2).
  std::vector<double> ordered;
  for (const auto& s : op.expr.scalars()) {
    const auto it = std::find(names.begin(), names.end(), s);
    if (it == names.end() && s != "alpha") throw Error("scalar '" + s + "' needs a value: --scalar " + s + "=VALUE");
    ordered.push_back(it == names.end() ? 2.0 : values[static_cast<std::size_t>(it - names.begin())]);
  }
  const std::int64_t n = p.n;
  out.problem = elementwise_problem(op, n, 16 / std::max(size_of(op.in), size_of(op.out)));
  out.source = out.spec->source() + elementwise_op_source(op);
  out.type_argument = k_elementwise_op_type;
  out.description = "elementwise '" + op.expr.normalized() + "' " + elementwise_dtype_key(op) + " n=" + std::to_string(n);
  out.harness = [=](const DeviceInfo& dev, const TimingProtocol& t) {
    return std::make_unique<ElementwiseHarness>(dev, op, n, ordered, t);
  };
  return out;
}

}  // namespace ktune
