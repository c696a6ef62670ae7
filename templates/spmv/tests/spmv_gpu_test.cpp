// The spmv family on the device: every config verified (fresh random values and x,
// poisoned y, exact references; beta 0 must not read y) on matrices of every spread
// class at sizes that are not multiples of anything, with empty rows and an empty matrix.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/runtime/device.hpp>
#include <spmv/spmv_harness.hpp>

namespace ktune {
namespace {

std::size_t verify_all(DType dtype, const std::vector<SparseShape>& shapes) {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = spmv_spec();
  const std::string type = spmv_type_argument(dtype);
  const Problem widest = spmv_tuning_problem({100000, 100000, 1000000, 100000, 4}, dtype).problem;
  const auto configs = enumerate(spec, dev.limits, widest);
  std::vector<std::string> names;
  for (const auto& c : configs) names.push_back(instantiate(spec, c, dev.limits, widest, type).name_expression);
  const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, spec.family());
  std::size_t verified = 0;
  for (const SparseShape& s : shapes) {
    CsrMatrix m = synthetic_csr(s, dtype, 0x5eed + static_cast<std::uint64_t>(s.rows));
    if (s.rows > 2) {  // row 1 emptied
      const std::int32_t len = m.offsets[2] - m.offsets[1];
      m.indices.erase(m.indices.begin() + m.offsets[1], m.indices.begin() + m.offsets[2]);
      for (std::size_t r = 2; r < m.offsets.size(); ++r) m.offsets[r] -= len;
    }
    SpmvHarness h(dev, m, TimingProtocol{});
    std::size_t failed = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (!loaded.functions[i] || why_invalid(spec, configs[i], dev.limits, h.problem())) continue;
      const Instance inst = instantiate(spec, configs[i], dev.limits, h.problem(), type);
      if (const auto wrong = h.verify(loaded.functions[i], inst))
        if (++failed <= 3) ADD_FAILURE() << h.describe() << " " << config_to_string(spec, configs[i]) << ": " << *wrong;
      ++verified;
    }
    EXPECT_EQ(failed, 0u) << h.describe();
  }
  return verified;
}

TEST(SpmvGpu, EveryConfigF32AtEverySpread) {
  KTUNE_REQUIRE_GPU();
  EXPECT_GT(verify_all(DType::f32, {{1, 1, 1, 1, 1},
                                    {7, 5, 0, 0, 1},
                                    {1001, 999, 7007, 0, 1},
                                    {3001, 2999, 50000, 600, 2},
                                    {10007, 10009, 100000, 3000, 3},
                                    {20011, 20011, 320000, 20000, 4}}),
            300u);
}

TEST(SpmvGpu, EveryConfigOfTheOtherTypes) {
  KTUNE_REQUIRE_GPU();
  std::size_t verified = 0;
  for (DType d : {DType::f64, DType::f16, DType::bf16})
    verified += verify_all(d, {{999, 1001, 9000, 0, 1}, {5003, 4001, 60000, 2000, 4}});
  EXPECT_GT(verified, 300u);
}

}  // namespace
}  // namespace ktune
