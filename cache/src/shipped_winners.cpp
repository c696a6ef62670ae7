#include <ktune/cache/shipped_winners.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/input_file.hpp>
#include <ktune/generator/log.hpp>
#include <ktune/generator/settings.hpp>

#include <algorithm>
#include <charconv>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>

namespace ktune {
namespace {

constexpr std::string_view k_header = "# ktune shipped winners, format ";
constexpr std::size_t k_max_line = 64 * 1024;             // a config is a few hundred bytes
constexpr std::uintmax_t k_max_file = 64 * 1024 * 1024;  // far above any table of winners

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

// A whole field as a number (std::from_chars: no locale, no exceptions, nothing left over).
template <typename T>
T field_number(std::string_view text, const char* what) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw Error(std::string("bad ") + what + " '" + std::string(text) + "'");
  return v;
}

TuningRecord parse_line(std::string_view line) {
  const std::vector<std::string_view> f = split_tabs(line);
  if (f.size() != 10) throw Error("expected 10 tab-separated fields, got " + std::to_string(f.size()));
  TuningRecord r;
  r.family = std::string(f[0]);
  r.variant = f[1] == "-" ? "" : std::string(f[1]);
  r.dtype = std::string(f[2]);
  const auto shape = parse_shape(f[3]);
  if (!shape) throw Error("bad shape '" + std::string(f[3]) + "'");
  r.shape = *shape;
  r.align = field_number<std::int64_t>(f[4], "align");
  r.config = nlohmann::json::parse(f[5], nullptr, false);
  if (!r.config.is_object()) throw Error("the config is not a JSON object");
  r.device_key = std::string(f[6]);
  r.device_name = r.device_key.substr(0, r.device_key.find('|'));
  r.template_hash = std::string(f[7]);
  r.median_us = field_number<double>(f[8], "median us");
  r.tuned_at = std::string(f[9]);
  if (const auto why = r.invalid()) throw Error(*why);
  return r;
}

std::string read_table_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > k_max_file) throw Error(path + " is " + std::to_string(size) + " bytes: no winners table is that large");
  std::ifstream in = open_regular_file(path, "shipped winners table (KTUNE_SHIPPED_WINNERS)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<TuningRecord> load_all(std::string& source) {
  const std::string setting = settings::shipped_winners();
  std::vector<std::pair<std::string, std::string>> tables;  // (name, text)
  if (setting == "off") {
    source = "none (KTUNE_SHIPPED_WINNERS=off)";
  } else if (!setting.empty()) {
    source = setting + " (KTUNE_SHIPPED_WINNERS)";
    try {
      tables.emplace_back(setting, read_table_file(setting));
    } catch (const std::exception& e) {
      logger("ktune.shipped")->warn("shipped winners skipped: {}", e.what());
    }
  } else {
    source = "built in:";
    for (const auto& [name, text] : embedded_shipped_winners()) {
      tables.emplace_back("shipped/" + std::string(name) + ".tsv", std::string(text));
      source += " " + tables.back().first;
    }
  }
  std::vector<TuningRecord> all;
  for (const auto& [name, text] : tables) {
    ShippedTable t = parse_shipped(text, name);
    for (const auto& w : t.warnings) logger("ktune.shipped")->warn("{}", w);
    std::move(t.records.begin(), t.records.end(), std::back_inserter(all));
  }
  return all;
}

struct Loaded {
  std::string setting, source;
  std::vector<TuningRecord> records;
};

// Read again only when KTUNE_SHIPPED_WINNERS changed (a program, or a test, may set it
// after the first call); the tables read are kept while anyone holds them.
std::shared_ptr<const Loaded> loaded() {
  static std::mutex mutex;
  static std::shared_ptr<const Loaded> current;
  const std::string setting = settings::shipped_winners();
  std::lock_guard<std::mutex> lock(mutex);
  if (!current || current->setting != setting) {
    auto fresh = std::make_shared<Loaded>();
    fresh->setting = setting;
    fresh->records = load_all(fresh->source);
    current = std::move(fresh);
  }
  return current;
}

}  // namespace

ShippedTable parse_shipped(std::string_view text, const std::string& name) {
  ShippedTable t;
  const std::size_t first_end = std::min(text.find('\n'), text.size());
  const std::string_view first = text.substr(0, first_end);
  if (first.substr(0, k_header.size()) != k_header) {
    t.warnings.push_back(name + ":1: not a shipped winners table (its first line is not '" + std::string(k_header) +
                         std::to_string(k_shipped_format) + "'): skipped");
    return t;
  }
  if (first.substr(k_header.size()) != std::to_string(k_shipped_format)) {
    t.warnings.push_back(name + ":1: a table of format '" + std::string(first.substr(k_header.size())) +
                         "', this ktune reads format " + std::to_string(k_shipped_format) + ": skipped");
    return t;
  }
  std::size_t number = 1;
  for (std::size_t pos = first_end; pos < text.size();) {
    ++number;
    const std::size_t begin = pos + 1;
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    pos = end;
    if (begin > text.size()) break;
    const std::string_view line = text.substr(begin, end - begin);
    if (line.empty() || line.front() == '#') continue;
    try {
      if (line.size() > k_max_line) throw Error("a line of " + std::to_string(line.size()) + " bytes");
      if (end == text.size()) throw Error("the last line has no newline: the table was cut short");
      t.records.push_back(parse_line(line));
    } catch (const std::exception& e) {
      t.warnings.push_back(name + ":" + std::to_string(number) + ": skipped: " + e.what());
    }
  }
  return t;
}

std::string format_shipped(std::vector<TuningRecord> records, std::size_t& left_out) {
  const auto unfit = [](const TuningRecord& r) {
    for (const std::string* f : {&r.family, &r.variant, &r.dtype, &r.device_key, &r.template_hash, &r.tuned_at})
      if (f->find_first_of("\t\n\r") != std::string::npos) return true;
    return r.variant == "-";
  };
  const auto kept = std::remove_if(records.begin(), records.end(), unfit);
  left_out = static_cast<std::size_t>(records.end() - kept);
  records.erase(kept, records.end());
  std::sort(records.begin(), records.end(), [](const TuningRecord& a, const TuningRecord& b) {
    return std::tie(a.device_key, a.family, a.variant, a.dtype, a.shape, a.align) <
           std::tie(b.device_key, b.family, b.variant, b.dtype, b.shape, b.align);
  });
  std::ostringstream out;
  out << k_header << k_shipped_format << "\n"
      << "# Made by `ktune cache ship` (scripts/ship_winners.sh); do not edit by hand.\n"
      << "# family\tvariant\tdtype\tshape\talign\tconfig\tdevice\ttemplate\tmedian_us\ttuned_at\n";
  for (const auto& r : records) {
    char us[32];
    std::snprintf(us, sizeof us, "%.9g", r.median_us);
    out << r.family << '\t' << (r.variant.empty() ? "-" : r.variant) << '\t' << r.dtype << '\t' << shape_to_string(r.shape)
        << '\t' << r.align << '\t' << r.config.dump() << '\t' << r.device_key << '\t' << r.template_hash << '\t' << us
        << '\t' << r.tuned_at << '\n';
  }
  return out.str();
}

std::shared_ptr<const std::vector<TuningRecord>> shipped_winners() {
  std::shared_ptr<const Loaded> l = loaded();
  return {l, &l->records};
}
std::string shipped_winners_source() { return loaded()->source; }

}  // namespace ktune
