// Compiles the scan family with NVRTC for sm_90: needs no GPU. A pairwise covering
// sample of its (op, dtype, exclusive) spaces together; KTUNE_COMPILE_SWEEP=1 compiles
// every config (the sweep label).
#include <scan/scan_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(ScanCompile, EveryOpAndDtypeCompilesForSm90) {
  const KernelSpec& spec = scan_spec();
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16})
    for (ScanOp op : {ScanOp::sum, ScanOp::max, ScanOp::min}) {
      const Problem p{d, {{"n", 1000003}, {"align", std::min<std::int64_t>(4, 16 / size_of(d))}}};
      const std::string dtype(to_string(d)), name(to_string(op));
      spaces.push_back({"scan " + name + " " + dtype, &spec, spec.source(), {p}, scan_type_argument(op, d), {name, dtype}});
    }
  EXPECT_GE(expect_spaces_compile("scan", spaces), 18u);
}

}  // namespace
}  // namespace ktune
