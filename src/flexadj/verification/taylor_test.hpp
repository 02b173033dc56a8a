#pragma once
// The Taylor test of a gradient (test (a) of `flexadj check`): the remainder r(h) = |J(p + h dp) - J(p) - h dJ.dp|
// is O(h^2) if and only if dJ is the derivative of J. Steps h = step0 2^-k, k = 0..6; it passes if the observed
// orders log2(r(2h)/r(h)) are >= 1.9 over 3 consecutive halvings, an order whose remainder lies below the round-off
// of J (1e-12 |J|) counting as passed.
#include <vector>

#include "flexadj/verification/design_directions.hpp"

namespace flexadj::verification {

constexpr int kTaylorSteps = 7;         // h = step0 * 2^-k, k = 0..6
constexpr double kRequiredOrder = 1.9;  // over 3 consecutive halvings
constexpr double kRoundOff = 1e-12;     // remainders below kRoundOff |J| are round-off

struct TaylorTest {
  double slope = 0.0;  // dJ.dp
  std::vector<double> steps, remainders;
  std::vector<double> orders;   // orders[k] = log2(r[k-1]/r[k]) for k >= 1 (orders[0] unused)
  std::vector<bool> round_off;  // r[k] < kRoundOff |J|
  bool passed = false;
};

// J: the objective at p; gradient: dJ/dp there; dp: the direction. kTaylorSteps runs of objective_at (collective).
TaylorTest taylor_test(const ObjectiveAt& objective_at, const std::vector<double>& p, double J,
                       const std::vector<double>& gradient, const std::vector<double>& dp, double step0);

}  // namespace flexadj::verification
