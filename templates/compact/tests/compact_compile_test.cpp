// Compiles the compact family with NVRTC for sm_90: needs no GPU. A pairwise covering
// sample of its dtypes' spaces; KTUNE_COMPILE_SWEEP=1 compiles every config.
#include <compact/compact_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(CompactCompile, EveryDtypeCompilesForSm90) {
  const KernelSpec& spec = compact_spec();
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16, DType::u8}) {
    const std::string dtype(to_string(d));
    spaces.push_back({"compact " + dtype, &spec, spec.source(), {Problem{d, {{"n", 1000003}}}}, compact_type_argument(d),
                      {dtype}});
  }
  EXPECT_GE(expect_spaces_compile("compact", spaces), 7u);
}

}  // namespace
}  // namespace ktune
