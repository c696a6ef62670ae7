#include "problem/capture_problem.hpp"

#include "problem/record_key.hpp"

#include <ktune/error.hpp>
#include "measure/user_kernel_harness.hpp"

namespace ktune {
namespace fs = std::filesystem;

namespace {

TuneTarget kernel_target(const nlohmann::json& h, const fs::path& path) {
  const auto kernel = parse_user_kernel(h.at("source").get<std::string>(),
                                        path.string() + " (captured from " + h.at("origin").get<std::string>() + ")");
  if (kernel->spec.entry() != h.at("entry").get<std::string>())
    throw CaptureError(path.string() + ": corrupted: its source's @entry is not the captured one");
  UserProblem problem;
  const auto type = parse_dtype(h.at("type").get<std::string>());
  if (!type) throw CaptureError(path.string() + ": corrupted: unknown type " + h.at("type").dump());
  problem.type = *type;
  for (const auto& v : kernel->variables) problem.values.push_back(h.at("problem").at(v).get<std::int64_t>());
  if (h.contains("align")) {  // the application's pointers' class (bundles before it: the largest)
    const auto a = h.at("align").get<std::int64_t>();
    if (a < 1 || a > 16 || (a & (a - 1)) || a * size_of(problem.type) > 16)
      throw CaptureError(path.string() + ": corrupted: alignment class " + std::to_string(a));
    problem.align = a;
  }
  TuneTarget target = captured_kernel_target(kernel, problem, path);
  // The key the application looks up: a bundle whose source was edited would store
  // winners nobody finds.
  if (target.problem.variant != h.at("variant").get<std::string>() ||
      target.problem.shape != h.at("shape").get<std::vector<std::int64_t>>())
    throw CaptureError(path.string() + ": corrupted: its source or problem does not match its recorded key");
  return target;
}

}  // namespace

TuneTarget capture_target(const fs::path& path) {
  const CaptureBundle bundle = read_capture(path, false);
  const nlohmann::json& h = bundle.header;
  try {
    const std::string kind = h.at("kind").get<std::string>();
    if (kind == "kernel") return kernel_target(h, path);
    if (kind == "problem")  // bundles before the alignment class was tuned lack "align"
      return record_target(parse_record_key(h, "its key"), "its key");
    throw CaptureError(path.string() + ": unknown kind of capture '" + kind + "'");
  } catch (const CaptureError&) {
    throw;
  } catch (const std::exception& e) {  // a description or key this ktune cannot use
    throw CaptureError(path.string() + ": " + e.what());
  }
}

std::string capture_summary(const CaptureBundle& b) {
  const nlohmann::json& h = b.header;
  std::string problem;
  if (h.contains("problem"))
    for (const auto& [name, value] : h["problem"].items()) problem += " " + name + "=" + value.dump();
  else
    problem = " " + h.value("variant", std::string()) + " shape " + h.value("shape", nlohmann::json::array()).dump();
  return h.value("family", std::string("?")) + " " + h.value("dtype", std::string("?")) + problem + ", captured on " +
         h.value("device", std::string("?")) + " at " + h.value("captured_at", std::string("?"));
}

}  // namespace ktune
