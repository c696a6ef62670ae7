#include <elementwise/elementwise_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/parallel_for.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ktune {
namespace {

bool supported(DType d) { return d == DType::f32 || d == DType::f16 || d == DType::bf16 || d == DType::f64; }

[[noreturn]] void fail(const ElementwiseOp& op, const std::string& what) {
  throw InvalidArgument("elementwise '" + op.expr.normalized() + "': " + what);
}

}  // namespace

ElementwiseOp make_elementwise_op(const std::string& expression, DType in, DType out,
                                  const std::vector<std::string>& scalars) {
  for (DType d : {in, out})
    if (!supported(d))
      throw InvalidArgument("elementwise: dtype " + std::string(to_string(d)) + " is not supported (f32, f16, bf16, f64)");
  return {ElementwiseExpr::parse(expression, scalars), in, out};
}

std::string elementwise_op_source(const ElementwiseOp& op) {
  const bool wide = op.in == DType::f64 || op.out == DType::f64;
  return std::string("\nstruct ") + k_elementwise_op_type + " {\n  using in_t = " + element_value_type(op.in) +
         ";\n  using out_t = " + element_value_type(op.out) + ";\n  using compute_t = " + (wide ? "double" : "float") +
         ";\n  static constexpr int inputs = " + std::to_string(op.expr.inputs().size()) +
         ", outputs = " + std::to_string(op.expr.outputs().size()) +
         ", scalars = " + std::to_string(op.expr.scalars().size()) +
         ";\n  static __device__ __forceinline__ void eval(const compute_t* in, const compute_t* s, compute_t* out) {\n"
         "    using C = compute_t;\n    (void)in; (void)s;\n" +
         op.expr.cuda_body() + "  }\n};\n";
}

TuningProblem elementwise_tuning_problem(const ElementwiseOp& op, std::int64_t n, std::int64_t align) {
  const KernelSpec& spec = KernelSpec::builtin("elementwise");
  return TuningProblem{&spec,
                       op.expr.normalized(),
                       elementwise_dtype_key(op),
                       {n},
                       elementwise_problem(op, n, align),
                       spec.source() + elementwise_op_source(op),
                       k_elementwise_op_type,
                       declared_default(spec),
                       {}};
}

std::string elementwise_dtype_key(const ElementwiseOp& op) {
  return dtype_key(op.in, op.out);
}

std::int64_t elementwise_alignment(const ElementwiseOp& op, const ElementwiseArgs& args) {
  const auto& inputs = args.inputs;
  const auto& outputs = args.outputs;
  const auto in = static_cast<std::uintptr_t>(size_of(op.in)), out = static_cast<std::uintptr_t>(size_of(op.out));
  std::int64_t align = 16 / std::max(size_of(op.in), size_of(op.out));
  const auto fits = [&](std::int64_t v) {
    const auto a = static_cast<std::uintptr_t>(v);
    return std::all_of(inputs.begin(), inputs.end(), [&](std::uintptr_t p) { return p % (a * in) == 0; }) &&
           std::all_of(outputs.begin(), outputs.end(), [&](std::uintptr_t p) { return p % (a * out) == 0; });
  };
  while (align > 1 && !fits(align)) align /= 2;
  return align;
}

Problem elementwise_problem(const ElementwiseOp& op, std::int64_t n, std::int64_t align) {
  if (n < 1) fail(op, "n must be positive, got " + std::to_string(n));
  if (n > (std::int64_t{1} << 40)) fail(op, "n = " + std::to_string(n) + " is above 2^40");
  return {op.in, {{"n", n}, {"align", align}, {"max_elem_bytes", std::max(size_of(op.in), size_of(op.out))}}};
}

void validate_elementwise(const ElementwiseOp& op, const ElementwiseArgs& args) {
  const std::int64_t n = args.n;
  const auto& inputs = args.inputs;
  const auto& outputs = args.outputs;
  elementwise_problem(op, n, 1);  // n
  const auto count = [&](const char* what, std::size_t got, std::size_t want) {
    if (got != want)
      fail(op, std::string("expects ") + std::to_string(want) + " " + what + ", got " + std::to_string(got));
  };
  count("input pointer(s)", inputs.size(), op.expr.inputs().size());
  count("output pointer(s)", outputs.size(), op.expr.outputs().size());
  count("scalar(s)", args.scalars.size(), op.expr.scalars().size());
  const auto in_bytes = static_cast<std::uintptr_t>(n) * static_cast<std::uintptr_t>(size_of(op.in));
  const auto out_bytes = static_cast<std::uintptr_t>(n) * static_cast<std::uintptr_t>(size_of(op.out));
  for (auto p : inputs) {
    if (!p) fail(op, "null input pointer");
    if (p % static_cast<std::uintptr_t>(size_of(op.in))) fail(op, "input pointer not aligned to its element size");
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const auto p = outputs[k];
    if (!p) fail(op, "null output pointer");
    if (p % static_cast<std::uintptr_t>(size_of(op.out))) fail(op, "output pointer not aligned to its element size");
    // Element i of an output may alias element i of an input (in place), nothing else:
    // another thread could read what this one already overwrote.
    for (auto q : inputs)
      if (q != p || op.in != op.out)
        if (p < q + in_bytes && q < p + out_bytes) fail(op, "an output partially overlaps an input");
    for (std::size_t j = 0; j < k; ++j)
      if (p < outputs[j] + out_bytes && outputs[j] < p + out_bytes) fail(op, "two outputs overlap");
  }
}

double elementwise_bytes(const ElementwiseOp& op, std::int64_t n) {
  return static_cast<double>(n) * static_cast<double>(op.expr.inputs().size() * static_cast<std::size_t>(size_of(op.in)) +
                                                       op.expr.outputs().size() * static_cast<std::size_t>(size_of(op.out)));
}

double elementwise_tolerance(DType out) {
  switch (out) {
    case DType::f64: return 1e-12;
    case DType::f16: return 4e-3;   // 4 ulp of 2^-10
    case DType::bf16: return 3e-2;  // 4 ulp of 2^-7
    default: return 1e-5;           // float arithmetic, not its rounding, dominates
  }
}

std::vector<std::vector<double>> elementwise_reference(const ElementwiseOp& op, const std::vector<const void*>& inputs,
                                                       const std::vector<double>& scalars, std::int64_t n) {
  std::vector<std::vector<double>> out(op.expr.outputs().size(), std::vector<double>(static_cast<std::size_t>(n)));
  const std::size_t in_size = static_cast<std::size_t>(size_of(op.in));
  const auto work = [&](std::int64_t begin, std::int64_t end) {
    double in[6], o[2];
    for (std::int64_t i = begin; i < end; ++i) {
      for (std::size_t k = 0; k < inputs.size(); ++k)
        in[k] = element_to_double(op.in, static_cast<const unsigned char*>(inputs[k]) + static_cast<std::size_t>(i) * in_size);
      op.expr.eval(in, scalars.data(), o);
      for (std::size_t k = 0; k < out.size(); ++k) out[k][static_cast<std::size_t>(i)] = o[k];
    }
  };
  parallel_for(n, work);
  return out;
}

}  // namespace ktune
