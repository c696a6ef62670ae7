// libFuzzer target: arbitrary bytes as a kernel description (the `// @` lines of a
// built-in template or a user's kernel), as one expression, as a tolerance and as an
// elementwise expression (`out = a * b + c`, with a scalar named alpha). Parsing and evaluating
// either works or throws ktune::Error; nothing crashes, hangs, overflows the stack or
// allocates more than the input justifies.
#include <ktune/error.hpp>
#include <ktune/generator/elementwise_expr.hpp>
#include <ktune/generator/expr.hpp>
#include <ktune/generator/kernel_spec.hpp>
#include <ktune/generator/space.hpp>
#include <ktune/generator/user_kernel.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace ktune;

// Every expression of a parsed description, at the config of each tunable's first
// value, on a small problem; and the space itself when it is small.
void evaluate(const KernelSpec& spec) {
  Problem problem;
  problem.dtype = DType::f32;
  for (const char* name : {"n", "m", "k", "rows", "cols", "align", "nx", "ny"}) problem.sizes.emplace_back(name, 7);
  Config config;
  for (const auto& t : spec.tunables()) config.push_back(t.values.front());
  const DeviceLimits device;
  try {
    (void)why_invalid(spec, config, device, problem);
    (void)instantiate(spec, config, device, problem);
  } catch (const Error&) {
  }
  if (spec.cartesian_size() <= 4096) {
    try {
      (void)enumerate(spec, device, problem);
    } catch (const Error&) {
    }
  }
}

void user_kernel(const std::string& text) {
  const auto k = parse_user_kernel(text, "fuzz.cu");
  std::vector<std::string> assignments;
  for (const auto& v : k->variables) assignments.push_back(v + "=7");
  const UserProblem p = bind_user_problem(*k, assignments);
  (void)arg_values(*k, p);
  (void)tolerance_bounds(*k, p);
  (void)work_of(*k, p);
  evaluate(k->spec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    evaluate(KernelSpec::parse(text));
  } catch (const Error&) {
  }
  try {
    user_kernel(text);
  } catch (const Error&) {
  }
  try {  // as a tolerance, with two variables
    (void)evaluate(Tolerance::parse(text), {{"n", 7.0}, {"k", 0.0}});
  } catch (const Error&) {
  }
  for (const std::vector<std::string>& declared : {std::vector<std::string>{"alpha"}, std::vector<std::string>{}}) {
    try {  // printed and evaluated on zeros and ones; differentiated, each backward line parsed
      const ElementwiseExpr e = ElementwiseExpr::parse(text, declared);
      (void)e.normalized();
      (void)e.cuda_body();
      const std::vector<double> in(e.inputs().size(), 1.0), scalars(e.scalars().size(), 0.0);
      std::vector<double> out(e.outputs().size());
      e.eval(in.data(), scalars.data(), out.data());
      const ElementwiseExpr::Gradient g = e.gradient();
      std::size_t start = 0;
      while (start < g.text.size()) {
        const std::size_t end = std::min(g.text.find('\n', start), g.text.size());
        (void)ElementwiseExpr::parse(g.text.substr(start, end - start), g.scalars).cuda_body();
        start = end + 1;
      }
    } catch (const Error&) {
    }
  }
  try {
    const Expr e = Expr::parse(text);
    (void)e.eval([](std::string_view) -> std::optional<Value> { return Value{std::int64_t{3}}; });
  } catch (const Error&) {
  }
  return 0;
}
