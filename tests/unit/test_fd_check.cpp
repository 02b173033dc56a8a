// The comparison of tests/support/fd_check.hpp can fail: a sign-flipped or zero derivative, a difference below its
// noise floor, one wrong entry of a Jacobian; and it accepts a derivative off by no more than the floor.
#include <gtest/gtest.h>

#include <cmath>

#include "fd_check.hpp"

namespace flexadj::testing {
namespace {

// f(x) = J0 + 1e-7 sin(x) with |f| = J0 = 0.01: derivative 1e-7 cos(x), below the old absolute floor of 1e-6.
TEST(FdCheck, SmallDerivativesAreComparedRelatively) {
  const double x = 0.3, h = 1e-3, J0 = 0.01;
  auto f = [&](double y) { return J0 + 1e-7 * std::sin(y); };
  const double D = (f(x + h) - f(x - h)) / (2 * h), d = 1e-7 * std::cos(x);
  // Noise floor 1e-13 * 0.01 / 1e-3 = 1e-12, |D| = 9.6e-8: resolution 9.6e4; the truncation (h^2 / 6 of |D|,
  // 1.6e-14) is in rel_tol.
  EXPECT_TRUE(matches_central_difference("exact", d, D, h, J0));
  EXPECT_FALSE(matches_central_difference("sign flipped", -d, D, h, J0));
  EXPECT_FALSE(matches_central_difference("zero", 0.0, D, h, J0));
  EXPECT_FALSE(matches_central_difference("1 % off", 1.01 * d, D, h, J0));
  // Off by less than the noise floor (1e-12): accepted.
  EXPECT_TRUE(matches_central_difference("within the floor", d + 5e-13, D, h, J0));
}

TEST(FdCheck, ADifferenceBelowTheNoiseFloorFails) {
  // |D| = 1e-9 with noise 1e-13 * 1 / 1e-4 = 1e-9: not resolved, whatever the derivative.
  const auto result = matches_central_difference("unresolved", 1e-9, 1e-9, 1e-4, 1.0);
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("below the noise floor"), std::string::npos) << result.message();
  // 1000 x the floor is not enough either: a 1e-3 error would hide in it.
  EXPECT_FALSE(matches_central_difference("1000 x the floor", 1e-6, 1e-6, 1e-4, 1.0));
  // Resolved at 1.05e4 x the floor.
  EXPECT_TRUE(matches_central_difference("resolved", 1.05e-5, 1.05e-5, 1e-4, 1.0));
}

// The resolution the check requires makes a derivative 1e-3 wrong (relative) fail at every resolution it accepts,
// from the least (just above 1e4) to the largest the suite reaches (about 1e9); an error within the floor passes.
TEST(FdCheck, AOneInAThousandErrorFailsAtEveryAcceptedResolution) {
  const double D = -2.5e-3, step = 1e-4;
  for (double resolution : {1.01e4, 3e4, 1e5, 1e6, 1e7, 1e9}) {
    const double magnitude = std::abs(D) * step / (kSimulationAccuracy * resolution);  // noise = |D| / resolution
    const std::string at = "R = " + std::to_string(resolution);
    EXPECT_TRUE(matches_central_difference(at + ", exact", D, D, step, magnitude));
    EXPECT_FALSE(matches_central_difference(at + ", 1e-3 high", D * (1 + 1e-3), D, step, magnitude));
    EXPECT_FALSE(matches_central_difference(at + ", 1e-3 low", D * (1 - 1e-3), D, step, magnitude));
    EXPECT_TRUE(matches_central_difference(at + ", 0.9 floor high", D * (1 + 0.9 / resolution), D, step, magnitude));
  }
  // At resolution 100 (where the variational and Hamiltonian cases sat) no derivative is judged, even an exact one.
  EXPECT_FALSE(matches_central_difference("R = 100", D, D, step, std::abs(D) * step / (kSimulationAccuracy * 100)));
}

// Richardson's combination of D(h) and D(2h) removes the h^2 term (exp at 0, h = 0.1: D(h) is 1.7e-3 off, the
// combination 3.3e-6) and carries 1.5 x the noise of D(h).
TEST(FdCheck, RichardsonExtrapolationRemovesTheSecondOrderTerm) {
  auto central = [](double h) { return CentralDifference{(std::exp(h) - std::exp(-h)) / (2 * h), h}; };
  const CentralDifference r = richardson_difference(central(0.1), central(0.2));
  EXPECT_GT(std::abs(central(0.1).value - 1.0), 1e-3);
  EXPECT_LT(std::abs(r.value - 1.0), 4e-6);
  EXPECT_EQ(r.step, 0.1);
  EXPECT_EQ(r.noise_factor, 1.5);
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
