#include <ktune/generator/space.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/json.hpp>

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

namespace ktune {

std::optional<Value> DeviceLimits::get(std::string_view name) const {
  if (name == "max_threads_per_block") return max_threads_per_block;
  if (name == "max_smem_per_block") return max_smem_per_block;
  if (name == "max_registers_per_block") return max_registers_per_block;
  if (name == "max_grid_x") return max_grid_x;
  if (name == "sm_count") return sm_count;
  if (name == "compute_capability") return compute_capability;
  if (name == "smem_per_sm") return smem_per_sm;
  if (name == "registers_per_sm") return registers_per_sm;
  if (name == "max_threads_per_sm") return max_threads_per_sm;
  if (name == "max_blocks_per_sm") return max_blocks_per_sm;
  return std::nullopt;
}

const std::vector<std::string>& DeviceLimits::names() {
  static const std::vector<std::string> all{"max_threads_per_block", "max_smem_per_block", "max_registers_per_block",
                                            "max_grid_x", "sm_count", "compute_capability", "smem_per_sm",
                                            "registers_per_sm", "max_threads_per_sm", "max_blocks_per_sm"};
  return all;
}

std::optional<std::int64_t> Problem::get(std::string_view name) const {
  if (name == "elem_bytes") return size_of(dtype);
  for (const auto& [k, v] : sizes)
    if (k == name) return v;
  return std::nullopt;
}

nlohmann::json config_to_json(const KernelSpec& spec, const Config& config) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& name = spec.tunables()[i].name;
    if (const auto* v = std::get_if<std::int64_t>(&config[i])) j[name] = *v;
    else j[name] = std::get<std::string>(config[i]);
  }
  return j;
}

Config config_from_json(const KernelSpec& spec, const nlohmann::json& json) {
  if (!json.is_object()) throw InvalidArgument("config is not a JSON object: " + json.dump());
  if (json.size() != spec.tunables().size())
    throw InvalidArgument("config " + json.dump() + " does not match the tunables of '" + spec.family() + "'");
  Config config;
  for (const auto& t : spec.tunables()) {
    const auto it = json.find(t.name);
    if (it == json.end()) throw InvalidArgument("config " + json.dump() + " lacks tunable '" + t.name + "'");
    Value v;
    if (it->is_number_integer()) v = it->get<std::int64_t>();
    else if (it->is_string()) v = it->get<std::string>();
    else throw InvalidArgument("config " + json.dump() + ": bad value for '" + t.name + "'");
    if (std::find(t.values.begin(), t.values.end(), v) == t.values.end())
      throw InvalidArgument("config " + json.dump() + ": '" + to_string(v) + "' is not a declared value of '" + t.name + "'");
    config.push_back(std::move(v));
  }
  return config;
}

Config config_from_older_json(const KernelSpec& spec, nlohmann::json json) {
  if (json.is_object())
    for (const auto& t : spec.tunables())
      if (!json.contains(t.name)) {
        const Value& old = t.values.front();
        if (const auto* i = std::get_if<std::int64_t>(&old)) json[t.name] = *i;
        else json[t.name] = std::get<std::string>(old);
      }
  return config_from_json(spec, json);
}

std::string config_to_string(const KernelSpec& spec, const Config& config) {
  std::string s;
  for (std::size_t i = 0; i < config.size(); ++i)
    s += (i ? " " : "") + spec.tunables()[i].name + "=" + to_string(config[i]);
  return s;
}

Config config_from_string(const KernelSpec& spec, const std::string& text) {
  if (!is_valid_utf8(text)) throw InvalidArgument("config: not UTF-8 text");
  nlohmann::json j = nlohmann::json::object();
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InvalidArgument("config '" + text + "': expected name=value pairs separated by spaces");
    const std::string value = item.substr(eq + 1);
    const bool number = value.find_first_not_of("0123456789") == std::string::npos && value.size() < 19;
    j[item.substr(0, eq)] = number ? nlohmann::json(std::stoll(value)) : nlohmann::json(value);
    pos = end + 1;
  }
  return config_from_json(spec, j);
}

Config config_from_description(const KernelSpec& spec, const std::string& text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream words(spaced);
  std::string joined;
  for (std::string w; words >> w;) joined += (joined.empty() ? "" : " ") + w;
  return config_from_string(spec, joined);
}

Config declared_default(const KernelSpec& spec) {
  const KernelSpec::Directive* found = nullptr;
  for (const auto& d : spec.directives()) {
    if (d.key != "default") continue;
    if (found) throw InvalidArgument(spec.family() + ": line " + std::to_string(d.line) + ": '@default' is declared twice");
    found = &d;
  }
  if (!found) throw InvalidArgument(spec.family() + ": its description declares no '// @default' config");
  try {
    return config_from_description(spec, found->text);
  } catch (const Error& e) {
    throw InvalidArgument(spec.family() + ": line " + std::to_string(found->line) + " '// @default': " + e.what());
  }
}

namespace {

// Names resolve in order: tunables, derived values, problem, device.
struct ConfigScope {
  const KernelSpec& spec;
  const Config& config;
  const DeviceLimits& device;
  const Problem& problem;

  std::optional<Value> operator()(std::string_view name) const {
    const int i = spec.tunable_index(name);
    if (i >= 0) return config[static_cast<std::size_t>(i)];
    for (const auto& d : spec.derived())
      if (d.name == name) return d.expr.eval(*this);
    if (auto v = problem.get(name)) return Value{*v};
    return device.get(name);
  }
};

Scope make_scope(const KernelSpec& spec, const Config& config, const DeviceLimits& device,
                 const Problem& problem) {
  if (config.size() != spec.tunables().size())
    throw InvalidArgument("config has " + std::to_string(config.size()) + " values, '" + spec.family() + "' has " +
                std::to_string(spec.tunables().size()) + " tunables");
  return ConfigScope{spec, config, device, problem};
}

}  // namespace

std::optional<std::string> why_invalid(const KernelSpec& spec, const Config& config, const DeviceLimits& device,
                                       const Problem& problem) {
  const Scope scope = make_scope(spec, config, device, problem);
  for (const auto& r : spec.requirements())
    if (!r.eval_bool(scope)) return "requires " + r.text();
  return std::nullopt;
}

namespace {

// The last tunable (in declaration order) an expression reads, directly or through
// derived values; -1 when it reads none.
int last_tunable_read(const KernelSpec& spec, const Expr& expr, std::set<std::string>& visiting) {
  int last = -1;
  for (const auto& name : expr.names()) {
    if (const int i = spec.tunable_index(name); i >= 0) {
      last = std::max(last, i);
      continue;
    }
    if (!visiting.insert(name).second) continue;  // a derived value read twice (or a cycle)
    for (const auto& d : spec.derived())
      if (d.name == name) last = std::max(last, last_tunable_read(spec, d.expr, visiting));
  }
  return last;
}

// A requirement rejects a partial config, assigned up to the last tunable it reads. One
// that throws there is left to the whole config's check (an earlier requirement may
// exclude the case it fails on).
bool rejects(const Expr& requirement, const Scope& scope) {
  try {
    return !requirement.eval_bool(scope);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::size_t for_each_config(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem,
                            const std::function<bool(const Config&)>& visit) {
  // Each requirement is checked as soon as the tunables it reads have values, so a
  // subtree of the cartesian product that one rejects is never walked (the GEMM spaces
  // are millions of combinations, a few thousand valid). The whole config is checked
  // last, as why_invalid does, so the result is the same.
  std::vector<std::vector<const Expr*>> checks(std::max<std::size_t>(spec.tunables().size(), 1));
  for (const auto& r : spec.requirements()) {
    std::set<std::string> visiting;
    checks[static_cast<std::size_t>(std::max(0, last_tunable_read(spec, r, visiting)))].push_back(&r);
  }
  std::size_t count = 0;
  bool stopped = false;
  Config config(spec.tunables().size());
  const Scope scope = make_scope(spec, config, device, problem);
  std::function<void(std::size_t)> walk = [&](std::size_t i) {  // (as deep as there are tunables: at most 64)
    if (i == config.size()) {
      if (!why_invalid(spec, config, device, problem)) {
        ++count;
        stopped = !visit(config);
      }
      return;
    }
    for (const auto& v : spec.tunables()[i].values) {
      if (stopped) return;
      config[i] = v;
      if (std::none_of(checks[i].begin(), checks[i].end(), [&](const Expr* r) { return rejects(*r, scope); }))
        walk(i + 1);
    }
  };
  walk(0);
  return count;
}

std::vector<Config> enumerate(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem) {
  std::vector<Config> out;
  for_each_config(spec, device, problem, [&](const Config& c) {
    if (out.size() == k_max_space_configs)
      throw InvalidArgument("the space of '" + spec.family() + "' has more than " + std::to_string(k_max_space_configs) +
                            " valid configs at this problem, more than a search can time: narrow it with @require lines");
    out.push_back(c);
    return true;
  });
  return out;
}

std::optional<Config> first_config(const KernelSpec& spec, const DeviceLimits& device, const Problem& problem) {
  std::optional<Config> first;
  for_each_config(spec, device, problem, [&](const Config& c) {
    first = c;
    return false;
  });
  return first;
}

namespace {

// Each config as the dense ids of the (tunable, value) pairs it takes and, with
// strength 2, of the two-tunable value combinations it takes; and the id count.
std::pair<std::vector<std::vector<std::size_t>>, std::size_t> coverage_keys(const std::vector<Config>& configs,
                                                                              int strength) {
  const std::size_t tunables = configs.front().size();
  std::vector<std::vector<Value>> values(tunables);
  for (const auto& c : configs)
    for (std::size_t t = 0; t < tunables; ++t) values[t].push_back(c[t]);
  for (auto& v : values) std::sort(v.begin(), v.end()), v.erase(std::unique(v.begin(), v.end()), v.end());
  std::vector<std::vector<std::size_t>> keys(configs.size());
  std::size_t ids = 0;
  std::vector<std::size_t> index(tunables);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t t = 0; t < tunables; ++t)
      index[t] = static_cast<std::size_t>(std::lower_bound(values[t].begin(), values[t].end(), configs[i][t]) -
                                          values[t].begin());
    std::size_t base = 0;
    for (std::size_t t = 0; t < tunables; ++t) {
      keys[i].push_back(base + index[t]);
      base += values[t].size();
    }
    for (std::size_t t = 0; strength >= 2 && t < tunables; ++t)
      for (std::size_t u = t + 1; u < tunables; ++u) {
        keys[i].push_back(base + index[t] * values[u].size() + index[u]);
        base += values[t].size() * values[u].size();
      }
    ids = base;
  }
  return {keys, ids};
}

}  // namespace

std::vector<std::size_t> covering_sample(const std::vector<Config>& configs, int strength) {
  if (configs.empty()) return {};
  const auto [keys, ids] = coverage_keys(configs, strength);
  std::vector<char> missing(ids, 0);
  std::size_t left = 0;
  for (const auto& k : keys)
    for (auto id : k) left += missing[id] ? 0 : (missing[id] = 1);
  std::vector<std::size_t> picks;
  while (left > 0) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::size_t gain = 0;
      for (auto id : keys[i]) gain += static_cast<std::size_t>(missing[id]);
      if (gain > best_gain) best = i, best_gain = gain;
    }
    picks.push_back(best);
    for (auto id : keys[best]) left -= static_cast<std::size_t>(missing[id]), missing[id] = 0;
  }
  std::sort(picks.begin(), picks.end());
  return picks;
}

std::string element_bits_type(DType dtype) {
  switch (size_of(dtype)) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    default: return "unsigned long long";
  }
}

std::string element_value_type(DType dtype) {
  switch (dtype) {
    case DType::f16: return "ktune_half";
    case DType::bf16: return "ktune_bfloat";
    case DType::f64: return "double";
    case DType::f32: return "float";
    default: throw Error("no floating-point storage type for dtype " + std::string(to_string(dtype)));
  }
}

Instance instantiate(const KernelSpec& spec, const Config& config, const DeviceLimits& device,
                     const Problem& problem, const std::string& type_argument) {
  if (auto why = why_invalid(spec, config, device, problem))
    throw Error("config {" + config_to_string(spec, config) + "} of '" + spec.family() + "' is invalid: " + *why);
  const bool named_type = !spec.type_parameter().empty() && spec.type_kind() != "element";
  if (named_type == type_argument.empty())
    throw Error("'" + spec.family() + "' is instantiated with " +
                (type_argument.empty() ? "a type named by the caller" : "no type argument, not '" + type_argument + "'"));
  Instance inst;
  inst.config = config;
  std::vector<std::string> arguments;
  if (!spec.type_parameter().empty()) arguments.push_back(named_type ? type_argument : element_bits_type(problem.dtype));
  for (std::size_t i = 0; i < config.size(); ++i) {
    if (spec.tunables()[i].runtime) continue;
    // Symbolic values name enumerators `<tunable>_<value>` declared by the template.
    if (const auto* v = std::get_if<std::int64_t>(&config[i])) arguments.push_back(std::to_string(*v));
    else arguments.push_back(spec.tunables()[i].name + "_" + std::get<std::string>(config[i]));
  }
  inst.name_expression = spec.entry();
  for (std::size_t i = 0; i < arguments.size(); ++i) inst.name_expression += (i ? ", " : "<") + arguments[i];
  if (!arguments.empty()) inst.name_expression += ">";
  const Scope scope = make_scope(spec, config, device, problem);
  for (std::size_t d = 0; d < 3; ++d) {
    const std::int64_t b = spec.block()[d].eval_int(scope);
    const std::int64_t g = spec.grid()[d].eval_int(scope);
    const std::int64_t g_max = d == 0 ? device.max_grid_x : 65535;
    if (b < 1 || b > device.max_threads_per_block || g < 1 || g > g_max)
      throw Error("launch geometry of {" + config_to_string(spec, config) + "} out of range: block[" +
                  std::to_string(d) + "]=" + std::to_string(b) + ", grid[" + std::to_string(d) +
                  "]=" + std::to_string(g) + " (problem too large or empty)");
    inst.block[d] = static_cast<std::uint32_t>(b);
    inst.grid[d] = static_cast<std::uint32_t>(g);
  }
  const std::int64_t smem = spec.smem().eval_int(scope);
  if (smem < 0 || smem > device.max_smem_per_block)
    throw Error("shared memory of {" + config_to_string(spec, config) + "} out of range: " + std::to_string(smem));
  inst.smem_bytes = static_cast<std::uint32_t>(smem);
  return inst;
}

}  // namespace ktune
