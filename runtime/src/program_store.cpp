#include <ktune/runtime/program_store.hpp>

#include <ktune/generator/log.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <algorithm>

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

std::optional<Program> load_stored(Database* store, const std::string& source,
                                   const std::vector<std::string>& name_expressions, int arch) {
  if (!store) return std::nullopt;
  try {
    const std::string key = binary_key(source, name_expressions, arch);
    if (auto stored = store->get_binary(key)) {
      std::vector<std::string> entries = split_lines(stored->entry);
      if (entries.size() == name_expressions.size()) return Program{std::move(stored->bytes), std::move(entries), 0, true};
    }
    if (name_expressions.size() != 1) return std::nullopt;
    if (const auto at = store->kernel_location(key))
      if (auto stored = store->get_binary(at->binary_key)) {
        const std::vector<std::string> entries = split_lines(stored->entry);
        if (std::find(entries.begin(), entries.end(), at->entry) != entries.end())
          return Program{std::move(stored->bytes), {at->entry}, 0, true};
      }
  } catch (const std::exception& e) {  // a damaged store costs a compile
    logger("ktune.runtime")->warn("stored program unreadable ({}); compiling", e.what());
  }
  return std::nullopt;
}

void store_program(Database& store, const std::string& source, const std::vector<std::string>& name_expressions,
                   int arch, const Program& program) {
  const std::string key = binary_key(source, name_expressions, arch);
  std::string entries;
  for (const auto& l : program.entries) entries += (entries.empty() ? "" : "\n") + l;
  try {
    store.put_binary(key, {program.cubin, entries});
    if (name_expressions.size() < 2) return;
    std::vector<std::pair<std::string, std::string>> kernels;
    for (std::size_t i = 0; i < name_expressions.size(); ++i)
      kernels.emplace_back(binary_key(source, {name_expressions[i]}, arch), program.entries[i]);
    store.put_kernel_locations(key, kernels);
  } catch (const std::exception& e) {  // read-only, full disk: a recompile next time
    logger("ktune.runtime")->warn("could not store the compiled program: {}", e.what());
  }
}

Program load_or_compile(Database* store, const std::string& source, const std::vector<std::string>& name_expressions,
                        int arch, const std::string& program_name) {
  if (auto stored = load_stored(store, source, name_expressions, arch)) return std::move(*stored);
  CompileOutput out = compile_cubin(source, name_expressions, arch, program_name);
  Program program{std::move(out.cubin), std::move(out.lowered_names), out.milliseconds, false};
  if (store) store_program(*store, source, name_expressions, arch, program);
  return program;
}

}  // namespace ktune
