#pragma once
// Winners shipped with the package for known GPUs: reviewable text tables, one per device
// model (shipped/<device>.tsv), written by `ktune cache ship` from a database that
// scripts/ship_winners.sh tuned over a workload, embedded into the library at build time.
// A call nobody tuned on this machine is served from them (cache/resolve.hpp).
//
// A table: a first line "# ktune shipped winners, format 1", comment lines ("#"), and a
// record a line, tab-separated: family, variant ("-": none), dtype, shape, align, config
// (JSON), device key, template hash, median us, date tuned.
#include <ktune/cache/database.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune {

constexpr int k_shipped_format = 1;

struct ShippedTable {
  std::vector<TuningRecord> records;
  std::vector<std::string> warnings;  // "NAME:LINE: why" per line skipped, or why the whole table was
};

// Never throws: a damaged or truncated line is skipped with a warning, a table of another
// format (or none) is skipped whole with one. `name` is what warnings call it.
ShippedTable parse_shipped(std::string_view text, const std::string& name);
// The table's text for these records (sorted, so a table made twice reads the same).
// Records whose text fields hold a tab or a line break (an elementwise expression of
// several lines) cannot be a line: they are left out and counted in `left_out`.
std::string format_shipped(std::vector<TuningRecord> records, std::size_t& left_out);

// The tables this build embedded ($KTUNE_SHIPPED_WINNERS: that file's instead, "off":
// none), parsed at first use and again when the variable changes; the warnings are
// logged then (logger ktune.shipped).
std::shared_ptr<const std::vector<TuningRecord>> shipped_winners();
// Where they came from, for `ktune cache list --shipped`.
std::string shipped_winners_source();

// Generated at build time: (device table name, text) per shipped/*.tsv.
std::vector<std::pair<std::string_view, std::string_view>> embedded_shipped_winners();

}  // namespace ktune
