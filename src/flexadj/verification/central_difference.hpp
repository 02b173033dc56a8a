#pragma once
// Central differences of J against the gradient along one direction (test (b) of `flexadj check`):
// D(h) = (J(p + h dp) - J(p - h dp)) / 2h against dJ.dp. With one step h the relative error must be <= 1e-6. With a
// sweep of steps, D(h_k) for each: the consecutive pair with the smallest difference e = |D(h_k) - D(h_k+1)| gives
// FD = D(h_k) (the larger step, less round-off; its truncation error is about e, the h^2 term falling 100-fold per
// decade) and the error estimate e. The direction passes if e resolves dJ.dp (e <= 1e-5 max(|FD|, |dJ.dp|):
// otherwise J is too noisy for differences to check anything) and |FD - dJ.dp| <= 1e-6 max(|FD|, |dJ.dp|) + 3 e.
// So a gradient wrong by 1e-4 relative always fails.
// A direction nearly orthogonal to the gradient has a dJ.dp small against the terms it sums, T = sum_i |g_i dp_i|,
// while the differences' error does not shrink with it: e can miss 1e-5 |dJ.dp| although it resolves T to 1e-5.
// Such a direction, if FD and dJ.dp agree within what it allows, is cancelled: J is not too noisy, the direction is
// a poor test, and the caller may draw another (at most kReplacements times) and hold that one to the same bars.
#include <cstddef>
#include <string>
#include <vector>

#include "flexadj/verification/design_directions.hpp"

namespace flexadj::verification {

constexpr double kFiniteDifferenceTolerance = 1e-6;
// Without a given step: central differences at these steps; the consecutive pair that agrees best is where
// truncation (O(h^2)) and J's round-off (O(eps/h)) balance, and its difference estimates the FD error.
inline const std::vector<double> kStepSweep = {1e-4, 1e-5, 1e-6};
constexpr double kResolvable = 1e-5;  // the FD error estimate must resolve dJ.dp to this (relative)
constexpr int kReplacements = 3;      // cancelled directions replaced, at most, per direction asked for

struct CentralDifferenceCheck {
  double difference = 0.0;  // FD
  double adjoint = 0.0;     // dJ.dp
  double error = 0.0;       // |FD - dJ.dp| / max(|FD|, |dJ.dp|)
  double allowed = 0.0;     // the error allowed
  double estimate = 0.0;    // e (0 with one step)
  double scale = 0.0;       // max(|FD|, |dJ.dp|)
  std::size_t step = 0;     // index of the step FD comes from
  double terms = 0.0;       // T = sum_i |g_i dp_i|
  bool resolved = true;     // e resolves dJ.dp (always with one step)
  bool cancelled = false;   // not resolved only: error <= allowed and e <= 1e-5 T (dJ.dp small by cancellation)
  bool passed = false;
};

// Two runs of objective_at per step (collective); `what` begins the runs' names.
CentralDifferenceCheck check_central_difference(const ObjectiveAt& objective_at, const std::vector<double>& p,
                                                const std::vector<double>& gradient, const std::vector<double>& dp,
                                                const std::vector<double>& steps, const std::string& what);

}  // namespace flexadj::verification
