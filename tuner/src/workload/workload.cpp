#include "workload/workload.hpp"

#include "workload/bounded_line.hpp"

#include <ktune/generator/input_file.hpp>

#include <ktune/cache/capture_bundle.hpp>
#include <ktune/cache/lookup.hpp>
#include <ktune/error.hpp>

#include <fstream>

namespace ktune {

bool stored_exactly(const Database& db, const DeviceInfo& dev, const TuneTarget& problem) {
  return lookup_config(db, dev.fingerprint.key(), problem.problem, dev.limits).level == MatchLevel::exact;
}

std::vector<WorkloadEntry> read_workload(const std::filesystem::path& file, const WorkloadLineParser& parse_line) {
  std::ifstream in = open_regular_file(file, "workload file");
  std::vector<WorkloadEntry> entries;
  std::string text;
  bool too_long = false;
  for (int line = 1; read_bounded_line(in, text, k_max_workload_line, too_long, false); ++line) {
    if (too_long)  // bounded memory and time, whatever the file holds
      throw Error(file.string() + ":" + std::to_string(line) + ": longer than 64 KiB; a problem takes one short line");
    if (const auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      WorkloadEntry e;
      e.line = line;
      parse_line(text, e);
      for (std::string* path : {&e.args.kernel, &e.args.capture})  // relative to the file's folder
        if (!path->empty() && std::filesystem::path(*path).is_relative())
          *path = (file.parent_path() / *path).lexically_normal().string();
      try {
        (void)e.target();  // checked now, resolved again when tuned
      } catch (const CaptureError& bad) {
        e.error = bad.what();
      }
      entries.push_back(std::move(e));
    } catch (const Error& err) {
      throw Error(file.string() + ":" + std::to_string(line) + ": " + err.what());
    }
  }
  if (entries.empty()) throw Error("workload file " + file.string() + " names no problem");
  return entries;
}

std::filesystem::path tuning_times_path(const TuneOptions& opt) { return opt.logs() / "tuning-times.tsv"; }

std::vector<WorkloadEntry> capture_workload(const std::filesystem::path& folder) {
  std::vector<WorkloadEntry> entries;
  for (const auto& file : capture_files(folder)) {
    WorkloadEntry e;
    e.line = static_cast<int>(entries.size()) + 1;
    e.args.capture = file.string();
    try {
      (void)e.target();
    } catch (const CaptureError& bad) {
      e.error = bad.what();
    }
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw Error("--capture " + folder.string() + ": no capture bundles (*.ktcap) in it");
  return entries;
}

}  // namespace ktune
