// `ktune cache merge`: other databases (an array job's shards, another machine's) into
// this one, each in one transaction, with a line per database saying what happened.
#include "cli/cache_cli.hpp"
#include "cli/record_checks.hpp"
#include "cli/problem_cli.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/user_kernel.hpp>
#include <ktune/tuner/family.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::string database, workload;
  std::vector<std::string> others, kernels;
};

// The users' kernels whose records may be merged, by their family name: the files given
// with --kernel and the --kernel lines of --workload (each file read once).
std::map<std::string, std::shared_ptr<const UserKernel>> users_kernels(const MergeArgs& a) {
  std::set<std::string> files(a.kernels.begin(), a.kernels.end());
  if (!a.workload.empty())
    for (const WorkloadEntry& e : read_workload(a.workload, parse_workload_line))
      if (!e.args.kernel.empty()) files.insert(e.args.kernel);
  std::map<std::string, std::shared_ptr<const UserKernel>> out;
  for (const auto& f : files) {
    auto k = load_user_kernel(f);
    const std::string name = k->spec.family();
    if (find_family(name)) throw Error(f + ": its kernel is named '" + name + "', as a built-in family");
    if (const auto it = out.find(name); it != out.end() && it->second->spec.source_hash() != k->spec.source_hash())
      throw Error(f + ": another kernel file (" + it->second->origin + ") is also named '" + name + "'");
    out.emplace(name, std::move(k));
  }
  return out;
}

class Merger {
 public:
  Merger(Database& db, std::map<std::string, std::shared_ptr<const UserKernel>> users)
      : db_(db), users_(std::move(users)) {}

  // One database into db_: every record read and checked first (a record that is not
  // valid stops this one, nothing of it stored), then the ones not refused in one
  // transaction. Prints its line; throws ktune::Error when nothing of it was stored.
  void merge(const std::string& file) {
    std::error_code ec;
    if (fs::equivalent(file, db_.path(), ec)) throw Error("it is the database merged into");
    const Sorted sorted = read_and_sort(file);
    Database::PutReport put;
    db_.put_all(sorted.accepted, [this](const std::string& f, const std::string& h) { return current(f, h); }, &put);
    std::printf("%s: %zu record(s): %zu added, %zu replaced (faster, or of the current template), %zu kept the stored "
                "faster record, %zu refused\n",
                file.c_str(), sorted.total, put.added, put.replaced, put.kept, sorted.refused.size());
    for (std::size_t i = 0; i < sorted.refused.size() && i < 20; ++i)
      std::printf("  refused: %s\n", sorted.refused[i].c_str());
    if (sorted.refused.size() > 20) std::printf("  refused: ... and %zu more\n", sorted.refused.size() - 20);
    totals_.added += put.added, totals_.replaced += put.replaced, totals_.kept += put.kept;
    refused_ += sorted.refused.size();
  }

  void print_totals(std::size_t databases, std::size_t failed) const {
    std::printf("merged %zu of %zu database(s) into %s: %zu added, %zu replaced, %zu kept, %zu refused\n",
                databases - failed, databases, db_.path().c_str(), totals_.added, totals_.replaced, totals_.kept,
                refused_);
  }

 private:
  // A database's records: those to store and why the others are refused.
  struct Sorted {
    std::size_t total = 0;
    std::vector<TuningRecord> accepted;
    std::vector<std::string> refused;
  };

  // Throws ktune::Error when a record cannot be read (damaged) or is not valid.
  Sorted read_and_sort(const std::string& file) const {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw Error("not a regular file (a FIFO or device is no database)");
    const Database other(file, true);
    // A damaged database opened read-only serves what could be salvaged: merging that
    // would store part of it and say nothing. All of it, or none.
    if (other.recovered_from())
      throw Error("damaged (" + *other.recovered_from() + "); `ktune cache recover " + file +
                  "` copies the readable records into a database of their own, to merge or check");
    std::vector<TuningRecord> records = other.all();  // (the readable ones)
    Sorted out;
    out.total = records.size();
    if (const std::size_t rows = other.row_count(); rows != out.total)
      throw Error(std::to_string(rows - out.total) + " of its " + std::to_string(rows) +
                  " record(s) cannot be read (damaged); `ktune cache recover " + file +
                  "` copies the readable ones into a database");
    std::vector<std::string> invalid;
    for (TuningRecord& r : records) {
      const std::string what = r.family + " " + r.dtype + " " + shape_to_string(r.shape) + " (" + r.device_key + ")";
      auto why = r.invalid();
      if (!why) why = check(r);
      if (why) invalid.push_back(what + ": " + *why);
      else if (auto no = refusal(r)) out.refused.push_back(what + ": " + *no);
      else out.accepted.push_back(std::move(r));
    }
    if (!invalid.empty()) throw Error(std::to_string(invalid.size()) + " invalid record(s), e.g. " + invalid.front());
    return out;
  }

  std::optional<std::string> check(const TuningRecord& r) const {
    const auto user = users_.find(r.family);
    if (user == users_.end()) return check_against_family(r);
    try {
      config_from_older_json(user->second->spec, r.config);
    } catch (const Error& e) {
      return "config not of " + user->second->origin + ": " + e.what();
    }
    return std::nullopt;
  }

  // Why a well-formed record is not merged: another template version, or a kernel this
  // build and the given kernel files do not know.
  std::optional<std::string> refusal(const TuningRecord& r) const {
    const FamilyPart* part = find_family(r.family);
    const auto user = users_.find(r.family);
    if (!part && user == users_.end())
      return "family '" + r.family + "' is not built into this ktune; if it is your kernel, name its file with "
             "--kernel FILE.cu or --workload FILE";
    if (!current(r.family, r.template_hash))
      return "tuned on another template version (" + r.template_hash + "; current: " +
             (part ? part->spec() : user->second->spec).source_hash() + ")";
    return std::nullopt;
  }

  bool current(const std::string& family, const std::string& hash) const {
    const auto user = users_.find(family);
    return user != users_.end() ? user->second->spec.is_current(hash) : is_current(family, hash);
  }

  Database& db_;
  std::map<std::string, std::shared_ptr<const UserKernel>> users_;
  Database::PutReport totals_;
  std::size_t refused_ = 0;
};

}  // namespace

void add_cache_merge(CLI::App* cache) {
  auto args = std::make_shared<MergeArgs>();
  auto* merge = cache->add_subcommand(
      "merge", "add the records of other databases, e.g. an array job's shards (the faster record wins; each database "
               "all or nothing; records of another template version or an unknown kernel refused)");
  merge->add_option("others", args->others, "other tuning database files")->required()->check(CLI::ExistingFile);
  merge->add_option("--database", args->database, "tuning database file (default: $KTUNE_CACHE_DIR/tuning.db)");
  merge->add_option("--kernel", args->kernels, "a kernel file of yours whose records may be merged (repeatable)")
      ->allow_extra_args(false);  // one file a time: the databases follow
  merge->add_option("--workload", args->workload, "a workload file: its --kernel lines' files, as --kernel");
  merge->callback([args] {
    auto users = users_kernels(*args);  // the kernel files first: a bad one stops before anything opens
    Database db(Database::path_or_default(args->database));
    Merger merger(db, std::move(users));
    std::size_t failed = 0;
    for (const auto& file : args->others) {
      try {
        merger.merge(file);
      } catch (const Error& e) {
        std::printf("%s: not merged, nothing of it stored: %s\n", file.c_str(), e.what());
        ++failed;
      }
    }
    merger.print_totals(args->others.size(), failed);
    if (failed) throw Error(std::to_string(failed) + " database(s) not merged (above); merge them again once fixed");
  });
}

}  // namespace ktune
