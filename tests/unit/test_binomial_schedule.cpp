// Binomial checkpointing (storage/binomial_schedule.hpp) against independent references: the closed form
// p(l, s) = t l - beta(s + 1, t - 1) of Griewank and Walther 2000 against the minimum over all recursive
// splits computed by dynamic programming, and the schedule, replayed action by action, against both.
#include "flexadj/storage/binomial_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace flexadj::storage {
namespace {

// The least number of forward steps reversing l states with s slots, by exhaustive recursion over the position
// of the next checkpoint: P(1, s) = 0, P(l, 1) = l (l - 1) / 2 (from x_0 every time),
// P(l, s) = min over 1 <= m < l of m + P(l - m, s - 1) + P(m, s).
std::vector<std::vector<std::uint64_t>> brute_force_table(std::uint64_t max_states, std::uint64_t max_slots) {
  std::vector<std::vector<std::uint64_t>> P(max_states + 1, std::vector<std::uint64_t>(max_slots + 1, 0));
  for (std::uint64_t l = 1; l <= max_states; ++l) P[l][1] = l * (l - 1) / 2;
  for (std::uint64_t s = 2; s <= max_slots; ++s)
    for (std::uint64_t l = 2; l <= max_states; ++l) {
      std::uint64_t best = UINT64_MAX;
      for (std::uint64_t m = 1; m < l; ++m) best = std::min(best, m + P[l - m][s - 1] + P[m][s]);
      P[l][s] = best;
    }
  return P;
}

TEST(BinomialSchedule, ClosedFormEqualsTheMinimumOverAllSchedules) {
  const auto P = brute_force_table(120, 7);
  for (std::uint64_t s = 1; s <= 7; ++s)
    for (std::uint64_t l = 1; l <= 120; ++l) ASSERT_EQ(optimal_forward_steps(l, s), P[l][s]) << "l " << l << " s " << s;
}

TEST(BinomialSchedule, ReachIsTheBinomialCoefficient) {
  EXPECT_EQ(binomial_reach(3, 2), 10u);  // C(5, 2)
  EXPECT_EQ(binomial_reach(10, 10), 184756u);
  EXPECT_EQ(binomial_reach(1, 7), 8u);
  EXPECT_EQ(repetition_number(10, 3), 2u);
  EXPECT_EQ(repetition_number(11, 3), 3u);
  EXPECT_EQ(binomial_reach(2000, 2000), UINT64_MAX);  // saturates instead of overflowing
}

// Replays a schedule: every reversed state is the one the last advance produced or a stored one, the stack never
// holds more than s checkpoints, the states are reversed N, N - 1, ..., 0, and the counts add up.
void expect_valid(const BinomialSchedule& schedule) {
  using Kind = ScheduleAction::Kind;
  std::vector<std::uint64_t> stack, disk;
  std::uint64_t at = 0, expected_reverse = schedule.steps, recomputed = 0;
  bool forward_run = true;
  for (const auto& a : schedule.actions) {
    switch (a.kind) {
      case Kind::Store:
        ASSERT_EQ(a.from, at);
        stack.push_back(at);
        ASSERT_LE(stack.size(), schedule.slots);
        break;
      case Kind::Advance:
        ASSERT_EQ(a.from, at);
        ASSERT_GT(a.to, a.from);
        if (!forward_run) recomputed += a.to - a.from;
        at = a.to;
        break;
      case Kind::Restore:
        while (!stack.empty() && stack.back() > a.from) stack.pop_back();
        ASSERT_FALSE(stack.empty());
        ASSERT_EQ(stack.back(), a.from);
        at = a.from;
        break;
      case Kind::DiskStore:
        ASSERT_TRUE(forward_run);
        ASSERT_EQ(a.from, at);
        disk.push_back(at);
        break;
      case Kind::DiskRead:  // only when no memory checkpoint lies at or below the step
        ASSERT_NE(std::find(disk.begin(), disk.end(), a.from), disk.end());
        while (!stack.empty() && stack.back() > a.from) stack.pop_back();
        ASSERT_TRUE(stack.empty());
        stack.push_back(a.from);
        break;
      case Kind::Reverse:
        forward_run = false;
        ASSERT_EQ(a.from, expected_reverse);
        ASSERT_EQ(at, a.from);
        --expected_reverse;
        break;
    }
  }
  EXPECT_EQ(expected_reverse, UINT64_MAX);  // 0 reversed last
  EXPECT_EQ(recomputed, schedule.recomputed_steps);
}

TEST(BinomialSchedule, RecomputesExactlyTheOptimum) {
  // (N steps, s slots), including s = 1 (from x_0 every time), s >= N + 1 (every state stored), s = N.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> cases = {
      {1, 1},  {2, 1},  {10, 1},  {10, 2},   {10, 3},   {10, 10},  {10, 11},  {10, 50},   {57, 4},
      {100, 5}, {100, 10}, {300, 3}, {1000, 7}, {1000, 32}, {2000, 5}, {4000, 3}, {10000, 100}};
  for (const auto& [steps, slots] : cases) {
    const BinomialSchedule schedule = binomial_schedule(steps, slots);
    expect_valid(schedule);
    EXPECT_EQ(schedule.recomputed_steps, optimal_forward_steps(steps + 1, slots) - steps)
        << steps << " steps, " << slots << " slots";
  }
  EXPECT_EQ(binomial_schedule(10, 11).recomputed_steps, 0u);      // every state stored
  EXPECT_EQ(binomial_schedule(10, 1).recomputed_steps, 10u * 9 / 2);  // x_0 only: 9 + 8 + ... + 1
  // Griewank and Walther's example figures: 10 states (9 steps) with 3 slots take p(10, 3) = 15 steps, 6 recomputed.
  EXPECT_EQ(optimal_forward_steps(10, 3), 15u);
  EXPECT_EQ(binomial_schedule(9, 3).recomputed_steps, 6u);
}

// Two levels: a disk checkpoint every m steps, s memory slots. The count of recomputed steps equals the closed form
// K p(m, s) + p(l, s) - (l - 1), checked here against the brute-force table P instead of the closed form p.
TEST(BinomialSchedule, TwoLevelRecomputesTheClosedForm) {
  const auto P = brute_force_table(120, 7);
  struct Case {
    std::uint64_t steps, slots, interval;
  };
  const std::vector<Case> cases = {{10, 3, 4}, {10, 3, 5}, {10, 3, 10}, {10, 3, 11}, {10, 1, 3}, {1, 1, 1},
                                   {100, 4, 7}, {100, 7, 100}, {119, 2, 20}, {120, 5, 12}, {57, 6, 6}};
  for (const auto& c : cases) {
    const BinomialSchedule schedule = binomial_schedule(c.steps, c.slots, c.interval);
    expect_valid(schedule);
    const std::uint64_t intervals = c.steps / c.interval, last = c.steps - intervals * c.interval + 1;
    const std::uint64_t expected = intervals * P[c.interval][c.slots] + P[last][c.slots] - (last - 1);
    EXPECT_EQ(schedule.recomputed_steps, expected) << c.steps << " steps, " << c.slots << " slots, m " << c.interval;
    EXPECT_EQ(two_level_recomputed_steps(c.steps, c.slots, c.interval), expected);
    EXPECT_EQ(schedule.disk_writes, intervals + 1);
    EXPECT_EQ(schedule.disk_reads, intervals);
  }
  // m = s: every step of the sweep recomputed once, whatever N: K (m - 1) + (l - 1) ... = N - K.
  EXPECT_EQ(binomial_schedule(1000, 10, 10).recomputed_steps, 1000u - 100u);
  // A disk interval longer than the run: one interval, the memory-only schedule (plus a disk copy of x_0).
  EXPECT_EQ(binomial_schedule(100, 5, 500).recomputed_steps, binomial_schedule(100, 5).recomputed_steps);
}

// The counts from the closed forms (the header of flexadj gradient, long schedules) equal the built schedule's.
TEST(BinomialSchedule, CountsEqualTheBuiltSchedule) {
  for (std::uint64_t steps : {1u, 2u, 7u, 50u, 333u, 1000u})
    for (std::uint64_t slots : {1u, 2u, 3u, 7u})
      for (std::uint64_t interval : {0u, 1u, 5u, 64u, 2000u}) {
        const BinomialSchedule built = binomial_schedule(steps, slots, interval);
        const BinomialSchedule counted = schedule_counts(steps, slots, interval);
        EXPECT_EQ(counted.recomputed_steps, built.recomputed_steps) << steps << " " << slots << " " << interval;
        EXPECT_EQ(counted.restores, built.restores) << steps << " " << slots << " " << interval;
        EXPECT_EQ(counted.disk_writes, built.disk_writes) << steps << " " << slots << " " << interval;
        EXPECT_EQ(counted.disk_reads, built.disk_reads) << steps << " " << slots << " " << interval;
        EXPECT_FALSE(counted.listed);
      }
  // 10^6 steps with one or two slots: at once (the repetition number by bisection), and a warning.
  const BinomialSchedule two = plan_schedule(1000000, 2, 0, true);
  EXPECT_FALSE(two.listed);
  EXPECT_EQ(two.recomputed_steps, optimal_forward_steps(1000001, 2) - 1000000);
  EXPECT_NE(two.recomputation_warning().find("940810658 steps"), std::string::npos);
  EXPECT_EQ(schedule_counts(1000000, 1).recomputed_steps, 1000000ull * 999999ull / 2);
  EXPECT_TRUE(plan_schedule(1000, 10, 0, true).listed);
  EXPECT_EQ(plan_schedule(1000, 10, 0, true).recomputation_warning(), "");
}

TEST(BinomialSchedule, SplitIsInsideTheSegment) {
  for (std::uint64_t l = 2; l < 200; ++l)
    for (std::uint64_t s = 2; s < 6; ++s) {
      const std::uint64_t m = optimal_split(l, s);
      ASSERT_GE(m, 1u);
      ASSERT_LE(m, l - 1);
      EXPECT_EQ(m + optimal_forward_steps(l - m, s - 1) + optimal_forward_steps(m, s), optimal_forward_steps(l, s));
    }
  EXPECT_THROW(optimal_split(1, 3), std::invalid_argument);
  EXPECT_THROW(binomial_schedule(10, 0), std::invalid_argument);
}

}  // namespace
}  // namespace flexadj::storage
