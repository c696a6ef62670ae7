#include <compact/compact_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/elementwise_expr.hpp>
#include <ktune/generator/regions.hpp>

#include <algorithm>
#include <cstring>

namespace ktune {

namespace {

[[noreturn]] void fail(const CompactArgs& a, const std::string& what) {
  throw InvalidArgument("compact " + std::string(to_string(a.mode)) + " " + std::string(to_string(a.dtype)) +
                        " n=" + std::to_string(a.n) + ": " + what);
}

bool supported(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16 || d == DType::i32 ||
         d == DType::i64 || d == DType::u8;
}

ElementwiseExpr parse_predicate(const std::string& text) {
  ElementwiseExpr e = ElementwiseExpr::parse(text);
  if (e.inputs().size() != 1 || e.outputs().size() != 1 || !e.scalars().empty())
    throw InvalidArgument("compact predicate '" + text + "': one input and one output, e.g. 'keep = x > 0' (it has " +
                          std::to_string(e.inputs().size()) + " inputs, " + std::to_string(e.outputs().size()) +
                          " outputs)");
  if (e.inputs().front() != "x")
    throw InvalidArgument("compact predicate '" + text + "': the element is named x (e.g. 'keep = x > 0'); '" +
                          e.inputs().front() + "' is not known");
  return e;
}

}  // namespace

std::string compact_type_argument(DType dtype) {
  switch (dtype) {
    case DType::i32: return "int";
    case DType::i64: return "long long";
    case DType::u8: return "unsigned char";
    default: return element_value_type(dtype);
  }
}

std::string compact_predicate_source(const std::string& predicate, DType dtype) {
  const ElementwiseExpr e = parse_predicate(predicate);
  const std::string t = compact_type_argument(dtype);
  const char* c = dtype == DType::f64 || dtype == DType::i64 ? "double" : "float";
  // The language's functions (ktune_abs, ...) come with the specialization: the
  // template itself carries none of them, so that its text, and its records, stay as
  // they were.
  return "\n" + std::string(KernelSpec::fragment("expr_math")) + "\ntemplate <> struct ktune_keep_if<" + t +
         "> {  // " + e.normalized() +
         "\n  static __device__ __forceinline__ bool keep(" + t + " x) {\n    using C = " + c +
         ";\n    const C in[1] = {ktune_io<" + t + ", C>::load(x)};\n    C out[1];\n" + e.cuda_body() +
         "    return out[0] != C(0);\n  }\n};\n";
}

void validate(const CompactArgs& a) {
  if (!supported(a.dtype)) fail(a, "dtype not supported (f32, f64, f16, bf16, i32, i64, u8)");
  if (a.mode == CompactMode::predicate) (void)parse_predicate(a.predicate);
  if (a.n < 1) fail(a, "n must be positive");
  if (a.n > (std::int64_t{1} << 40)) fail(a, "n is above 2^40");
  const bool flags = a.mode == CompactMode::flags;  // other modes read no flags
  const std::int64_t elem = size_of(a.dtype);
  if (const auto why = region_problem({{"in", a.in, elem, 1, a.n, a.n},
                                       {"flags", flags ? a.flags : 0, 1, 1, a.n, a.n, false, !flags},
                                       {"out", a.out, elem, 1, a.n, a.n, true},
                                       {"indices", a.indices, 8, 1, a.n, a.n, true, true},
                                       {"count", a.count, 8, 1, 1, 1, true}}))
    fail(a, *why);
}

CompactArgs compact_probe_args(CompactArgs a) {
  const double bytes = static_cast<double>(a.n) * size_of(a.dtype);
  a.in = k_first_probe_address;
  a.flags = probe_address_after(a.in, bytes);
  a.out = probe_address_after(a.flags, static_cast<double>(a.n));
  a.count = probe_address_after(a.out, bytes);
  if (a.indices) a.indices = probe_address_after(a.count, 8);
  return a;
}

Problem compact_problem(const CompactArgs& a) { return {a.dtype, {{"n", a.n}}}; }

std::string compact_predicate_normalized(const std::string& predicate) { return parse_predicate(predicate).normalized(); }

std::string compact_variant(const CompactArgs& a) {
  const std::string mode = a.mode == CompactMode::predicate ? "predicate:" + compact_predicate_normalized(a.predicate)
                                                           : std::string(to_string(a.mode));
  return mode + (a.indices ? "+indices" : "");
}

std::vector<std::int64_t> compact_reference(const CompactArgs& a, const void* host_in, const void* host_flags) {
  std::vector<std::int64_t> kept;
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const auto* in = static_cast<const unsigned char*>(host_in);
  const auto* flags = static_cast<const unsigned char*>(host_flags);
  const bool predicate = a.mode == CompactMode::predicate;
  const ElementwiseExpr expr = parse_predicate(predicate ? a.predicate : "keep = x");
  for (std::int64_t i = 0; i < a.n; ++i) {
    bool keep = false;
    if (a.mode == CompactMode::flags) {
      keep = flags[i] != 0;
    } else if (predicate) {
      const unsigned char* p = in + static_cast<std::size_t>(i) * elem;
      double x = 0, out = 0;
      if (a.dtype == DType::i32 || a.dtype == DType::i64) {
        std::int64_t v = 0;
        if (a.dtype == DType::i32) {
          std::int32_t w;
          std::memcpy(&w, p, 4);
          v = w;
        } else {
          std::memcpy(&v, p, 8);
        }
        x = static_cast<double>(v);
      } else {
        x = a.dtype == DType::u8 ? static_cast<double>(*p) : element_to_double(a.dtype, p);
      }
      expr.eval(&x, nullptr, &out);
      keep = out != 0;
    } else {
      unsigned char e[8] = {};
      std::memcpy(e, in + static_cast<std::size_t>(i) * elem, elem);
      // Nonzero: any bit but a float's sign bit.
      if (a.dtype == DType::f16 || a.dtype == DType::bf16) e[1] &= 0x7f;
      if (a.dtype == DType::f32) e[3] &= 0x7f;
      if (a.dtype == DType::f64) e[7] &= 0x7f;
      keep = std::any_of(e, e + elem, [](unsigned char b) { return b != 0; });
    }
    if (keep) kept.push_back(i);
  }
  return kept;
}

const KernelSpec& compact_spec() { return KernelSpec::builtin("compact"); }

TuningProblem compact_tuning_problem(const CompactArgs& a) {
  validate(a);
  const KernelSpec& spec = compact_spec();
  const std::string source =
      spec.source() + (a.mode == CompactMode::predicate ? compact_predicate_source(a.predicate, a.dtype) : "");
  return TuningProblem{&spec,         compact_variant(a), std::string(to_string(a.dtype)),
                       {a.n},         compact_problem(a), source,
                       compact_type_argument(a.dtype),    declared_default(spec),
                       {}};
}

}  // namespace ktune
