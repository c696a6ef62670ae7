// libFuzzer target: arbitrary bytes as a shipped winners table. Parsing never throws or
// crashes; every record it keeps is one a tuner could have measured, and writing the
// records back and parsing that gives them again.
#include <ktune/cache/shipped_winners.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ktune::ShippedTable t = ktune::parse_shipped(text, "fuzz.tsv");
  for (const auto& r : t.records)
    if (r.invalid()) std::abort();
  std::size_t left_out = 0;
  const ktune::ShippedTable again = ktune::parse_shipped(ktune::format_shipped(t.records, left_out), "again");
  if (again.records.size() + left_out != t.records.size() || !again.warnings.empty()) std::abort();
  return 0;
}
