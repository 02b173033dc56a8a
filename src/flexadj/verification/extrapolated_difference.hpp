#pragma once
// Extrapolated forward differences of J for one design scalar against the gradient (test (c) of `flexadj check`,
// Bestle and Eberhard 1992): D_i = (J(p + h_i e_j) - J(p))/h_i with h_i = dp0/(i + 1), dp0 = step0 max(1, |p_j|),
// extrapolated to h = 0 (Aitken-Neville) with adaptive order: points are added while the error estimate
// e_k = |E_k - E_{k-1}| falls (at most kExtrapolationSteps), and the order with the smallest e_k + noise_k is taken
// (forward_difference_extrapolation.hpp). Passes if |E - dJ/dp_j| <= e_k + noise_k: the estimate plus the
// round-off floor of J amplified by the extrapolation weights.
#include <cstddef>
#include <string>
#include <vector>

#include "flexadj/verification/design_directions.hpp"
#include "flexadj/verification/forward_difference_extrapolation.hpp"

namespace flexadj::verification {

constexpr int kExtrapolationSteps = 7;  // at most: dp0/(i + 1), i = 0..6, fewer once the estimate stops falling
// The relative accuracy of J in the round-off floor: fd_check.hpp in the tests measures 1e-15 .. 1.2e-14 |J|
// (generalized-alpha) and up to 9e-14 |J| (variational) at Newton tolerances 1e-10 .. 1e-12.
constexpr double kObjectiveAccuracy = 1e-12;

struct ExtrapolatedDifferenceCheck {
  Extrapolant extrapolant;  // the chosen E_k with its estimate and floor
  std::size_t points = 0;   // differences taken
  double error = 0.0;       // |E - dJ/dp_j|
  bool passed = false;
};

// Design scalar j (named `name` in the runs' names) at p, where J and the gradient were computed (collective).
ExtrapolatedDifferenceCheck check_extrapolated_difference(const ObjectiveAt& objective_at,
                                                          const std::vector<double>& p, double J,
                                                          const std::vector<double>& gradient, std::size_t j,
                                                          const std::string& name, double step0);

}  // namespace flexadj::verification
