// The whole chain a call resolves through (cache/resolve.hpp), on the transpose family
// (it has a static model): the user's records that fit, the shipped winners, the model,
// far records only where no model exists, the safe default last.
#include <ktune/cache/resolve.hpp>
#include <ktune/generator/family_model.hpp>
#include <transpose/transpose_family.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string k_h200 = "NVIDIA H200|sm_90|132sm|143771MiB|60MiB";
const std::string k_h100 = "NVIDIA H100|sm_90|132sm|81559MiB|50MiB";
const DeviceLimits k_limits{};

TuningProblem problem(std::int64_t rows, std::int64_t cols) {
  return transpose_tuning_problem(transpose_probe_args(DType::f32, rows, cols));
}

// A record of `shape` whose config is the model's pick there, or `config` when given.
TuningRecord record(const std::string& device, std::int64_t rows, std::int64_t cols, const Config* config = nullptr) {
  const TuningProblem p = problem(rows, cols);
  TuningRecord r;
  r.device_key = device;
  r.device_name = device.substr(0, device.find('|'));
  r.family = p.family();
  r.variant = p.variant;
  r.dtype = p.dtype_key;
  r.shape = p.shape;
  r.align = p.align();
  r.config = config_to_json(*p.spec, config ? *config : *model_pick(*p.spec, k_limits, p.problem));
  r.template_hash = p.spec->current_hashes().front();
  r.median_us = 100;
  r.rate = 1000;
  r.tuned_at = "2026-11-28T00:00:00Z";
  return r;
}

class Resolve : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-resolve-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    db_ = std::make_unique<Database>(dir_ / "tuning.db");
  }
  void TearDown() override {
    db_.reset();
    fs::remove_all(dir_);
  }
  Resolved resolve(const TuningProblem& p, const std::vector<TuningRecord>& shipped = {}) const {
    return resolve_config(db_.get(), shipped, k_h200, p, k_limits);
  }
  fs::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(Resolve, NothingTunedIsTheModelsPick) {
  const TuningProblem p = problem(50000, 50000);
  const Resolved r = resolve(p);
  EXPECT_EQ(r.level, MatchLevel::model);
  EXPECT_FALSE(r.record);
  EXPECT_EQ(r.config, *model_pick(*p.spec, k_limits, p.problem));
  EXPECT_EQ(resolve_config(nullptr, {}, k_h200, p, k_limits).level, MatchLevel::model);  // no database at all
}

TEST_F(Resolve, AFarRecordGivesWayToTheModelANearOneIsUsed) {
  const TuningProblem p = problem(50000, 50000);
  ASSERT_TRUE(db_->put(record(k_h200, 8192, 8192)));
  EXPECT_EQ(resolve(p).level, MatchLevel::model);
  ASSERT_TRUE(db_->put(record(k_h200, 40000, 30000)));
  const Resolved near = resolve(p);
  EXPECT_EQ(near.level, MatchLevel::nearest);
  EXPECT_EQ(near.record->shape, (std::vector<std::int64_t>{40000, 30000}));
  EXPECT_TRUE(fits_call(*near.record, p.shape, p.align()));
  EXPECT_FALSE(fits_call(*near.record, {50000, 50000}, 1));       // another alignment class
  EXPECT_FALSE(fits_call(*near.record, {80001, 50000}, p.align()));  // more than twice as long
}

TEST_F(Resolve, TheUsersTuningWinsOverTheShippedWhichWinsOverTheModel) {
  const TuningProblem p = problem(8192, 4096);
  const std::vector<TuningRecord> shipped{record(k_h200, 8192, 4096), record(k_h200, 1000, 1000)};
  EXPECT_EQ(resolve(p, shipped).level, MatchLevel::shipped);
  EXPECT_EQ(resolve(p, shipped).record->shape, p.shape);
  ASSERT_TRUE(db_->put(record(k_h200, 8000, 4000)));  // the user's nearest, fitting: wins
  EXPECT_EQ(resolve(p, shipped).level, MatchLevel::nearest);
  ASSERT_TRUE(db_->put(record(k_h200, 8192, 4096)));
  EXPECT_EQ(resolve(p, shipped).level, MatchLevel::exact);
  // A shipped winner far from the call is not used: the model knows better.
  EXPECT_EQ(resolve(problem(100, 30000), {shipped[1]}).level, MatchLevel::model);
}

TEST_F(Resolve, ShippedForAnotherModelOfTheSameArchitecture) {
  const TuningProblem p = problem(8192, 4096);
  EXPECT_EQ(resolve(p, {record(k_h100, 8192, 4096)}).level, MatchLevel::shipped);
  EXPECT_EQ(resolve(p, {record("NVIDIA A100|sm_80|108sm|81000MiB|40MiB", 8192, 4096)}).level, MatchLevel::model);
}

TEST_F(Resolve, ShippedConfigsInvalidHereOrOfAnotherTemplateAreSkipped) {
  const TuningProblem odd = transpose_tuning_problem(transpose_probe_args(DType::f32, 8192, 4096, 4097, 8193));
  ASSERT_EQ(odd.align(), 1);
  TuningRecord wide = record(k_h200, 8192, 4096);  // vector-4 accesses: invalid for odd pitches
  wide.align = 1;
  ASSERT_GT(wide.config["vec"].get<int>(), 1);
  EXPECT_EQ(resolve(odd, {wide}).level, MatchLevel::model);
  TuningRecord stale = record(k_h200, 8192, 4096);
  stale.template_hash = "an older template";
  EXPECT_EQ(resolve(problem(8192, 4096), {stale}).level, MatchLevel::model);
  TuningRecord renamed = record(k_h200, 8192, 4096);
  renamed.config = {{"no_such_tunable", 1}};
  EXPECT_EQ(resolve(problem(8192, 4096), {renamed}).level, MatchLevel::model);
}

// Without a model (a user's kernel), a far record still beats the safe default.
TEST_F(Resolve, WithoutAModelFarRecordsThenTheDefault) {
  TuningProblem p = problem(50000, 50000);
  const KernelSpec copy = KernelSpec::parse(p.spec->source());  // the same template, not the built-in
  p.spec = &copy;
  ASSERT_EQ(find_model(copy), nullptr);
  EXPECT_EQ(resolve(p).level, MatchLevel::fallback);
  EXPECT_EQ(resolve(p).config, p.default_config);
  ASSERT_TRUE(db_->put(record(k_h200, 8192, 8192)));
  EXPECT_EQ(resolve(p).level, MatchLevel::nearest);
}

}  // namespace
}  // namespace ktune
