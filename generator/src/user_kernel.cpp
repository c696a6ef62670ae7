#include <ktune/generator/user_kernel.hpp>

#include "description_text.hpp"

#include <ktune/error.hpp>
#include <ktune/generator/hash.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace ktune {
namespace {

using description::is_identifier;
using description::split_top;
using description::trim;

std::optional<double> number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "out y : f32[n * 2] in [-1, 1]", "scalar alpha : f32 = 0.5"
KernelArg parse_arg(const std::string& text) {
  KernelArg a;
  std::istringstream in(text);
  std::string role;
  in >> role;
  static const std::pair<const char*, KernelArg::Role> roles[] = {
      {"in", KernelArg::Role::in}, {"out", KernelArg::Role::out}, {"inout", KernelArg::Role::inout},
      {"scalar", KernelArg::Role::scalar}};
  const auto r = std::find_if(std::begin(roles), std::end(roles), [&](const auto& p) { return role == p.first; });
  if (r == std::end(roles)) throw InvalidArgument("an argument's role is in, out, inout or scalar, not '" + role + "'");
  a.role = r->second;
  std::string rest;
  std::getline(in, rest);
  const std::size_t colon = rest.find(':');
  if (colon == std::string::npos) throw InvalidArgument("expected '" + role + " NAME : TYPE...'");
  a.name = trim(rest.substr(0, colon));
  if (!is_identifier(a.name)) throw InvalidArgument("'" + a.name + "' is not a name");
  std::string type = trim(rest.substr(colon + 1));
  if (a.role == KernelArg::Role::scalar) {
    const std::size_t eq = type.find('=');
    if (eq == std::string::npos) throw InvalidArgument("a scalar needs a value: 'scalar " + a.name + " : TYPE = VALUE'");
    a.value = trim(type.substr(eq + 1));
    a.type = trim(type.substr(0, eq));
    if (!number(a.value)) Expr::parse(a.value);  // an expression: checked now, evaluated per problem
    return a;
  }
  const std::size_t open = type.find('['), close = type.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw InvalidArgument("a pointer argument needs its element count: '" + role + " " + a.name + " : TYPE[ELEMENTS]'");
  a.type = trim(type.substr(0, open));
  a.size = Expr::parse(type.substr(open + 1, close - open - 1));
  const std::string tail = trim(type.substr(close + 1));
  if (tail.empty()) return a;
  if (tail == "zeroed") {
    if (a.role != KernelArg::Role::out) throw InvalidArgument("only out arguments are zeroed (inout ones start from their input)");
    a.zeroed = true;
    return a;
  }
  if (a.role != KernelArg::Role::in && a.role != KernelArg::Role::inout)
    throw InvalidArgument("only in and inout arguments take a range of random values");
  const std::size_t lo = tail.find('['), hi = tail.rfind(']'), comma = tail.find(',');
  if (tail.rfind("in", 0) != 0 || lo == std::string::npos || hi == std::string::npos || comma == std::string::npos)
    throw InvalidArgument("expected 'in [LOW, HIGH]' after the element count, not '" + tail + "'");
  const auto low = number(trim(tail.substr(lo + 1, comma - lo - 1)));
  const auto high = number(trim(tail.substr(comma + 1, hi - comma - 1)));
  if (!low || !high || *low >= *high) throw InvalidArgument("bad range '" + tail + "': expected in [LOW, HIGH] with LOW < HIGH");
  a.low = *low, a.high = *high;
  return a;
}

// flops = EXPR | bytes = EXPR
void read_work(UserKernel& k, const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::string what = trim(text.substr(0, eq));
  if (eq == std::string::npos || (what != "flops" && what != "bytes"))
    throw InvalidArgument("expected 'flops = EXPRESSION' or 'bytes = EXPRESSION'");
  auto& slot = what == "flops" ? k.work_flops : k.work_bytes;
  if (slot) throw InvalidArgument("'@work " + what + "' is declared twice");
  slot = FloatExpr::parse(trim(text.substr(eq + 1)));
}

void read_verify(UserKernel& k, const std::string& text, int line, bool& have_block, bool& have_grid) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) throw InvalidArgument("expected 'reference = NAME', 'block = (..)', 'grid = (..)', 'config = ...' or 'tolerance = ...'");
  const std::string what = trim(text.substr(0, eq)), value = trim(text.substr(eq + 1));
  if (what == "reference") {
    if (!is_identifier(value)) throw InvalidArgument("'" + value + "' is not a kernel name");
    k.reference = value;
  } else if (what == "block") {
    k.reference_block = description::parse_dim3(value), have_block = true;
  } else if (what == "grid") {
    k.reference_grid = description::parse_dim3(value), have_grid = true;
  } else if (what == "config") {
    k.trusted = config_from_description(k.spec, value);
  } else if (what == "tolerance") {
    k.tolerance = Tolerance::parse(value);
    k.tolerance_line = line;
  } else {
    throw InvalidArgument("unknown @verify '" + what + "' (reference, block, grid, config, tolerance)");
  }
}

// Every name an expression uses must be a problem variable (sizes and scalar values
// are evaluated before any config exists).
void check_names(const Expr& e, const std::vector<std::string>& variables, const std::string& what) {
  for (const auto& n : e.names())
    if (std::find(variables.begin(), variables.end(), n) == variables.end())
      throw InvalidArgument(what + " refers to '" + n + "', which is no problem variable (declared: " +
                            (variables.empty() ? std::string("none; add '// @problem NAME'") : description::join(variables)) +
                            ")");
}

// The same for a floating-point expression (a tolerance's scale, a @work count), naming its line.
void check_scale_names(const FloatExpr& e, const std::vector<std::string>& variables, int line,
                       const std::string& directive) {
  for (const auto& n : e.names())
    if (std::find(variables.begin(), variables.end(), n) == variables.end())
      throw InvalidArgument("line " + std::to_string(line) + " '// " + directive + "': '" + n +
                            "' is no problem variable (declared: " + description::join(variables) + ")");
}

void check_arg(const UserKernel& k, const KernelArg& a) {
  const bool type_param = !k.spec.type_parameter().empty() && a.type == k.spec.type_parameter();
  if (!a.pointer() && (a.type == "f16" || a.type == "bf16"))
    throw InvalidArgument("a scalar is f32, f64 or an integer type, not " + a.type + " (pass it as f32)");
  if (!type_param && !parse_dtype(a.type))
    throw InvalidArgument("type '" + a.type + "' is no dtype (" + std::string(dtype_names()) + ")" +
                (k.spec.type_parameter().empty() ? "" : " nor the type parameter " + k.spec.type_parameter()));
  if (a.pointer()) check_names(a.size, k.variables, "the size of " + a.name);
  else if (!number(a.value)) check_names(Expr::parse(a.value), k.variables, "the value of " + a.name);
}

void check_declaration(const UserKernel& k) {
  if (k.variables.empty()) throw InvalidArgument("no '// @problem' line: a user's kernel names its problem variables");
  if (std::none_of(k.args.begin(), k.args.end(), [](const KernelArg& a) {
        return a.role == KernelArg::Role::out || a.role == KernelArg::Role::inout;
      }))
    throw InvalidArgument("no out or inout argument: nothing to verify");
  if (k.reference.empty() && !k.trusted)
    throw InvalidArgument("no '// @verify reference = NAME' or '// @verify config = ...': how is a result checked?");
  if (!k.reference.empty() && k.trusted) throw InvalidArgument("'@verify reference' and '@verify config' exclude each other");
  for (const auto& a : k.args) {
    try {
      check_arg(k, a);
    } catch (const Error& e) {
      throw InvalidArgument("line " + std::to_string(a.line) + " (argument " + a.name + "): " + e.what());
    }
  }
  if (!k.spec.type_parameter().empty() && k.spec.type_kind() != "dtype")
    throw InvalidArgument("a user's kernel declares its type parameter's dtypes: '// @type " + k.spec.type_parameter() + " = f32, f64'");
}

}  // namespace

std::shared_ptr<const UserKernel> parse_user_kernel(const std::string& source, const std::string& origin) {
  try {
    auto k = std::make_shared<UserKernel>(UserKernel{KernelSpec::parse(source), origin, {}, {}, {}, {}, {}, {}, {}, {}, 0, {}, {}, 0});
    bool have_block = false, have_grid = false;
    for (const auto& d : k->spec.directives()) {
      try {
        if (d.key == "problem") {
          for (const auto& v : split_top(d.text, ',')) {
            if (!is_identifier(v)) throw InvalidArgument("'" + v + "' is not a name");
            const auto& words = tolerance_words();
            if (v == "align" || v == "elem_bytes" || DeviceLimits{}.get(v) ||
                std::find(words.begin(), words.end(), v) != words.end())
              throw InvalidArgument("'" + v + "' is a name ktune defines (the alignment class, the element size, "
                                    "a device limit, a word of tolerances); choose another");
            if (std::find(k->variables.begin(), k->variables.end(), v) != k->variables.end())
              throw InvalidArgument("variable " + v + " is declared twice");
            k->variables.push_back(v);
          }
        } else if (d.key == "work") {
          read_work(*k, d.text);
          k->work_line = d.line;
        } else if (d.key == "default") {
          if (k->preferred) throw InvalidArgument("'@default' is declared twice");
          k->preferred = config_from_description(k->spec, d.text);
        } else if (d.key == "arg") {
          k->args.push_back(parse_arg(d.text));
          k->args.back().line = d.line;
        } else {
          read_verify(*k, d.text, d.line, have_block, have_grid);
        }
      } catch (const Error& e) {
        throw InvalidArgument("line " + std::to_string(d.line) + " '// @" + d.key + " " + d.text + "': " + e.what());
      }
    }
    if (k->variables.size() > k_max_problem_variables || k->args.size() > k_max_kernel_args)
      throw InvalidArgument(std::to_string(k->variables.size()) + " problem variables and " +
                            std::to_string(k->args.size()) + " arguments: a user's kernel has at most " +
                            std::to_string(k_max_problem_variables) + " and " + std::to_string(k_max_kernel_args));
    if (!k->reference.empty() && !(have_block && have_grid))
      throw InvalidArgument("'@verify reference' needs '@verify block = (...)' and '@verify grid = (...)'");
    check_declaration(*k);
    for (const auto& d : k->spec.derived())  // (the problem's own value would be overwritten)
      if (std::find(k->variables.begin(), k->variables.end(), d.name) != k->variables.end())
        throw InvalidArgument("line " + std::to_string(d.line) + ": @derive may not name the problem variable '" +
                              d.name + "'; choose another name");
    for (std::size_t i = 0; i < 3 && !k->reference.empty(); ++i) {
      check_names(k->reference_block[i], k->variables, "'@verify block'");
      check_names(k->reference_grid[i], k->variables, "'@verify grid'");
    }
    std::vector<std::string> outside = k->variables;
    outside.insert(outside.end(), {"align", "elem_bytes"});
    outside.insert(outside.end(), DeviceLimits::names().begin(), DeviceLimits::names().end());
    k->spec.check_names(outside);
    for (const auto* work : {&k->work_flops, &k->work_bytes})
      if (*work) check_scale_names(**work, k->variables, k->work_line, "@work");
    for (const auto& term : k->tolerance.terms) check_scale_names(term.scale, k->variables, k->tolerance_line, "@verify tolerance");
    return k;
  } catch (const Error& e) {
    throw InvalidArgument(origin + ": " + e.what());
  }
}

std::shared_ptr<const UserKernel> load_user_kernel(const std::string& path) {
  // A FIFO, a device or a directory is no kernel source, and opening a FIFO would block.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InvalidArgument(path + ": not a regular file; a kernel source is one");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read kernel file " + path);
  // Read with a bound: /dev/zero, a pipe or a huge file is no kernel source.
  std::string text(k_max_kernel_file_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > k_max_kernel_file_bytes)
    throw InvalidArgument(path + ": larger than " + std::to_string(k_max_kernel_file_bytes >> 20) +
                          " MiB; not a kernel source");
  if (text.find('\0') != std::string::npos) throw InvalidArgument(path + ": holds NUL bytes; not a kernel source");
  return parse_user_kernel(text, path);
}

DType default_type(const UserKernel& k) {
  if (!k.spec.type_choices().empty()) return k.spec.type_choices().front();
  for (const auto& a : k.args)
    if (a.pointer())
      if (const auto d = parse_dtype(a.type)) return *d;
  return DType::f32;
}

UserProblem bind_user_problem(const UserKernel& k, const std::vector<std::string>& assignments) {
  UserProblem p;
  std::vector<std::optional<std::int64_t>> values(k.variables.size());
  p.type = default_type(k);
  bool type_given = false;
  for (const auto& a : assignments) {
    const std::size_t eq = a.find('=');
    const std::string name = trim(a.substr(0, eq)), value = eq == std::string::npos ? "" : trim(a.substr(eq + 1));
    if (eq == std::string::npos || name.empty()) throw InvalidArgument("bad --problem '" + a + "': expected NAME=VALUE");
    if (name == k.spec.type_parameter()) {
      if (type_given) throw InvalidArgument("--problem " + name + " is given twice");
      type_given = true;
      const auto d = parse_dtype(value);
      const auto& choices = k.spec.type_choices();
      if (!d || std::find(choices.begin(), choices.end(), *d) == choices.end())
        throw InvalidArgument("--problem " + a + ": " + name + " is one of the dtypes its @type line lists");
      p.type = *d;
      continue;
    }
    if (name == "align") {
      if (p.align) throw InvalidArgument("--problem align is given twice");
      const auto v = number(value);  // (against 16 bytes once T is known, below)
      if (!v || *v < 1 || *v > 16 || std::floor(*v) != *v || (static_cast<int>(*v) & (static_cast<int>(*v) - 1)))
        throw InvalidArgument("--problem " + a + ": align is a power of two from 1 to 16 elements");
      p.align = static_cast<std::int64_t>(*v);
      continue;
    }
    const auto it = std::find(k.variables.begin(), k.variables.end(), name);
    if (it == k.variables.end()) throw InvalidArgument("--problem " + a + ": " + k.spec.family() + " has no problem variable " + name);
    auto& slot = values[static_cast<std::size_t>(it - k.variables.begin())];
    if (slot) throw InvalidArgument("--problem " + name + " is given twice");
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || errno || v < 1 || v > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgument("--problem " + a + ": a problem variable is an integer from 1 to 2^31-1");
    slot = v;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) throw InvalidArgument(k.spec.family() + " needs --problem " + k.variables[i] + "=VALUE");
    p.values.push_back(*values[i]);
  }
  if (p.align * size_of(p.type) > 16)
    throw InvalidArgument("--problem align=" + std::to_string(p.align) + ": at most " +
                          std::to_string(align_class({{}, p.type, 0})) + " elements of " + std::string(to_string(p.type)) +
                          " (16 bytes)");
  return p;
}

std::int64_t align_class(const UserProblem& p) {
  return p.align ? p.align : std::max<std::int64_t>(1, 16 / size_of(p.type));
}

std::int64_t align_class_of(const std::uintptr_t* addresses, std::size_t count, DType type) {
  std::uintptr_t bytes = 16;
  for (std::size_t i = 0; i < count; ++i)
    if (const std::uintptr_t a = addresses[i]) bytes = std::min<std::uintptr_t>(bytes, a & (~a + 1));  // the lowest set bit
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes) / size_of(type));
}

DType arg_dtype(const UserKernel& k, const KernelArg& a, const UserProblem& p) {
  return a.type == k.spec.type_parameter() && !a.type.empty() ? p.type : *parse_dtype(a.type);
}

std::string user_type_name(DType d) {
  switch (d) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::f16: return "__half";  // (refused by check_declaration for now)
    case DType::bf16: return "__nv_bfloat16";
    case DType::i8: return "signed char";
    case DType::u8: return "unsigned char";
    case DType::i16: return "short";
    case DType::i32: return "int";
    case DType::i64: return "long long";
  }
  return "float";
}

namespace {

// The problem variables by name with their values, as floating-point expressions read them.
std::vector<std::pair<std::string, double>> variable_values(const UserKernel& k, const UserProblem& p) {
  std::vector<std::pair<std::string, double>> names;
  for (std::size_t i = 0; i < k.variables.size(); ++i) names.emplace_back(k.variables[i], static_cast<double>(p.values[i]));
  return names;
}

}  // namespace

ToleranceBounds tolerance_bounds(const UserKernel& k, const UserProblem& p) {
  try {
    return evaluate(k.tolerance, variable_values(k, p));
  } catch (const Error& e) {
    throw InvalidArgument(k.origin + ": line " + std::to_string(k.tolerance_line) + " '// @verify tolerance': " + e.what());
  }
}

Work work_of(const UserKernel& k, const UserProblem& p) {
  const auto names = variable_values(k, p);
  Work w;
  for (const auto& [expr, out] : {std::make_pair(&k.work_flops, &w.flops), std::make_pair(&k.work_bytes, &w.bytes)}) {
    if (!*expr) continue;
    try {
      *out = (*expr)->eval(names);
    } catch (const Error& e) {
      throw InvalidArgument(k.origin + ": line " + std::to_string(k.work_line) + " '// @work': " + e.what());
    }
    if (*out > 0 && *out <= 1e21) continue;
    std::ostringstream value;
    value << *out;
    throw InvalidArgument(k.origin + ": line " + std::to_string(k.work_line) + " '// @work " + (*expr)->text() +
                          "' is " + value.str() + " here: it must be positive (and at most 1e21)");
  }
  return w;
}

Scope problem_scope(const UserKernel& k, const UserProblem& p) {
  return [&k, &p](std::string_view name) -> std::optional<Value> {
    for (std::size_t i = 0; i < k.variables.size(); ++i)
      if (k.variables[i] == name) return Value{p.values[i]};
    return std::nullopt;
  };
}

namespace {

// A scalar's value must be one its type holds: integral and in range for the integer
// types, finite and within range for f32 (never wrapped or rounded to another value).
void check_scalar(const UserKernel& k, const KernelArg& a, const UserProblem& p, double v) {
  const DType d = arg_dtype(k, a, p);
  const auto fail = [&](const std::string& why) {
    char value[32];
    std::snprintf(value, sizeof value, "%.17g", v);
    throw InvalidArgument(k.spec.family() + ": scalar " + a.name + " = " + a.value + " is " + value +
                          " at this problem, " + why);
  };
  if (d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16) {
    if (!std::isfinite(v) || (d != DType::f64 && std::fabs(v) > 3.4028234663852886e38))
      fail("outside the range of " + std::string(to_string(d)));
    return;
  }
  if (v != std::floor(v)) fail("not an integer, as its type " + std::string(to_string(d)) + " needs");
  const double bits = 8.0 * size_of(d);  // i8 .. i64; u8 the one unsigned
  const double lo = d == DType::u8 ? 0.0 : -std::exp2(bits - 1);
  const double hi = d == DType::u8 ? 255.0 : std::exp2(bits - 1) - 1;
  if (v < lo || v > hi) fail("outside the range of " + std::string(to_string(d)));
}

}  // namespace

std::vector<double> arg_values(const UserKernel& k, const UserProblem& p) {
  const Scope scope = problem_scope(k, p);
  std::vector<double> out;
  for (const auto& a : k.args) {
    if (!a.pointer()) {
      const auto literal = number(a.value);
      out.push_back(literal ? *literal : static_cast<double>(Expr::parse(a.value).eval_int(scope)));
      check_scalar(k, a, p, out.back());
      continue;
    }
    const std::int64_t n = a.size.eval_int(scope);
    if (n < 1 || n > (std::int64_t{1} << 40))
      throw InvalidArgument(k.spec.family() + ": argument " + a.name + " has " + std::to_string(n) + " elements at this problem");
    out.push_back(static_cast<double>(n));
  }
  return out;
}

namespace {

// f16 and bf16 (__half, __nv_bfloat16 and their vector types) come from the toolkit's
// headers (NVRTC finds them: nvrtc_compiler.hpp); #line keeps NVRTC's line numbers the file's.
constexpr const char* k_half_headers = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#line 1\n";

bool uses_halves(const UserKernel& k) {
  const auto half = [](DType d) { return d == DType::f16 || d == DType::bf16; };
  return std::any_of(k.spec.type_choices().begin(), k.spec.type_choices().end(), half) ||
         std::any_of(k.args.begin(), k.args.end(), [](const KernelArg& a) { return a.type == "f16" || a.type == "bf16"; });
}

}  // namespace

TuningProblem user_tuning_problem(const UserKernel& k, const UserProblem& p) {
  TuningProblem t;
  t.spec = &k.spec;
  t.variant = k.spec.source_hash();
  t.dtype_key = std::string(to_string(p.type));
  t.shape = p.values;
  t.problem.dtype = p.type;
  for (std::size_t i = 0; i < k.variables.size(); ++i) t.problem.sizes.emplace_back(k.variables[i], p.values[i]);
  t.problem.sizes.emplace_back("align", align_class(p));
  t.source = uses_halves(k) ? k_half_headers + k.spec.source() : k.spec.source();
  if (!k.spec.type_parameter().empty()) t.type_argument = user_type_name(p.type);
  // The default (what a call nobody tuned runs: no model knows a user's kernel): the
  // declared @default, else the trusted config, where valid for this problem; else the
  // first valid config.
  if (k.preferred && !why_invalid(k.spec, *k.preferred, DeviceLimits{}, t.problem)) {
    t.default_config = *k.preferred;
  } else if (k.trusted && !why_invalid(k.spec, *k.trusted, DeviceLimits{}, t.problem)) {
    t.default_config = *k.trusted;
  } else {
    if (auto first = first_config(k.spec, DeviceLimits{}, t.problem)) t.default_config = std::move(*first);
  }
  return t;
}
}  // namespace ktune
