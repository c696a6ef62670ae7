#include "cli/cache_cli.hpp"

#include "cli/problem_cli.hpp"
#include "cli/record_checks.hpp"

#include <ktune/cache/resolve.hpp>
#include <ktune/cache/shipped_winners.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/arch_table.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/tuner/family.hpp>
#include "run/output_file.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct CacheArgs {
  std::string database, family, variant, dtype, shape, file, device_key;
  int device = 0;
  bool all_devices = false, for_shipping = false, shipped = false;
  ProblemArgs problem;  // explain's
};

fs::path db_path(const CacheArgs& a) { return Database::path_or_default(a.database); }

void print_record(const TuningRecord& r) {
  std::printf("%-40s %-11s %-8s %-5s %-12s align %-2lld %9.2f us %6.0f %-7s %5.1f%%  %s\n", r.device_key.c_str(),
              r.family.c_str(), (r.variant.empty() ? "-" : r.variant).c_str(), r.dtype.c_str(),
              shape_to_string(r.shape).c_str(), static_cast<long long>(r.align),
              r.median_us, r.rate, r.rate_unit.c_str(), 100 * r.ceiling_fraction, r.config.dump().c_str());
}

bool matches(const TuningRecord& r, const CacheArgs& a) {
  return (a.family.empty() || r.family == a.family) && (a.variant.empty() || r.variant == a.variant) &&
         (a.dtype.empty() || r.dtype == a.dtype) &&
         (a.shape.empty() || shape_to_string(r.shape) == a.shape);
}

// A device key's limits without its GPU ("NAME|sm_89|142sm|..."): the architecture
// table's row with the key's SM count; sm_90's where the key names no architecture of
// the table.
DeviceLimits limits_of_key(const std::string& key) {
  const std::size_t a = key.find("|sm_");
  if (a == std::string::npos) return DeviceLimits{};
  const std::size_t b = key.find('|', a + 1);
  DeviceLimits limits;
  try {
    limits = arch_info(parse_arch(key.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1))).limits;
  } catch (const InvalidArgument&) {
    return DeviceLimits{};
  }
  if (b != std::string::npos) {
    std::size_t digits = 0;
    while (b + 1 + digits < key.size() && std::isdigit(static_cast<unsigned char>(key[b + 1 + digits])) && digits < 6) ++digits;
    if (digits > 0 && key.compare(b + 1 + digits, 2, "sm") == 0) limits.sm_count = std::stoll(key.substr(b + 1, digits));
  }
  return limits;
}

// The device whose records `explain` resolves: --device-key without a GPU (its
// architecture's limits), else the GPU's own fingerprint and limits.
std::pair<std::string, DeviceLimits> target_device(const CacheArgs& a) {
  if (!a.device_key.empty()) return {a.device_key, limits_of_key(a.device_key)};
  std::string why;
  if (!driver::available(&why)) throw Error("explain needs a GPU or --device-key KEY (see `ktune cache list`): " + why);
  const DeviceInfo dev = query_device_ordinal(a.device);
  return {dev.fingerprint.key(), dev.limits};
}

// Before anything was tuned here there is no database file: to the read-only commands
// that is an empty database, not an error (and they never create it).
bool no_database_yet(const fs::path& path) {
  std::error_code ec;
  return !fs::exists(path, ec) && !ec;  // (a path that cannot be checked: opening it says why)
}

// The problem is given as to `ktune tune` (any family, or --kernel); its alignment
// class is that of cuMemAlloc'd buffers with dense pitches, or with --ld's for a transpose.
void explain(const CacheArgs& a) {
  const TuningProblem problem = resolve_problem(a.problem).problem;
  const KernelSpec& spec = *problem.spec;
  const auto [key, limits] = target_device(a);
  std::printf("device %s, %s (alignment class %lld):\n", key.c_str(), problem.describe().c_str(),
              static_cast<long long>(problem.align()));
  const fs::path path = db_path(a);
  const bool none = no_database_yet(path);
  std::optional<Database> db;
  if (!none) db.emplace(path, true);
  const Resolved r = resolve_config(db ? &*db : nullptr, *shipped_winners(), key, problem, limits);
  const std::string level(to_string(r.level));
  if (r.record) {
    std::printf("  %s: tuned %s align %lld on %s, %.2f us, %s\n", level.c_str(), shape_to_string(r.record->shape).c_str(),
                static_cast<long long>(r.record->align), r.record->device_name.c_str(), r.record->median_us,
                r.record->config.dump().c_str());
  } else {
    const std::string why = none ? "no tuning database at " + path.string() + " yet" : "no tuned record that fits";
    std::printf("  %s: %s, nothing shipped that fits; %s %s\n", level.c_str(), why.c_str(),
                r.level == MatchLevel::model ? "the model's first-ranked config" : "the safe default",
                config_to_string(spec, r.config).c_str());
  }
  if (r.stale) std::printf("  (%zu record(s) tuned on another template version ignored)\n", r.stale);
}

// The options several cache commands share.
CLI::App* with_db(CLI::App* c, CacheArgs& args) {
  c->add_option("--database", args.database, "tuning database file (default: $KTUNE_CACHE_DIR/tuning.db)");
  return c;
}

CLI::App* with_filter(CLI::App* c, CacheArgs& args) {
  c->add_option("--family", args.family, "kernel family (or a user kernel's name)");
  c->add_option("--variant", args.variant, "variant: an op, a layout, an expression, a kernel's source hash");
  c->add_option("--dtype", args.dtype, "element type");
  c->add_option("--shape", args.shape, "sizes, e.g. 8192x2048");
  return c;
}

// `ktune cache list`: every stored result, a line each (--shipped: the shipped winners').
void add_list(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* list = with_db(cache->add_subcommand("list", "list stored results"), *args);
  list->add_flag("--shipped", args->shipped, "list the winners shipped with ktune for known GPUs instead");
  list->callback([args] {
    if (args->shipped) {
      const auto shipped = shipped_winners();
      for (const auto& r : *shipped) print_record(r);
      std::printf("%zu shipped record(s): %s\n", shipped->size(), shipped_winners_source().c_str());
      return;
    }
    const fs::path path = db_path(*args);
    if (no_database_yet(path)) {
      std::printf("0 record(s): no tuning database at %s yet (`ktune tune` creates it)\n", path.c_str());
      return;
    }
    Database db(path, true);
    const auto records = db.all();
    for (const auto& r : records) print_record(r);
    std::printf("%zu record(s) in %s\n", records.size(), db.path().c_str());
    if (db.recovered_from()) std::printf("damaged: %s\n", db.recovered_from()->c_str());
  });
}

// `ktune cache show`: matching records as JSON.
void add_show(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* show = with_filter(with_db(cache->add_subcommand("show", "print matching records as JSON"), *args), *args);
  show->callback([args] {
    if (!args->shape.empty() && !parse_shape(args->shape))
      throw Error("bad --shape '" + args->shape + "': expected sizes like 8192x2048");
    if (!args->dtype.empty() && !parse_dtype(args->dtype))
      throw Error("unknown dtype '" + args->dtype + "' (known: " + std::string(dtype_names()) + ")");
    const fs::path path = db_path(*args);
    if (no_database_yet(path)) {
      std::fprintf(stderr, "no tuning database at %s yet: nothing to show\n", path.c_str());
      return;
    }
    Database db(path, true);
    for (const auto& r : db.all())
      if (matches(r, *args)) std::cout << r.to_json().dump(2) << '\n';
  });
}

// `ktune cache explain`: which stored result a call would use, and why.
void add_explain(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* ex = with_db(cache->add_subcommand(
      "explain", "which stored result a call would use, and why: the problem as for `ktune tune`"), *args);
  add_problem_options(ex, args->problem);
  ex->add_option("--device", args->device, "GPU ordinal")->capture_default_str();
  ex->add_option("--device-key", args->device_key, "a device key from `ktune cache list` (no GPU needed)");
  ex->callback([args] { explain(*args); });
}

// `ktune cache export`: all records as JSON, or a database to ship.
void add_export(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* exp = with_db(cache->add_subcommand("export", "write all records as JSON (readable, diffable), or a database to ship"), *args);
  exp->add_option("-o,--output", args->file, "file to write (default: stdout)");
  exp->add_flag("--for-shipping", args->for_shipping,
                "write -o as a self-contained read-only database (no WAL) that an application opens read-only, "
                "also on a read-only mount");
  exp->callback([args] {
    const Database db(db_path(*args), true);
    if (args->for_shipping) {
      if (args->file.empty()) throw Error("--for-shipping needs -o FILE (a new file)");
      db.write_shipping_copy(args->file);
      std::printf("%zu record(s) written to %s (read-only, no WAL)\n", db.all().size(), args->file.c_str());
      return;
    }
    const std::string text = db.export_json().dump(2) + "\n";
    if (args->file.empty()) {
      std::cout << text << std::flush;
      if (!std::cout) throw Error("cannot write the export to standard output");
      return;
    }
    write_output_file(args->file, text);
  });
}

// `ktune cache import`: the records of a JSON export; the current template's, then the
// faster record wins.
void add_import(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* imp = with_db(cache->add_subcommand("import", "add the records of a JSON export (the faster record wins)"), *args);
  imp->add_option("file", args->file, "JSON file written by `ktune cache export`")->required();
  imp->callback([args] {
    std::error_code ec;
    if (!fs::is_regular_file(args->file, ec)) throw Error("cannot read " + args->file + ": not a regular file");
    std::ifstream in(args->file, std::ios::binary);
    if (!in) throw Error("cannot read " + args->file);
    const nlohmann::json doc = parse_export(in, args->file);
    Database db(db_path(*args));
    const std::size_t stored = db.import_json(doc, check_against_family, is_current);
    std::printf("%zu of %zu record(s) stored in %s (others: a faster record was already there)\n", stored,
                doc["records"].size(), db.path().c_str());
  });
}

// `ktune cache ship`: the database's records of current templates as a shipped winners
// table (scripts/ship_winners.sh writes shipped/<device>.tsv with it).
void add_ship(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* ship = with_db(cache->add_subcommand("ship", "write the database's current records as a shipped winners table"), *args);
  ship->add_option("-o,--output", args->file, "the table to write (shipped/<device>.tsv)")->required();
  ship->callback([args] {
    const Database db(db_path(*args), true);
    std::vector<TuningRecord> current;
    std::size_t skipped = 0;
    for (auto& r : db.all()) {
      if (is_current(r.family, r.template_hash) && !check_against_family(r))
        current.push_back(std::move(r));
      else
        ++skipped;
    }
    std::size_t left_out = 0;
    const std::size_t total = current.size();
    write_output_file(args->file, format_shipped(std::move(current), left_out));
    std::printf("%zu record(s) written to %s (%zu of other templates or invalid, %zu not expressible as a line: "
                "left out)\n", total - left_out, args->file.c_str(), skipped, left_out);
  });
}

// `ktune cache prune`: records of a template version that changed.
void add_prune(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* prune = with_db(cache->add_subcommand("prune", "delete records tuned on a template version that changed"), *args);
  prune->callback([args] {
    Database db(db_path(*args));
    const std::size_t n = db.prune([](const TuningRecord& r) {
      // A family this build doesn't know (a user's kernel, a newer build's family):
      // kept, for the build or the kernel file that knows it.
      return !is_current(r.family, r.template_hash);
    });
    std::printf("pruned %zu stale record(s) from %s\n", n, db.path().c_str());
  });
}

// `ktune cache recover`: the readable records of a damaged file.
void add_recover(CLI::App* cache, const std::shared_ptr<CacheArgs>& args) {
  auto* recover = with_db(cache->add_subcommand(
      "recover", "copy every readable record of a damaged database file into the database, and report what was lost"), *args);
  recover->add_option("file", args->file, "a damaged (or set-aside) database file; it is only read")
      ->required()
      ->check(CLI::ExistingFile);
  recover->callback([args] {
    std::error_code ec;
    if (fs::equivalent(args->file, db_path(*args), ec)) throw Error("recover reads another file into the database; give --database");
    SalvageReport salvaged = salvage_records(args->file);
    // What an import would reject is not stored either (a config its family does not
    // have, or not for its problem).
    std::vector<TuningRecord> valid;
    for (auto& r : salvaged.records) {
      if (const auto why = check_against_family(r))
        salvaged.unreadable.push_back(r.family + " " + shape_to_string(r.shape) + ": " + *why);
      else
        valid.push_back(std::move(r));
    }
    salvaged.records = std::move(valid);
    Database db(db_path(*args));
    const std::size_t stored = db.put_all(salvaged.records, is_current);
    for (const auto& why : salvaged.unreadable) std::printf("lost: %s\n", why.c_str());
    std::printf("%zu record(s) read from %s, %zu stored in %s (others: a faster record was already there), "
                "%zu unreadable\n",
                salvaged.records.size(), args->file.c_str(), stored, db.path().c_str(), salvaged.unreadable.size());
  });
}

}  // namespace

void add_cache_commands(CLI::App& app) {
  auto args = std::make_shared<CacheArgs>();
  auto* cache = app.add_subcommand("cache", "inspect, share and maintain the tuning database");
  cache->require_subcommand(1);
  for (const auto add : {add_list, add_show, add_explain, add_export, add_import, add_ship, add_prune, add_recover}) add(cache, args);
  add_cache_merge(cache);
  cache->add_subcommand("path", "print where results and logs are stored")->callback([] {
    std::printf("database: %s\nlogs: %s\n", Database::default_path().c_str(), (Database::default_dir() / "logs").c_str());
  });
}

}  // namespace ktune
