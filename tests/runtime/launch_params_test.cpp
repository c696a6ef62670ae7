// The check that ties a launch's KernelParams to a kernel's declaration: it accepts a
// matching list and names the parameter of a wrong one.
#include <ktune/runtime/launch.hpp>

#include "launch_params.hpp"

#include <gtest/gtest.h>

namespace ktune {
namespace {

constexpr const char* k_source = R"(
template <class T, int tile>
__global__ void __launch_bounds__(tile * 4)
    sample(const T* __restrict__ in, T* out, int n, long long ld, typename T::acc alpha,
           const __grid_constant__ my_map map, unsigned long long* count) {}
__global__ void other(float x) {}
)";

TEST(LaunchParams, KindsOfTheCppTypes) {
  EXPECT_EQ((KernelParams<DevicePtr, int, long long, float, double, unsigned, unsigned long long, CUtensorMap>::kinds()),
            (std::vector<std::string>{"pointer", "int", "long long", "float", "double", "unsigned", "unsigned long long",
                                      "struct"}));
}

TEST(LaunchParams, ReadsTheDeclaration) {
  EXPECT_EQ(declared_params(k_source, "sample"),
            (std::vector<std::string>{"pointer", "pointer", "int", "long long", "dependent", "struct", "pointer"}));
  EXPECT_EQ(declared_params(k_source, "other"), (std::vector<std::string>{"float"}));
  EXPECT_TRUE(declared_params(k_source, "missing").empty());
}

TEST(LaunchParams, MatchesAndMismatches) {
  using Right = KernelParams<DevicePtr, DevicePtr, int, long long, float, CUtensorMap, DevicePtr>;
  EXPECT_TRUE(params_match(k_source, "sample", Right::kinds()));
  using WrongType = KernelParams<DevicePtr, DevicePtr, long long, long long, float, CUtensorMap, DevicePtr>;
  const auto wrong = params_match(k_source, "sample", WrongType::kinds());
  EXPECT_FALSE(wrong);
  EXPECT_NE(std::string(wrong.message()).find("parameter 3 is int"), std::string::npos) << wrong.message();
  using Short = KernelParams<DevicePtr, DevicePtr, int>;
  EXPECT_FALSE(params_match(k_source, "sample", Short::kinds()));
  EXPECT_FALSE(params_match(k_source, "missing", Short::kinds()));
  // A launch may pass more than a kernel declares when told how many it reads.
  using Longer = KernelParams<float, int>;
  EXPECT_TRUE(params_match(k_source, "other", Longer::kinds(), 1));
}

}  // namespace
}  // namespace ktune
