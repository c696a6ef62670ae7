#include <ktune/tuner/recorded_run.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/input_file.hpp>
#include <ktune/generator/json.hpp>
#include <ktune/generator/kernel_time.hpp>

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

namespace {

// The fields of a log line that `ktune log` reads, with their JSON types: a line whose
// field has another type is bad (a header: the log is unreadable; another line: skipped
// and counted).
void expect(const nlohmann::json& j, const char* name, JsonType type, bool required = false) {
  if (const auto why = json_field_error(j, name, type, required)) throw Error(*why);
}

void check_header(const nlohmann::json& j) {
  expect(j, "dtype", JsonType::string, true);
  expect(j, "shape", JsonType::integer_list, true);
  expect(j, "kernel_source", JsonType::string);
  expect(j, "family", JsonType::string, !j.contains("kernel_source"));
  for (const char* name : {"run", "strategy", "started"}) expect(j, name, JsonType::string);
  expect(j, "device", JsonType::object);
  if (j.contains("device")) expect(j["device"], "name", JsonType::string);
  expect(j, "ceiling", JsonType::object);
  if (j.contains("ceiling")) {
    expect(j["ceiling"], "gbps", JsonType::number);
    for (const char* name : {"what", "unit"}) expect(j["ceiling"], name, JsonType::string);
  }
}

void check_candidate(const nlohmann::json& j) {
  expect(j, "status", JsonType::string, true);
  expect(j, "reason", JsonType::string);
  for (const char* name : {"t_s", "gbps", "ceiling_fraction", "compile_ms"}) expect(j, name, JsonType::number);
  for (const char* name : {"index", "registers", "smem_bytes", "spill_bytes"}) expect(j, name, JsonType::integer);
  expect(j, "timing", JsonType::object, j["status"] == "ok");
  if (j.contains("timing"))
    for (const char* name : {"median_us", "ci_pct", "samples"}) expect(j["timing"], name, JsonType::number);
}

void check_closing(const nlohmann::json& j) {
  expect(j, "seconds", JsonType::number);
  expect(j, "winner", JsonType::object);
  if (j.contains("winner")) {
    expect(j["winner"], "timing", JsonType::object, true);
    expect(j["winner"]["timing"], "median_us", JsonType::number);
  }
}

}  // namespace

RecordedRun read_search_log(const std::filesystem::path& path) {
  std::ifstream in = open_regular_file(path, "search log");
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
        check_header(j);
        run.header = j;
        spec = &run_spec(j);
        const auto dtype = parse_dtype(j.at("dtype").get<std::string>());
        if (!dtype) throw Error("unknown dtype '" + j.at("dtype").get<std::string>() + "'");
        run.dtype = *dtype;
      } else if (type == "candidate" && spec) {
        check_candidate(j);
        Config c = config_from_older_json(*spec, j.at("config"));
        std::optional<double> t;
        if (j.at("status") == "ok") {
          t = j.at("timing").at("median_us").get<double>();
          // (a denormal time made `log report`'s axis loop forever, and beat every real one)
          if (!plausible_kernel_time(*t))
            throw Error("median_us " + nlohmann::json(*t).dump() + " is not a time a kernel takes");
        }
        run.configs.push_back(std::move(c));
        run.median_us.push_back(t);
        run.candidates.push_back(std::move(j));
      } else if (type == "closing" && spec) {
        check_closing(j);
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
