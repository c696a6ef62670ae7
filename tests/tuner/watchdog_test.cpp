// The tuner's watchdog for hung kernels (tuner/watchdog): a step that outlives its
// deadline runs the expiry once, with the step's description; a step that finishes in
// time, a disarmed or re-armed one, or a watchdog destroyed while armed runs none.
#include <ktune/tuner/watchdog.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace ktune {
namespace {

using namespace std::chrono_literals;

TEST(Watchdog, AStepPastItsDeadlineExpiresOnce) {
  std::vector<std::string> seen;
  Watchdog dog([&](const std::string& what) { seen.push_back(what); });
  {
    WatchdogScope scope(dog, 50ms, "config {bm=64}");
    std::this_thread::sleep_for(300ms);
  }
  ASSERT_EQ(dog.expiries(), 1);
  EXPECT_EQ(seen, std::vector<std::string>{"config {bm=64}"});
}

TEST(Watchdog, StepsThatFinishInTimeNeverExpire) {
  Watchdog dog([](const std::string&) { ADD_FAILURE() << "expired"; });
  for (int i = 0; i < 20; ++i) {
    WatchdogScope scope(dog, 200ms, "step " + std::to_string(i));
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(300ms);  // past every deadline, all disarmed
  EXPECT_EQ(dog.expiries(), 0);
}

TEST(Watchdog, ReArmingMovesTheDeadline) {
  std::vector<std::string> seen;
  Watchdog dog([&](const std::string& what) { seen.push_back(what); });
  dog.arm(100ms, "first");
  std::this_thread::sleep_for(50ms);
  dog.arm(400ms, "second");  // the first deadline passes while the second is armed
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(dog.expiries(), 0);
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(seen, std::vector<std::string>{"second"});
  dog.disarm();
}

TEST(Watchdog, ZeroArmsNothingAndDestroyingWhileArmedRunsNothing) {
  int runs = 0;
  {
    Watchdog dog([&](const std::string&) { ++runs; });
    dog.arm(0s, "off");
    std::this_thread::sleep_for(50ms);
    dog.arm(10s, "armed at destruction");
  }
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace ktune
