#include <ktune/runtime/array_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/regions.hpp>
#include <ktune/runtime/runtime_impl.hpp>

#include <algorithm>

namespace ktune {
namespace {

bool whole(const ArrayArgs& a) { return a.lines == Lines::whole; }

// "<kernel> <op> <dtype> n=N", or "... ROWSxCOLS" for a matrix.
std::string describe(const ArrayFamily& f, const ArrayArgs& a) {
  const char* kernel = f.kernels[static_cast<std::size_t>(a.lines)];
  const std::string op = a.op >= 0 && a.op < static_cast<int>(f.ops.size()) ? f.ops[static_cast<std::size_t>(a.op)] : "?";
  return std::string(kernel ? kernel : "?") + " " + op + " " + std::string(to_string(a.dtype)) + " " +
         (whole(a) ? "n=" + std::to_string(a.cols) : std::to_string(a.rows) + "x" + std::to_string(a.cols));
}

// Why the arguments cannot be used, regions aside.
std::optional<std::string> size_problem(const ArrayFamily& f, const ArrayArgs& a) {
  if (!f.kernels[static_cast<std::size_t>(a.lines)] || a.op < 0 || a.op >= static_cast<int>(f.ops.size()))
    return "no such kernel or op";
  if (std::find(f.dtypes.begin(), f.dtypes.end(), a.dtype) == f.dtypes.end())
    return "dtype not supported (" + array_dtypes(f) + ")";
  if (a.rows < 1 || a.cols < 1) return "sizes must be positive";
  if (whole(a) && a.rows != 1) return "a whole array is one row";
  if (a.cols > (std::int64_t{1} << 40)) return "n is above 2^40";
  if (!whole(a) && (a.rows >= (std::int64_t{1} << 31) || a.cols >= (std::int64_t{1} << 31)))
    return "rows and cols must each be below 2^31";
  if (a.ld_in < a.cols || (!f.per_line && a.ld_out < a.cols)) return "a pitch is smaller than cols";
  return std::nullopt;
}

std::string variant(const ArrayFamily& f, const ArrayArgs& a) {
  std::string v = f.ops[static_cast<std::size_t>(a.op)];
  for (std::size_t i = 0; i < f.switches.size(); ++i)
    if (a.on(i)) v += "_" + f.switches[i].first;
  return v;
}

}  // namespace

ArrayArgs ArrayArgs::whole(int op, DType d, std::int64_t n, std::uintptr_t out, std::uintptr_t in, unsigned sw) {
  return {Lines::whole, op, d, 1, n, n, n, in, out, sw};
}

ArrayArgs ArrayArgs::matrix(Lines lines, int op, DType d, std::int64_t rows, std::int64_t cols, std::int64_t ld_out,
                            std::int64_t ld_in, std::uintptr_t out, std::uintptr_t in, unsigned sw) {
  return {lines, op, d, rows, cols, ld_in, ld_out, in, out, sw};
}

std::string array_dtypes(const ArrayFamily& f) {
  std::string s;
  for (DType d : f.dtypes) s += (s.empty() ? "" : ", ") + std::string(to_string(d));
  return s;
}

const KernelSpec& array_spec(const ArrayFamily& f, Lines lines) {
  const char* kernel = f.kernels[static_cast<std::size_t>(lines)];
  if (!kernel) throw InvalidArgument("this family has no kernel over those lines");
  return KernelSpec::builtin(kernel);
}

DType result_dtype(const ArrayFamily& f, const ArrayArgs& a) { return f.result(a.dtype); }

std::int64_t array_results(const ArrayFamily& f, const ArrayArgs& a) {
  if (!f.per_line) return a.rows * a.cols;
  return a.lines == Lines::cols ? a.cols : a.rows;
}

void validate(const ArrayFamily& f, const ArrayArgs& a) {
  if (const auto why = size_problem(f, a)) throw InvalidArgument(describe(f, a) + ": " + *why);
  const std::int64_t in_elem = size_of(a.dtype), out_elem = size_of(result_dtype(f, a));
  const Region out = f.per_line ? Region{"output", a.out, out_elem, 1, array_results(f, a), 0, true}
                                : Region{"output", a.out, out_elem, a.rows, a.cols, a.ld_out, true};
  if (const auto why = region_problem({{"input", a.in, in_elem, a.rows, a.cols, a.ld_in}, out}, f.in_place))
    throw InvalidArgument(describe(f, a) + ": " + *why);
}

ArrayArgs probe_args(const ArrayFamily&, ArrayArgs a) {
  a.in = k_first_probe_address;
  a.out = probe_address_after(a.in, static_cast<double>(a.rows) * static_cast<double>(a.ld_in) * size_of(a.dtype));
  return a;
}

std::int64_t array_alignment(const ArrayFamily& f, const ArrayArgs& a) {
  const bool pitched = a.rows > 1;  // one row's pitch is never used
  std::int64_t w = pitched ? vector_width(a.dtype, {a.in}, {a.ld_in}) : vector_width(a.dtype, {a.in}, {});
  if (f.align_output) {
    const DType out = result_dtype(f, a);
    w = std::min(w, pitched ? vector_width(out, {a.out}, {a.ld_out}) : vector_width(out, {a.out}, {}));
  }
  return std::min(w, f.align_cap);
}

double array_bytes(const ArrayFamily& f, const ArrayArgs& a) {
  return static_cast<double>(a.rows) * static_cast<double>(a.cols) * size_of(a.dtype) +
         static_cast<double>(array_results(f, a)) * size_of(result_dtype(f, a));
}

TuningProblem array_tuning_problem(const ArrayFamily& f, const ArrayArgs& a) {
  validate(f, a);
  const KernelSpec& spec = array_spec(f, a.lines);
  const std::int64_t align = array_alignment(f, a);
  const DType out = result_dtype(f, a);
  return TuningProblem{&spec,
                       variant(f, a),
                       f.key_result ? dtype_key(a.dtype, out) : std::string(to_string(a.dtype)),
                       whole(a) ? std::vector<std::int64_t>{a.cols} : std::vector<std::int64_t>{a.rows, a.cols},
                       whole(a) ? Problem{a.dtype, {{"n", a.cols}, {"align", align}}}
                                : Problem{a.dtype, {{"rows", a.rows}, {"cols", a.cols}, {"align", align}}},
                       spec.source(),
                       f.type_argument(a),
                       declared_default(spec),
                       {}};
}

const LaunchInfo& array_call(Runtime& runtime, const ArrayFamily& f, const ArrayArgs& args, Stream stream) {
  Runtime::Impl& rt = ImplAccess::of(runtime);
  validate(f, args);  // throws before anything launches
  const CUcontext ctx = rt.current_context();
  const KernelSpec& spec = array_spec(f, args.lines);
  const ProblemKey key(ctx, spec,
                       ProblemKey::of(args.op, args.switches, args.dtype, args.rows, args.cols, array_alignment(f, args)));
  const Prepared& p = rt.prepared_for(key, [&] { return array_tuning_problem(f, args); });
  const auto s = reinterpret_cast<CUstream>(stream);
  const std::size_t bytes = f.workspace ? f.workspace(args, p.instance, p.sm_count) : 0;
  const WorkspaceLease workspace = bytes ? rt.workspace(ctx, s, &spec, bytes) : WorkspaceLease();
  f.launch(p.function, p.instance, args, workspace.get(), s);
  return p.info;
}

}  // namespace ktune
