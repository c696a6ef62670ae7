#include <compact/compact_family.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>

#include <algorithm>
#include <cstring>

namespace ktune {

std::optional<CompactMode> parse_compact_mode(std::string_view name) {
  if (name == "flags") return CompactMode::flags;
  if (name == "nonzero") return CompactMode::nonzero;
  return std::nullopt;
}

std::string_view to_string(CompactMode mode) { return mode == CompactMode::flags ? "flags" : "nonzero"; }

namespace {

[[noreturn]] void fail(const CompactArgs& a, const std::string& what) {
  throw InvalidArgument("compact " + std::string(to_string(a.mode)) + " " + std::string(to_string(a.dtype)) +
                        " n=" + std::to_string(a.n) + ": " + what);
}

bool supported(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16 || d == DType::i32 ||
         d == DType::i64 || d == DType::u8;
}

struct Span {
  std::uintptr_t begin, bytes;
  const char* name;
};

bool overlap(const Span& a, const Span& b) { return a.begin && b.begin && a.begin < b.begin + b.bytes && b.begin < a.begin + a.bytes; }

}  // namespace

std::string compact_type_argument(DType dtype) {
  switch (dtype) {
    case DType::i32: return "int";
    case DType::i64: return "long long";
    case DType::u8: return "unsigned char";
    default: return element_value_type(dtype);
  }
}

void validate(const CompactArgs& a) {
  if (!supported(a.dtype)) fail(a, "dtype not supported (f32, f64, f16, bf16, i32, i64, u8)");
  if (a.n < 1) fail(a, "n must be positive");
  if (a.n > (std::int64_t{1} << 40)) fail(a, "n is above 2^40");
  if (!a.in || !a.out || !a.count) fail(a, "null pointer (in, out and count are required)");
  if (a.mode == CompactMode::flags && !a.flags) fail(a, "null flags (mode flags)");
  const auto elem = static_cast<std::uintptr_t>(size_of(a.dtype));
  if (a.in % elem || a.out % elem) fail(a, "in or out not aligned to its element size");
  if (a.indices % 8 || a.count % 8) fail(a, "indices or count not aligned to 8 bytes");
  const auto n = static_cast<std::uintptr_t>(a.n);
  const Span in{a.in, n * elem, "in"}, flags{a.mode == CompactMode::flags ? a.flags : 0, n, "flags"},
      out{a.out, n * elem, "out"}, indices{a.indices, n * 8, "indices"}, count{a.count, 8, "count"};
  for (const Span& w : {out, indices, count})
    for (const Span& o : {in, flags, out, indices, count})
      if (&w != &o && w.name != o.name && overlap(w, o)) fail(a, std::string(w.name) + " overlaps " + o.name);
}

CompactArgs compact_probe_args(CompactArgs a) {
  const double bytes = static_cast<double>(std::max<std::int64_t>(a.n, 0)) * size_of(a.dtype);
  const std::uintptr_t step = bytes < 1e17 ? (static_cast<std::uintptr_t>(bytes) + 255) / 256 * 256 + 256 : 256;
  a.in = 256, a.flags = a.in + step, a.out = a.flags + step, a.count = a.out + step;
  if (a.indices) a.indices = a.count + 256;
  return a;
}

Problem compact_problem(const CompactArgs& a) { return {a.dtype, {{"n", a.n}}}; }

std::string compact_variant(const CompactArgs& a) {
  return std::string(to_string(a.mode)) + (a.indices ? "+indices" : "");
}

std::vector<std::int64_t> compact_reference(const CompactArgs& a, const void* host_in, const void* host_flags) {
  std::vector<std::int64_t> kept;
  const auto elem = static_cast<std::size_t>(size_of(a.dtype));
  const auto* in = static_cast<const unsigned char*>(host_in);
  const auto* flags = static_cast<const unsigned char*>(host_flags);
  for (std::int64_t i = 0; i < a.n; ++i) {
    bool keep = false;
    if (a.mode == CompactMode::flags) {
      keep = flags[i] != 0;
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
  return TuningProblem{&spec,         compact_variant(a),  std::string(to_string(a.dtype)),
                       {a.n},         compact_problem(a),  spec.source(),
                       compact_type_argument(a.dtype),     compact_default_config(spec),
                       {}};
}

Config compact_default_config(const KernelSpec& spec) {
  return config_from_json(spec, {{"block", 256}, {"items", 8}, {"exchange", "direct"}, {"window", 32}, {"order", "ticket"}});
}

}  // namespace ktune
