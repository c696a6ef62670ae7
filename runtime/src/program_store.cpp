#include <ktune/runtime/program_store.hpp>

#include <ktune/generator/log.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

namespace ktune {
namespace {

// Entries are stored one per line.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  lines.push_back(text.substr(start));
  return lines;
}

}  // namespace

Program load_or_compile(Database* store, const std::string& source, const std::vector<std::string>& name_expressions,
                        int arch, const std::string& program_name) {
  const std::string key = store ? binary_key(source, name_expressions, arch) : std::string();
  if (store) {
    try {
      if (auto stored = store->get_binary(key)) {
        std::vector<std::string> entries = split_lines(stored->entry);
        if (entries.size() == name_expressions.size()) return {std::move(stored->bytes), std::move(entries), 0, true};
      }
    } catch (const std::exception& e) {  // a damaged store costs a compile
      logger("ktune.runtime")->warn("stored program unreadable ({}); compiling", e.what());
    }
  }
  CompileOutput out = compile_cubin(source, name_expressions, arch, program_name);
  if (store) {
    std::string entries;
    for (const auto& l : out.lowered_names) entries += (entries.empty() ? "" : "\n") + l;
    try {
      store->put_binary(key, {out.cubin, entries});
    } catch (const std::exception& e) {  // read-only, full disk: a recompile next time
      logger("ktune.runtime")->warn("could not store the compiled program: {}", e.what());
    }
  }
  return {std::move(out.cubin), std::move(out.lowered_names), out.milliseconds, false};
}

}  // namespace ktune
