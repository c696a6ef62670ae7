#pragma once
#include <ktune/dtype.hpp>
#include <ktune/generator/expr.hpp>

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Tunable {
  std::string name;
  std::vector<Value> values;
  // `// @runtime <name>`: the kernel reads the value from its launch, so it is no
  // template argument and configs that differ only in it share one compiled kernel.
  bool runtime = false;
};

struct Derived {
  std::string name;
  Expr expr;
  int line = 0;  // of its `// @derive` line
};

// What one description may declare: the space's walk recurses once per tunable, and
// every config evaluates every requirement and derived value.
constexpr std::size_t k_max_tunables = 64, k_max_tunable_values = 4096, k_max_derived = 256,
                      k_max_requirements = 1024;

// The one description of a kernel family, parsed from the `// @...` header block of
// its template (see templates/transpose/transpose.cuh). Generator, tuner, runtime, cache keys,
// CLI and logs all read tunable names from here.
class KernelSpec {
 public:
  // Throws ktune::Error naming the line on malformed descriptions.
  static KernelSpec parse(std::string_view source);
  // The embedded template of a family; throws ktune::Error listing the known ones.
  static const KernelSpec& builtin(std::string_view family);
  // Every `// @` directive parse() reads (problem, arg, verify and work: a user's kernel's).
  static const std::vector<std::string>& directive_names();
  static std::vector<std::string> builtin_families();
  // A template fragment (a file of templates/ without `// @kernel`, what `// @include
  // NAME` pulls in), e.g. "expr_math": the expression language's device functions for
  // code generated outside a template. Throws InvalidArgument for an unknown name.
  static std::string_view fragment(std::string_view name);

  const std::string& family() const { return family_; }
  const std::string& entry() const { return entry_; }
  // Empty when the entry has no type parameter (a user's kernel may have none).
  const std::string& type_parameter() const { return type_param_; }
  // "element" (instantiated with the dtype's bits type), "operation" (a generated
  // type) or "dtype" (one of type_choices(), named by the caller: a user's kernel).
  const std::string& type_kind() const { return type_kind_; }
  const std::vector<DType>& type_choices() const { return type_choices_; }
  // `// @problem`, `// @arg`, `// @verify` and `// @work` lines: a user's kernel's declaration,
  // which tuner/user_kernel reads.
  struct Directive {
    int line;
    std::string key, text;
  };
  const std::vector<Directive>& directives() const { return directives_; }
  const std::vector<Tunable>& tunables() const { return tunables_; }
  const std::vector<Derived>& derived() const { return derived_; }
  const std::vector<Expr>& requirements() const { return requires_; }
  const std::array<Expr, 3>& block() const { return block_; }
  const std::array<Expr, 3>& grid() const { return grid_; }
  // Dynamic shared memory bytes per block (`// @launch smem = ...`, default 0).
  const Expr& smem() const { return smem_; }
  const std::string& source() const { return source_; }
  // Identity of the template text: a stored result tuned on another text is stale.
  const std::string& source_hash() const { return source_hash_; }
  // The template hashes whose records are current: this text's, and those a
  // `// @compatible CODE: HASH, ...` line names (earlier texts of the same code).
  std::vector<std::string> current_hashes() const;
  bool is_current(std::string_view template_hash) const;
  // Hash of the code alone: the text without line comments and blank lines (the
  // `// @` lines kept, `// @compatible` and `// @default` lines aside).
  static std::string code_hash(std::string_view source);
  // Index of a tunable by name, or -1.
  int tunable_index(std::string_view name) const;
  // Names of the entry kernel's template parameters, in declaration order (the type
  // parameter, then every tunable that is not `runtime`).
  std::vector<std::string> template_parameters() const;
  // Product of the value counts: the space before constraints.
  std::size_t cartesian_size() const;
  // Every name the @derive, @require and @launch expressions use must be a tunable, a
  // value derived above or one of `outside` (problem variables, device limits, ...);
  // throws InvalidArgument naming the first line that uses another, and the known names.
  void check_names(const std::vector<std::string>& outside) const;

 private:
  // parse()'s steps; `fail` throws InvalidArgument naming the line.
  using Fail = std::function<void(const std::string&)>;
  struct Launches {
    bool block = false, grid = false;
  };
  void read_directive(const std::string& key, const std::string& rest, int line_no, const Fail& fail, Launches& seen);
  void read_declaration(const std::string& key, const std::string& rest, int line_no, const Fail& fail);  // type, tune, derive
  void read_launch(const std::string& rest, int line_no, const Fail& fail, Launches& seen);
  void read_compatible(const std::string& rest, const Fail& fail);
  void check_complete(const Launches& seen) const;
  void check_evaluation_cost() const;

  std::string family_, entry_, type_param_, type_kind_, source_, source_hash_;
  std::vector<Tunable> tunables_;
  std::vector<DType> type_choices_;
  std::vector<Directive> directives_;
  std::vector<std::string> compatible_;
  std::vector<Derived> derived_;
  std::vector<Expr> requires_;
  std::vector<int> require_lines_;
  std::array<Expr, 3> block_, grid_;
  Expr smem_ = Expr::parse("0");
  int block_line_ = 0, grid_line_ = 0, smem_line_ = 0;
};

}  // namespace ktune
