#include "report/counter_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace ktune {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

double metric(const CounterRow& r, const char* name) {
  const auto it = r.values.find(name);
  return it == r.values.end() ? k_nan : it->second;
}

// One record ({"config", "timing", "counters": {"values" | "skipped" | "error"}}) as a
// row; nullopt with a warning when malformed.
std::optional<CounterRow> read_row(const nlohmann::json& rec, const std::string& role, std::vector<std::string>& warnings) {
  const auto bad = [&](const std::string& why) {
    warnings.push_back("the counters record of the " + role + " config is malformed (" + why + "); skipped");
    return std::nullopt;
  };
  if (!rec.is_object() || !rec.contains("counters")) return std::nullopt;  // not collected for it
  const auto& c = rec["counters"];
  if (!c.is_object()) return bad("not an object");
  CounterRow row;
  row.role = role;
  row.config = rec.value("config", std::string("?"));
  if (rec.contains("timing") && rec["timing"].is_object()) row.median_us = rec["timing"].value("median_us", 0.0);
  if (c.contains("values")) {
    if (!c["values"].is_object()) return bad("values are not an object");
    for (const auto& [name, v] : c["values"].items()) {
      if (v.is_null()) continue;  // not finite when collected
      if (!v.is_number()) return bad("the value of " + name + " is not a number");
      row.values[name] = v.get<double>();
    }
  } else if (c.contains("skipped") && c["skipped"].is_string()) {
    row.note = "skipped: " + c["skipped"].get<std::string>();
  } else if (c.contains("error") && c["error"].is_string()) {
    row.note = "failed: " + c["error"].get<std::string>();
  } else {
    return bad("no values, skipped or error");
  }
  return row;
}

std::string number(double v, const char* f) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "31% fewer" / "12% more" of b against a.
std::string relative(double winner, double other) {
  char buf[48];
  const double d = other > 0 ? (other - winner) / other : 0;
  std::snprintf(buf, sizeof buf, "%.0f%% %s", std::abs(100 * d), d >= 0 ? "fewer" : "more");
  return buf;
}

}  // namespace

std::optional<CounterTable> counter_table(const RecordedRun& run) {
  if (!run.closing || !run.closing->contains("counters")) return std::nullopt;
  const auto& closing = *run.closing;
  CounterTable t;
  const auto& s = closing["counters"];
  if (!s.is_object()) {
    t.warnings.push_back("the run's counters summary is malformed (not an object); skipped");
    return t;
  }
  t.status = s.value("status", std::string("?"));
  t.reason = s.contains("reason") && s["reason"].is_string() ? s["reason"].get<std::string>() : "";
  t.chip = s.contains("chip") && s["chip"].is_string() ? s["chip"].get<std::string>() : "";
  t.passes = s.contains("passes") && s["passes"].is_number_unsigned() ? s["passes"].get<std::size_t>() : 0;
  t.seconds = s.contains("seconds") && s["seconds"].is_number() ? s["seconds"].get<double>() : 0;
  const auto add = [&](const nlohmann::json& rec, const std::string& role) {
    if (auto row = read_row(rec, role, t.warnings)) t.rows.push_back(std::move(*row));
  };
  if (closing.contains("finalists") && closing["finalists"].is_array())
    for (std::size_t j = 0; j < closing["finalists"].size(); ++j) add(closing["finalists"][j], std::to_string(j + 1));
  if (closing.contains("design") && closing["design"].is_array())
    for (const auto& d : closing["design"]) add(d, "design");
  if (closing.contains("contrast")) add(closing["contrast"], "slowest");
  return t;
}

CounterSummary summarize(const CounterRow& r) {
  const double read = metric(r, "dram__bytes_read.sum"), written = metric(r, "dram__bytes_write.sum");
  const double ns = metric(r, "gpu__time_duration.sum");
  const double bytes = read + written;
  const double ld = metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  const double st = metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
  return {bytes / ns,  // bytes per ns: GB/s
          bytes / 1e6,
          metric(r, "lts__t_sector_hit_rate.pct"),
          std::isnan(ld) && std::isnan(st) ? k_nan : (std::isnan(ld) ? 0 : ld) + (std::isnan(st) ? 0 : st),
          metric(r, "sm__warps_active.avg.pct_of_peak_sustained_active"),
          metric(r, "sm__inst_issued.avg.pct_of_peak_sustained_active"),
          metric(r, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
          metric(r, "sm__cycles_elapsed.avg.per_second") / 1e6,
          read / 1e6,
          written / 1e6};
}

std::string counter_text(const CounterTable& t) {
  std::string out;
  for (const auto& w : t.warnings) out += "warning: " + w + "\n";
  if (t.status == "unavailable") return out + "counters: none for this run: " + t.reason + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "counters (%s, %zu passes a launch, %.1f s)%s\n%-8s %10s %9s %8s %7s %11s %6s %6s %6s %6s  %s\n",
                t.chip.c_str(), t.passes, t.seconds, t.status == "stopped" ? (", stopped: " + t.reason).c_str() : "",
                "config", "median us", "DRAM GB/s", "DRAM MB", "L2 hit%", "bank confl.", "occup%", "issue%", "tensor%",
                "SM MHz", "config");
  out += line;
  for (const auto& r : t.rows) {
    if (r.values.empty()) {
      std::snprintf(line, sizeof line, "%-8s %10.2f  %s  %s\n", r.role.c_str(), r.median_us, r.note.c_str(), r.config.c_str());
      out += line;
      continue;
    }
    const CounterSummary s = summarize(r);
    std::snprintf(line, sizeof line, "%-8s %10.2f %9s %8s %7s %11s %6s %6s %6s %6s  %s\n", r.role.c_str(), r.median_us,
                  number(s.dram_gbps, "%.0f").c_str(), number(s.dram_mb, "%.1f").c_str(),
                  number(s.l2_hit_pct, "%.1f").c_str(), number(s.bank_conflicts, "%.0f").c_str(),
                  number(s.occupancy_pct, "%.1f").c_str(), number(s.issue_pct, "%.1f").c_str(),
                  number(s.tensor_pct, "%.1f").c_str(), number(s.sm_mhz, "%.0f").c_str(), r.config.c_str());
    out += line;
  }
  return out;
}

std::string explain_winner(const CounterTable& t) {
  const CounterRow* w = nullptr;
  const CounterRow* r = nullptr;
  for (const auto& row : t.rows) {
    if (row.role == "1" && !row.values.empty()) w = &row;
    if (row.role == "2" && !row.values.empty()) r = &row;
  }
  if (t.status == "unavailable") return "No counters for this run: " + t.reason;
  if (!w || !r) return "Counters of the winner and the runner-up are not both in this log.";
  const CounterSummary a = summarize(*w), b = summarize(*r);
  // Finalists within the timing noise of the best are ranked by their order in the space,
  // so the winner's median may be a hair behind the runner-up's: a tie, said as such.
  const double lead = 100 * (r->median_us - w->median_us) / r->median_us;
  char times[2][32], lead_text[48];
  std::snprintf(times[0], sizeof times[0], "%.2f us", w->median_us);
  std::snprintf(times[1], sizeof times[1], "%.2f us", r->median_us);
  std::snprintf(lead_text, sizeof lead_text, lead > 0 ? "is %.1f%% faster than" : "ties (within the noise, %.1f%% apart)", std::abs(lead));
  const std::string head = "The winner (" + std::string(times[0]) + ", " + w->config + ") " + lead_text +
                           " the runner-up (" + times[1] + ", " + r->config + ")";
  // Each quantity that differs by more than its share (and, for conflicts, a count that
  // matters), as a phrase.
  struct Quantity {
    double winner, runner, share, at_least;
    std::function<std::string()> say;
  };
  const auto versus = [](const char* what, double x, double y, const char* unit) {
    char buf[120];
    std::snprintf(buf, sizeof buf, "%s %.0f%s against %.0f%s", what, x, unit, y, unit);
    return std::string(buf);
  };
  const std::vector<Quantity> quantities{
      {a.dram_read_mb, b.dram_read_mb, 0.05, 0,
       [&] {
         char buf[160];
         std::snprintf(buf, sizeof buf, "it reads %s bytes from DRAM (%.1f MB against %.1f MB)",
                       relative(a.dram_read_mb, b.dram_read_mb).c_str(), a.dram_read_mb, b.dram_read_mb);
         return std::string(buf);
       }},
      {a.dram_write_mb, b.dram_write_mb, 0.05, 0,
       [&] {
         char buf[200];
         std::snprintf(buf, sizeof buf, "it writes %s bytes to DRAM by its end (%.1f MB against %.1f MB; what is still "
                       "in L2 then is written later)",
                       relative(a.dram_write_mb, b.dram_write_mb).c_str(), a.dram_write_mb, b.dram_write_mb);
         return std::string(buf);
       }},
      {a.bank_conflicts, b.bank_conflicts, 0.1, 1000,
       [&] {
         char buf[160];
         std::snprintf(buf, sizeof buf, "the runner-up has %.3gM shared-memory bank conflicts, the winner %.3gM",
                       b.bank_conflicts / 1e6, a.bank_conflicts / 1e6);
         return std::string(buf);
       }},
      {a.occupancy_pct, b.occupancy_pct, 0.1, 0, [&] { return versus("achieved occupancy", a.occupancy_pct, b.occupancy_pct, "%"); }},
      {a.l2_hit_pct, b.l2_hit_pct, 0.05, 0, [&] { return versus("L2 hit rate", a.l2_hit_pct, b.l2_hit_pct, "%"); }},
      {a.issue_pct, b.issue_pct, 0.1, 0, [&] { return versus("issue slots busy", a.issue_pct, b.issue_pct, "%"); }},
      {a.tensor_pct, b.tensor_pct, 0.05, 0, [&] { return versus("tensor pipes busy", a.tensor_pct, b.tensor_pct, "%"); }},
      {a.sm_mhz, b.sm_mhz, 0.02, 0, [&] { return versus("SM clock", a.sm_mhz, b.sm_mhz, " MHz"); }},
  };
  std::vector<std::string> facts;
  for (const auto& q : quantities) {
    if (std::isnan(q.winner) || std::isnan(q.runner)) continue;
    const double larger = std::max(std::abs(q.winner), std::abs(q.runner));
    if (std::abs(q.winner - q.runner) > q.share * larger && larger > q.at_least) facts.push_back(q.say());
  }
  std::string text = head;
  if (facts.empty()) return text + "; their counters agree within a few percent (DRAM bytes, bank conflicts, occupancy, "
                                   "L2 hits, issue, clock): the difference is elsewhere.";
  text += ": ";
  for (std::size_t i = 0; i < facts.size(); ++i) text += (i ? (i + 1 == facts.size() ? " and " : ", ") : "") + facts[i];
  return text + ".";
}

}  // namespace ktune
