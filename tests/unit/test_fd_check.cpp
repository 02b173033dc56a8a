// The comparison of tests/support/fd_check.hpp can fail: a sign-flipped or zero derivative, a difference below its
// noise floor, one wrong entry of a Jacobian; and it accepts a derivative off by no more than the floor.
#include <gtest/gtest.h>

#include <cmath>

#include "fd_check.hpp"

namespace flexadj::testing {
namespace {

// f(x) = J0 + 1e-7 sin(x) with |f| = J0 = 1: derivative 1e-7 cos(x), below the old absolute floor of 1e-6.
TEST(FdCheck, SmallDerivativesAreComparedRelatively) {
  const double x = 0.3, h = 1e-3, J0 = 1.0;
  auto f = [&](double y) { return J0 + 1e-7 * std::sin(y); };
  const double D = (f(x + h) - f(x - h)) / (2 * h), d = 1e-7 * std::cos(x);
  // Noise floor 1e-13 / 1e-3 = 1e-10, |D| = 9.6e-8: resolved; the truncation (h^2/6 |f'''| = 1.6e-14) is in rel_tol.
  EXPECT_TRUE(matches_central_difference("exact", d, D, h, J0));
  EXPECT_FALSE(matches_central_difference("sign flipped", -d, D, h, J0));
  EXPECT_FALSE(matches_central_difference("zero", 0.0, D, h, J0));
  EXPECT_FALSE(matches_central_difference("1 % off", 1.01 * d, D, h, J0));
  // Off by less than the noise floor (1e-10): accepted.
  EXPECT_TRUE(matches_central_difference("within the floor", d + 5e-11, D, h, J0));
}

TEST(FdCheck, ADifferenceBelowTheNoiseFloorFails) {
  // |D| = 1e-9 with noise 1e-13 * 1 / 1e-4 = 1e-9: not resolved, whatever the derivative.
  const auto result = matches_central_difference("unresolved", 1e-9, 1e-9, 1e-4, 1.0);
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("below the noise floor"), std::string::npos) << result.message();
  // Resolved at 10.5 x the floor.
  EXPECT_TRUE(matches_central_difference("resolved", 1.05e-8, 1.05e-8, 1e-4, 1.0));
}

TEST(FdCheck, OneWrongJacobianEntryFails) {
  // 2 x 2: entries 1e3 and 1e-4 and a structural zero; |f| = 1, step 1e-6, round-off 1e-14: floor 1e-8.
  const std::vector<double> D{1e3, 1e-4, 0.0, -2.0};
  std::vector<double> d = D;
  EXPECT_TRUE(jacobian_matches_central_differences("exact", d, D, 2, 1e-6, 1.0));
  d[1] = -1e-4;  // below 1e-6 of the largest entry: an entrywise error the old max-entry scale let through
  EXPECT_FALSE(jacobian_matches_central_differences("sign of a small entry", d, D, 2, 1e-6, 1.0));
  d = D;
  d[2] = 1e-6;  // a structural zero that is not zero, 100 x the floor
  EXPECT_FALSE(jacobian_matches_central_differences("structural zero", d, D, 2, 1e-6, 1.0));
  // Nothing resolved: the floor above every entry.
  EXPECT_FALSE(jacobian_matches_central_differences("unresolved", D, D, 2, 1e-6, 1e12));
}

}  // namespace
}  // namespace flexadj::testing
