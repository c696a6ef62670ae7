// Every config of every element size, verified on the device at odd shapes, pitched
// and unpitched: exact match against the CPU reference, fresh random data, poisoned
// output (so unwritten elements and writes into the pitch padding both fail).
#include "gpu_test_support.hpp"

#include <transpose/transpose_family.hpp>
#include <ktune/runtime/device.hpp>
#include <transpose/transpose_launch.hpp>
#include <ktune/tuner/verifier.hpp>

#include <algorithm>
#include <cstring>
#include <map>

namespace ktune {
namespace {

struct Case {
  std::int64_t rows, cols, ld_src, ld_dst;
};

// Odd shapes (alignment 1, vec 1 only), pitched ones, and shapes whose alignment allows
// every vector width but whose sizes are not multiples of any tile (edge paths with vec).
const std::vector<Case> k_cases = {
    {1, 1, 1, 1},         {3, 5, 5, 3},         {33, 65, 65, 33},     {1000, 1, 1, 1000},
    {1, 1000, 1000, 1},   {4097, 8191, 8191, 4097}, {33, 65, 70, 37}, {1008, 1040, 1040, 1008},
    {48, 80, 96, 64},     {16, 16, 16, 16},     {129, 1021, 1021, 129}, {300, 700, 703, 301},
    {100003, 1, 1, 100003}, {1, 70001, 70001, 1}, {7, 1, 3, 7},       {1, 9, 9, 2},
    {520, 1000, 1000, 520},  // 8-byte pitches for u8 (words = 1 without 16-byte ones)
    {68, 1100, 1104, 80},    // 16-byte pitches, src rows 16 times longer (tiles in dst order)
};

TEST(TransposeGpu, EveryConfigEveryElementSizeOddShapes) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  std::size_t runs = 0, degenerate = 0;
  for (DType dtype : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    const std::int64_t elem = size_of(dtype);
    // The widest alignment class (square, and with src rows 16 times longer than its
    // columns, where aligned tiles in dst order exist) holds every config but the
    // realigned ones, which exist only below it, and the copies, which exist only for
    // degenerate shapes; each case filters the union by its own class.
    const std::vector<Problem> classes{
        {dtype, {{"rows", 4096}, {"cols", 4096}, {"align", 16 / elem}, {"copy_align", 0}}},
        {dtype, {{"rows", 256}, {"cols", 4096}, {"align", 16 / elem}, {"copy_align", 0}}},
        {dtype, {{"rows", 4096}, {"cols", 4096}, {"align", 1}, {"copy_align", 0}}},
        {dtype, {{"rows", 1}, {"cols", 4096}, {"align", 1}, {"copy_align", 16 / elem}}}};
    std::vector<Config> configs;
    std::vector<std::string> names;
    for (const Problem& p : classes)
      for (const auto& c : enumerate(spec, dev.limits, p))
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) {
          configs.push_back(c);
          names.push_back(instantiate(spec, c, dev.limits, p).name_expression);
        }
    const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, "transpose");
    const auto& functions = loaded.functions;
    for (std::size_t i = 0; i < configs.size(); ++i)
      for (const Problem& p : classes)
        if (functions[i] && !why_invalid(spec, configs[i], dev.limits, p)) {
          prepare_function(functions[i], instantiate(spec, configs[i], dev.limits, p));
          break;
        }
    for (const Case& tc : k_cases) {
      const std::size_t src_bytes = static_cast<std::size_t>(tc.rows * tc.ld_src * elem);
      const std::size_t dst_bytes = static_cast<std::size_t>(tc.cols * tc.ld_dst * elem);
      DeviceBuffer src(round16(src_bytes)), dst(round16(dst_bytes)), ref(round16(dst_bytes));
      std::vector<unsigned char> host(src_bytes), expect(round16(dst_bytes), 0xA5);
      fill_random(host, 0x1234 + runs);
      const TransposeArgs args{dtype, tc.rows, tc.cols, tc.ld_dst, tc.ld_src, dst.get(), src.get()};
      transpose_reference(host.data(), expect.data(), args);
      std::memset(expect.data() + dst_bytes, 0, expect.size() - dst_bytes);
      const auto& d = driver::api();
      driver::check(d.cuMemcpyHtoD(src.get(), host.data(), host.size()), "cuMemcpyHtoD");
      driver::check(d.cuMemcpyHtoD(ref.get(), expect.data(), expect.size()), "cuMemcpyHtoD");
      driver::check(d.cuMemsetD8(dst.get(), 0, dst.size()), "cuMemsetD8");
      Verifier verifier(dev, nullptr, dst.get(), ref.get(), dst_bytes);
      const Problem problem = transpose_problem(args);
      std::size_t tested = 0, failed = 0;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        if (!functions[i] || why_invalid(spec, configs[i], dev.limits, problem)) continue;  // compile failure reported
        const Instance inst = instantiate(spec, configs[i], dev.limits, problem);
        verifier.poison();
        launch_transpose(functions[i], inst, args, nullptr);
        const auto bad = verifier.mismatches();
        ++tested;
        if (bad && ++failed <= 5)
          ADD_FAILURE() << to_string(dtype) << " " << tc.rows << "x" << tc.cols << " ld " << tc.ld_src << "/"
                        << tc.ld_dst << " " << inst.name_expression << ": " << bad << " chunks differ";
      }
      EXPECT_EQ(failed, 0u) << to_string(dtype) << " " << tc.rows << "x" << tc.cols;
      EXPECT_GT(tested, 100u) << "too few configs valid for " << tc.rows << "x" << tc.cols;
      if (transpose_copy_alignment(args) > 0) ++degenerate;
      runs += tested;
    }
  }
  EXPECT_EQ(degenerate, 4u * 5u) << "cases that are plain copies (copy = 1 configs valid)";
  std::printf("verified %zu (config, dtype, shape) runs\n", runs);
}

}  // namespace
}  // namespace ktune
