#include "cli/capture_cli.hpp"

#include "problem/capture_problem.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct CaptureArgs {
  std::string path, database;
  bool tuned = false, dry_run = false, source = false;
};

// The folder given, else where the runtime writes bundles.
fs::path default_folder(const CaptureArgs& a) {
  return a.path.empty() ? capture_folder(Database::path_or_default(a.database)) : fs::path(a.path);
}

std::string megabytes(std::uintmax_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

void list(const CaptureArgs& a) {
  const auto files = capture_files(default_folder(a));
  std::size_t bad = 0;
  for (const auto& file : files) {
    try {
      const CaptureBundle b = read_capture(file, false);
      std::printf("%-60s %-7s %9s  %s\n", file.filename().c_str(), b.header.value("kind", std::string("?")).c_str(),
                  megabytes(fs::file_size(file)).c_str(), capture_summary(b).c_str());
    } catch (const std::exception& e) {  // a CaptureError, or one file's I/O: the others are still listed
      std::printf("%-60s UNUSABLE: %s\n", file.filename().c_str(), e.what());
      ++bad;
    }
  }
  std::printf("%zu bundle(s) in %s, %zu unusable\n", files.size(), default_folder(a).c_str(), bad);
}

void show(const CaptureArgs& a) {
  const CaptureBundle b = read_capture(a.path);  // every buffer decompressed and its hash checked
  nlohmann::json h = b.header;
  if (!a.source && h.contains("source")) h["source"] = "(" + std::to_string(h["source"].get<std::string>().size()) + " characters; --source prints it)";
  std::cout << h.dump(2) << '\n';
  std::uintmax_t bytes = 0;
  for (const auto& buffer : b.buffers) bytes += buffer.bytes.size();
  std::printf("%s\ndata: %zu buffer(s), %s, every hash checked\n", capture_summary(b).c_str(), b.buffers.size(),
              megabytes(bytes).c_str());
}

// A bundle a killed capture left half-written: "<name>.ktcap.tmp-PID" whose process is gone.
bool abandoned_temporary(const fs::path& file) {
  const std::string name = file.filename().string();
  const auto at = name.rfind(".ktcap.tmp-");
  if (at == std::string::npos) return false;
  const long pid = std::strtol(name.c_str() + at + 11, nullptr, 10);
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Why a bundle can go, or empty: unusable (proven: it does not read), a copy of an
// earlier one (the same content, its hash recomputed by read_capture), or its problem has
// one of `stored` (--tuned). A bundle of another format version is kept: a newer ktune
// reads it.
std::string prune_reason(const fs::path& file, std::map<std::string, fs::path>& seen,
                         const std::vector<TuningRecord>& stored) {
  try {
    const CaptureBundle b = read_capture(file);
    const auto [it, first] = seen.emplace(b.content_hash, file);
    if (!first) return "a copy of " + it->second.filename().string();
    const auto& h = b.header;
    for (const auto& r : stored)
      if (r.family == h.value("family", "") && r.variant == h.value("variant", "") && r.dtype == h.value("dtype", "") &&
          r.shape == h.value("shape", std::vector<std::int64_t>{}))
        return "tuned (stored for " + r.device_name + ")";
    return "";
  } catch (const CaptureVersionError& e) {
    std::printf("kept %s: %s\n", file.filename().c_str(), e.what());
    return "";
  } catch (const CaptureError& e) {
    return std::string("unusable: ") + e.what();
  } catch (const std::exception& e) {  // not proven damaged (memory, I/O): kept
    std::printf("kept %s: cannot read it now: %s\n", file.filename().c_str(), e.what());
    return "";
  }
}

void prune(const CaptureArgs& a) {
  const fs::path folder = default_folder(a);
  if (!fs::is_directory(folder)) throw Error("capture prune: " + folder.string() + " is not a folder of bundles");
  std::vector<TuningRecord> stored;  // read once, only read
  if (a.tuned) stored = Database(Database::path_or_default(a.database), true).all();
  std::map<std::string, fs::path> seen;
  std::size_t removed = 0;
  std::vector<fs::path> files;  // in name order: "a copy of" names the first of equal bundles
  for (const auto& e : fs::directory_iterator(folder))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::string why;
    if (abandoned_temporary(file)) why = "left by a capture that was killed";
    else if (file.extension() == ".ktcap") why = prune_reason(file, seen, stored);
    if (why.empty()) continue;
    std::printf("%s %s: %s\n", a.dry_run ? "would remove" : "removed", file.filename().c_str(), why.c_str());
    if (!a.dry_run) fs::remove(file);
    ++removed;
  }
  std::printf("%zu file(s) %s\n", removed, a.dry_run ? "would be removed (--dry-run)" : "removed");
}

}  // namespace

void add_capture_commands(CLI::App& app) {
  auto args = std::make_shared<CaptureArgs>();
  auto* capture = app.add_subcommand("capture", "the problems applications captured (KTUNE_CAPTURE) for `ktune tune --capture`");
  capture->require_subcommand(1);
  const auto with_folder = [&](CLI::App* cmd) {
    cmd->add_option("folder", args->path, "bundles' folder (default: $KTUNE_CAPTURE_DIR, else captures/ beside the database)");
    cmd->add_option("--database", args->database, "the database whose folder holds captures/ (default: the default database)");
    return cmd;
  };
  with_folder(capture->add_subcommand("list", "one line per bundle: its problem, where it was captured, or why it is unusable"))
      ->callback([args] { list(*args); });
  auto* sh = capture->add_subcommand("show", "a bundle's description, after reading and checking all its data");
  sh->add_option("bundle", args->path, "the bundle file")->required();
  sh->add_flag("--source", args->source, "print the captured kernel source too");
  sh->callback([args] { show(*args); });
  auto* pr = with_folder(capture->add_subcommand(
      "prune", "remove unusable bundles, copies of another, temporary files of killed captures; --tuned: also those "
               "whose problem is stored in the database"));
  pr->add_flag("--tuned", args->tuned, "also remove bundles whose problem has a record (on any GPU)");
  pr->add_flag("--dry-run", args->dry_run, "say what would be removed, remove nothing");
  pr->callback([args] { prune(*args); });
}

}  // namespace ktune
