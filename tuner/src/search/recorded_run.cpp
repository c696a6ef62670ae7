#include <ktune/tuner/recorded_run.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <mutex>

namespace ktune {

std::optional<std::size_t> RecordedRun::best() const {
  std::optional<std::size_t> b;
  for (std::size_t i = 0; i < median_us.size(); ++i)
    if (median_us[i] && (!b || *median_us[i] < *median_us[*b])) b = i;
  return b;
}

RecordedRun read_search_log(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read search log " + path.string());
  RecordedRun run;
  const KernelSpec* spec = nullptr;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    nlohmann::json j = parse_json(line);
    if (j.is_discarded() || !j.is_object() || !j.contains("type")) {
      ++run.bad_lines;
      continue;
    }
    const std::string where = path.string() + ":" + std::to_string(number);
    std::string type;
    try {
      type = j.at("type").get<std::string>();
      if (type == "header") {
        run.header = j;
        spec = &run_spec(j);
        const auto dtype = parse_dtype(j.at("dtype").get<std::string>());
        if (!dtype) throw Error("unknown dtype '" + j.at("dtype").get<std::string>() + "'");
        run.dtype = *dtype;
      } else if (type == "candidate" && spec) {
        Config c = config_from_older_json(*spec, j.at("config"));
        std::optional<double> t;
        if (j.at("status") == "ok") {
          t = j.at("timing").at("median_us").get<double>();
          if (!std::isfinite(*t) || *t <= 0) throw Error("median_us " + std::to_string(*t) + " is not a positive time");
        }
        run.configs.push_back(std::move(c));
        run.median_us.push_back(t);
        run.candidates.push_back(std::move(j));
      } else if (type == "closing" && spec) {
        if (j.contains("winner")) run.winner = config_from_older_json(*spec, j["winner"].at("config"));
        run.closing = j;
      }
    } catch (const std::exception& e) {
      // Without its header nothing in a log can be read; any other bad line is skipped.
      if (type == "header") throw Error("search log " + where + ": unreadable header: " + e.what());
      ++run.bad_lines;
      if (run.first_bad_line.empty()) run.first_bad_line = where + ": " + e.what();
    }
  }
  if (!spec) throw Error("search log " + path.string() + " has no header line");
  return run;
}

const KernelSpec& RecordedRun::spec() const { return run_spec(header); }

const KernelSpec& run_spec(const nlohmann::json& header) {
  if (!header.contains("kernel_source")) return KernelSpec::builtin(header.at("family").get<std::string>());
  // Parsed once per source; map nodes are stable, so references stay valid.
  static std::mutex mutex;
  static std::map<std::string, KernelSpec> parsed;
  const std::string source = header.at("kernel_source").get<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(source);
  if (it == parsed.end()) it = parsed.emplace(source, KernelSpec::parse(source)).first;
  return it->second;
}

}  // namespace ktune
