#include <ktune/generator/kernel_spec.hpp>

#include "description_text.hpp"

#include <ktune/generator/embedded_templates.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/generator/hash.hpp>
#include <ktune/generator/json.hpp>
#include <ktune/generator/space.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <tuple>
#include <mutex>
#include <sstream>

namespace ktune {
namespace {

using description::is_identifier;
using description::split_top;
using description::trim;

Value parse_value(const std::string& s) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (s.size() > 18) throw InvalidArgument("value " + s.substr(0, 40) + " is larger than 10^18");
    return static_cast<std::int64_t>(std::stoll(s));
  }
  if (!is_identifier(s) || s.size() > 64) throw InvalidArgument("value '" + s.substr(0, 40) + "' is not a number or a name");
  return s;
}

}  // namespace

namespace {

bool is_family_source(std::string_view source) {
  return source.rfind("// @kernel", 0) == 0 || source.find("\n// @kernel") != std::string_view::npos;
}

std::string resolve_includes(std::string_view source, const std::map<std::string, std::string, std::less<>>& fragments) {
  std::string out;
  std::istringstream in{std::string(source)};
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.rfind("// @include", 0) == 0) {
      const std::string name = trim(t.substr(11));
      const auto it = fragments.find(name);
      if (it == fragments.end()) throw InvalidArgument("kernel description: '" + t + "': no template fragment '" + name + "'");
      out += it->second;
    } else {
      out += line;
    }
    out += '\n';
  }
  return out;
}

}  // namespace

namespace {

// An error that already names its description line.
struct LineError : InvalidArgument {
  using InvalidArgument::InvalidArgument;
};

}  // namespace

KernelSpec KernelSpec::parse(std::string_view source) {
  if (!is_valid_utf8(source)) throw InvalidArgument("kernel description: the source is not UTF-8 text");
  KernelSpec spec;
  spec.source_ = std::string(source);
  spec.source_hash_ = hex64(fnv1a64(source));
  Launches seen;
  std::istringstream in(spec.source_);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim(line);
    if (t.rfind("// @", 0) != 0) continue;
    const Fail fail = [&](const std::string& what) {
      throw LineError("kernel description line " + std::to_string(line_no) + " '" + t + "': " + what);
    };
    const std::size_t sp = t.find_first_of(" \t", 4);
    const std::string key = t.substr(4, sp == std::string::npos ? std::string::npos : sp - 4);
    const std::string rest = sp == std::string::npos ? "" : trim(t.substr(sp));
    try {
      spec.read_directive(key, rest, line_no, fail, seen);
    } catch (const LineError&) {
      throw;
    } catch (const Error& e) {  // an expression's or a value's: said with the line
      fail(e.what());
    }
  }
  spec.check_complete(seen);
  spec.check_evaluation_cost();
  return spec;
}

void KernelSpec::read_directive(const std::string& key, const std::string& rest, int line_no, const Fail& fail,
                                Launches& seen) {
  if (key == "kernel") {
    // The name becomes part of file names (search logs, bundles): a plain identifier.
    if (!is_identifier(rest) || rest.size() > 64) fail("'" + rest.substr(0, 80) + "' is not a name (letters, digits, _; 64 at most)");
    family_ = rest;
  } else if (key == "entry") {
    entry_ = rest;
  } else if (key == "type" || key == "tune" || key == "derive") {
    read_declaration(key, rest, line_no, fail);
  } else if (key == "runtime") {
    for (const auto& name : split_top(rest, ',')) {
      const int index = tunable_index(name);
      if (index < 0) fail("'" + name + "' is no tunable declared above");
      tunables_[static_cast<std::size_t>(index)].runtime = true;
    }
  } else if (key == "problem" || key == "arg" || key == "verify" || key == "work" || key == "default") {
    // A user's kernel's declaration: read by tuner/user_kernel.
    directives_.push_back({line_no, key, rest});
  } else if (key == "include") {
    // Resolved by builtin(): the fragment's text replaces the line.
  } else if (key == "compatible") {
    read_compatible(rest, fail);
  } else if (key == "require") {
    if (requires_.size() == k_max_requirements) fail("more than " + std::to_string(k_max_requirements) + " @require lines");
    requires_.push_back(Expr::parse(rest));
    require_lines_.push_back(line_no);
  } else if (key == "launch") {
    read_launch(rest, line_no, fail, seen);
  } else {
    std::vector<std::string> known;
    for (const auto& d : directive_names()) known.push_back("@" + d);
    fail("unknown directive '@" + key + "' (known: " + description::join(known) + ")");
  }
}

void KernelSpec::read_declaration(const std::string& key, const std::string& rest, int line_no, const Fail& fail) {
  const std::size_t eq = rest.find('=');
  if (eq == std::string::npos) fail("expected 'name = ...'");
  const std::string name = trim(rest.substr(0, eq));
  const std::string rhs = trim(rest.substr(eq + 1));
  if (!is_identifier(name)) fail("'" + name + "' is not a snake_case name");
  if (key == "type") {
    // element: the dtype's bits type; operation: a type the family's C++ part
    // generates (the elementwise expression); else the dtypes a user's kernel may
    // be instantiated with, the first the default (`// @type T = f32, f64`).
    type_param_ = name;
    type_kind_ = rhs == "element" || rhs == "operation" ? rhs : "dtype";
    if (type_kind_ == "dtype")
      for (const auto& d : split_top(rhs, ',')) {
        if (!parse_dtype(d)) fail("a type is 'element', 'operation' or dtypes (" + std::string(dtype_names()) + ")");
        type_choices_.push_back(*parse_dtype(d));
      }
  } else if (key == "derive") {
    if (derived_.size() == k_max_derived) fail("more than " + std::to_string(k_max_derived) + " @derive lines");
    // A derived value is read where a name is not otherwise known: it may not stand in for
    // what ktune binds (the alignment class keeps misaligned vector loads from launching).
    const auto& limits = DeviceLimits::names();
    if (name == "align" || name == "elem_bytes" || name == "max_elem_bytes" ||
        std::find(limits.begin(), limits.end(), name) != limits.end())
      fail("@derive may not name '" + name + "': ktune binds it (the alignment class, the element size, or a "
           "device limit); choose another name");
    if (tunable_index(name) >= 0) fail("@derive may not name '" + name + "': it is a tunable");
    for (const auto& d : derived_)
      if (d.name == name) fail("'" + name + "' is derived twice");
    derived_.push_back({name, Expr::parse(rhs), line_no});
  } else {
    Tunable tunable{name, {}};
    for (const auto& v : split_top(rhs, ',')) {
      if (v.empty()) fail("empty value");
      tunable.values.push_back(parse_value(v));
    }
    if (tunable_index(name) >= 0) fail("tunable declared twice");
    if (tunables_.size() == k_max_tunables) fail("more than " + std::to_string(k_max_tunables) + " tunables");
    if (tunable.values.size() > k_max_tunable_values)
      fail(std::to_string(tunable.values.size()) + " values; a tunable has at most " + std::to_string(k_max_tunable_values));
    tunables_.push_back(std::move(tunable));
  }
}

// `CODE: HASH, ...`: records tuned on the texts HASH are current while this text's code
// hash is CODE, so a change of comments or of the files' split keeps them; a change of
// code makes this line an error until it is removed.
void KernelSpec::read_compatible(const std::string& rest, const Fail& fail) {
  const std::size_t colon = rest.find(':');
  const auto is_hash = [](const std::string& h) {
    return h.size() == 16 && std::all_of(h.begin(), h.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  };
  const std::string code = trim(rest.substr(0, colon));
  if (colon == std::string::npos || !is_hash(code)) fail("expected 'CODE_HASH: TEMPLATE_HASH, ...' (16 hex digits each)");
  const std::string actual = code_hash(source_);
  if (code != actual)
    fail("the code changed (its hash is now " + actual + ", not " + code +
         "): records of the texts listed here no longer describe its kernels; remove the line");
  for (const auto& h : split_top(trim(rest.substr(colon + 1)), ',')) {
    if (!is_hash(h)) fail("'" + h + "' is not a template hash (16 hex digits)");
    compatible_.push_back(h);
  }
}

std::string KernelSpec::code_hash(std::string_view source) {
  std::string code;
  std::istringstream in{std::string(source)};
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.rfind("// @", 0) == 0) {
      // Neither says what the kernels compute: which texts' records are current, the
      // config a call runs untuned.
      if (t.rfind("// @compatible", 0) == 0 || t.rfind("// @default", 0) == 0) continue;
    } else {
      const std::size_t comment = line.find("//");
      t = line.substr(0, comment);
      while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
      if (trim(t).empty()) continue;
    }
    code += (code.empty() ? "" : "\n") + t;
  }
  return hex64(fnv1a64(code));
}

std::vector<std::string> KernelSpec::current_hashes() const {
  std::vector<std::string> out{source_hash_};
  out.insert(out.end(), compatible_.begin(), compatible_.end());
  return out;
}

bool KernelSpec::is_current(std::string_view template_hash) const {
  return template_hash == source_hash_ || std::find(compatible_.begin(), compatible_.end(), template_hash) != compatible_.end();
}

namespace {

// Bounds on what evaluating one expression may cost: a derived value is evaluated
// where it is read, so a chain of derives that each read the one above twice doubles
// per line, and each derive read adds its own depth to the evaluation's recursion.
constexpr std::size_t max_evaluation_nodes = 1'000'000;
constexpr int max_derive_chain = 16;

}  // namespace

// A derived value reads tunables, problem variables, device limits and the derived
// values declared above it: none reads itself or a later one, so none is a cycle.
void KernelSpec::check_evaluation_cost() const {
  std::vector<std::size_t> cost(derived_.size());
  std::vector<int> chain(derived_.size());
  const auto derived_index = [&](const std::string& name) -> int {
    if (tunable_index(name) >= 0) return -1;  // tunables are found first
    for (std::size_t j = 0; j < derived_.size(); ++j)
      if (derived_[j].name == name) return static_cast<int>(j);
    return -1;
  };
  // Nodes evaluated and derives nested when `e` is evaluated, for the derives before `limit`.
  const auto measure = [&](const Expr& e, std::size_t limit, const std::function<void(const std::string&)>& fail) {
    std::size_t nodes = e.node_count();
    int depth = 1;
    for (const auto& use : e.name_uses()) {
      const int j = derived_index(use);
      if (j < 0) continue;
      if (static_cast<std::size_t>(j) >= limit)
        fail(use == derived_[limit].name ? "'" + use + "' reads itself"
                                         : "reads '" + use + "', derived below it (a derived value reads only those above it)");
      nodes = std::min(max_evaluation_nodes + 1, nodes + cost[static_cast<std::size_t>(j)]);
      depth = std::max(depth, chain[static_cast<std::size_t>(j)] + 1);
    }
    if (nodes > max_evaluation_nodes)
      fail("evaluates more than " + std::to_string(max_evaluation_nodes) + " operations (derived values read repeatedly)");
    if (depth > max_derive_chain) fail("reads a chain of more than " + std::to_string(max_derive_chain) + " derived values");
    return std::make_pair(nodes, depth);
  };
  for (std::size_t i = 0; i < derived_.size(); ++i) {
    const Derived& d = derived_[i];
    const auto fail = [&](const std::string& what) {
      throw InvalidArgument("kernel description line " + std::to_string(d.line) + " '@derive " + d.name +
                            " = ...': " + what);
    };
    std::tie(cost[i], chain[i]) = measure(d.expr, i, fail);
  }
  std::vector<const Expr*> others{&smem_};
  for (const auto& r : requires_) others.push_back(&r);
  for (const auto& e : block_) others.push_back(&e);
  for (const auto& e : grid_) others.push_back(&e);
  for (const Expr* e : others)
    measure(*e, derived_.size(), [&](const std::string& what) {
      throw InvalidArgument("kernel description: '" + e->text().substr(0, 120) + "': " + what);
    });
}

void KernelSpec::check_names(const std::vector<std::string>& outside) const {
  std::vector<std::string> known;
  for (const auto& t : tunables_) known.push_back(t.name);
  for (const auto& d : derived_) known.push_back(d.name);
  known.insert(known.end(), outside.begin(), outside.end());
  const auto check = [&](const Expr& e, int line, const std::string& directive) {
    for (const auto& name : e.names())
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw InvalidArgument("line " + std::to_string(line) + " '// @" + directive + " " + e.text().substr(0, 120) +
                              "': unknown name '" + name + "' (known here: " + description::join(known) + ")");
  };
  for (const auto& d : derived_) check(d.expr, d.line, "derive " + d.name + " =");
  for (std::size_t i = 0; i < requires_.size(); ++i) check(requires_[i], require_lines_[i], "require");
  for (const auto& e : block_) check(e, block_line_, "launch block");
  for (const auto& e : grid_) check(e, grid_line_, "launch grid");
  if (smem_line_) check(smem_, smem_line_, "launch smem =");
}

// block = (x, y, z), grid = (x, y, z) or smem = bytes
void KernelSpec::read_launch(const std::string& rest, int line_no, const Fail& fail, Launches& seen) {
  const std::size_t eq = rest.find('=');
  if (eq == std::string::npos) fail("expected 'block = (x, y, z)', 'grid = (x, y, z)' or 'smem = bytes'");
  const std::string what = trim(rest.substr(0, eq));
  const std::string tuple = trim(rest.substr(eq + 1));
  if (what == "smem") {
    if (smem_line_) fail("'@launch smem' given twice (the first on line " + std::to_string(smem_line_) + ")");
    smem_ = Expr::parse(tuple);
    smem_line_ = line_no;
    return;
  }
  if (what != "block" && what != "grid") fail("unknown launch dimension '" + what + "'");
  if (what == "block" ? seen.block : seen.grid)  // (the last would win, silently)
    fail("'@launch " + what + "' given twice (the first on line " +
         std::to_string(what == "block" ? block_line_ : grid_line_) + ")");
  (what == "block" ? block_ : grid_) = description::parse_dim3(tuple);
  (what == "block" ? block_line_ : grid_line_) = line_no;
  (what == "block" ? seen.block : seen.grid) = true;
}

void KernelSpec::check_complete(const Launches& seen) const {
  if (family_.empty()) throw InvalidArgument("kernel description: missing '// @kernel <name>'");
  if (entry_.empty()) throw InvalidArgument("kernel description of '" + family_ + "': missing '// @entry'");
  if (tunables_.empty()) throw InvalidArgument("kernel description of '" + family_ + "': no '// @tune' lines");
  if (!seen.block || !seen.grid)
    throw InvalidArgument("kernel description of '" + family_ + "': missing '// @launch block' or '// @launch grid'");
}

const KernelSpec& KernelSpec::builtin(std::string_view family) {
  static std::mutex mutex;
  static std::map<std::string, KernelSpec, std::less<>> specs;
  std::lock_guard<std::mutex> lock(mutex);
  if (specs.empty()) {
    // Files without `// @kernel` are fragments that families pull in with
    // `// @include <name>` (device code several templates share).
    std::map<std::string, std::string, std::less<>> fragments;
    for (const auto& [name, source] : embedded_templates())
      if (!is_family_source(source)) fragments.emplace(std::string(name), std::string(source));
    for (const auto& [name, source] : embedded_templates())
      if (is_family_source(source)) specs.emplace(std::string(name), parse(resolve_includes(source, fragments)));
  }
  const auto it = specs.find(family);
  if (it == specs.end()) {
    std::string known;
    for (const auto& [name, spec] : specs) known += (known.empty() ? "" : ", ") + name;
    throw InvalidArgument("unknown kernel family '" + std::string(family) + "' (known: " + known + ")");
  }
  return it->second;
}

const std::vector<std::string>& KernelSpec::directive_names() {
  static const std::vector<std::string> names{"kernel",  "entry",   "type", "tune", "derive", "runtime", "require",
                                              "launch",  "include", "compatible", "problem", "arg", "verify", "work", "default"};
  return names;
}

std::string_view KernelSpec::fragment(std::string_view name) {
  for (const auto& [fragment_name, source] : embedded_templates())
    if (fragment_name == name && !is_family_source(source)) return source;
  throw InvalidArgument("no template fragment '" + std::string(name) + "'");
}

std::vector<std::string> KernelSpec::builtin_families() {
  std::vector<std::string> out;
  for (const auto& [name, source] : embedded_templates())
    if (is_family_source(source)) out.emplace_back(name);
  return out;
}

int KernelSpec::tunable_index(std::string_view name) const {
  for (std::size_t i = 0; i < tunables_.size(); ++i)
    if (tunables_[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> KernelSpec::template_parameters() const {
  // The `template <...>` that precedes `__global__ ... entry(`.
  std::size_t at = std::string::npos;
  for (std::size_t g = source_.find("__global__"); g != std::string::npos; g = source_.find("__global__", g + 1)) {
    const std::size_t body = source_.find('{', g);
    const std::size_t name = source_.find(entry_ + "(", g);
    if (name != std::string::npos && name < body) {
      at = g;
      break;
    }
  }
  if (at == std::string::npos) throw InvalidArgument("template of '" + family_ + "' has no __global__ " + entry_);
  const std::size_t t = source_.rfind("template", at);
  const std::size_t open = source_.find('<', t);
  if (t == std::string::npos || open == std::string::npos || open > at)
    throw InvalidArgument("kernel " + entry_ + " is not a template");
  int depth = 0;
  std::size_t close = open;
  for (; close < at; ++close) {
    if (source_[close] == '<') ++depth;
    if (source_[close] == '>' && --depth == 0) break;
  }
  std::vector<std::string> names;
  for (const auto& param : split_top(std::string_view(source_).substr(open + 1, close - open - 1), ',')) {
    std::size_t e = param.size();
    while (e > 0 && !(std::isalnum(static_cast<unsigned char>(param[e - 1])) || param[e - 1] == '_')) --e;
    std::size_t b = e;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(param[b - 1])) || param[b - 1] == '_')) --b;
    names.push_back(param.substr(b, e - b));
  }
  return names;
}

std::size_t KernelSpec::cartesian_size() const {
  std::size_t n = 1;
  for (const auto& t : tunables_) n *= t.values.size();
  return n;
}

}  // namespace ktune
