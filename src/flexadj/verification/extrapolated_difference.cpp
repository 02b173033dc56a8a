#include "flexadj/verification/extrapolated_difference.hpp"

#include <cmath>

namespace flexadj::verification {

ExtrapolatedDifferenceCheck check_extrapolated_difference(const ObjectiveAt& objective_at,
                                                          const std::vector<double>& p, double J,
                                                          const std::vector<double>& gradient, std::size_t j,
                                                          const std::string& name, double step0) {
  ForwardDifferenceExtrapolation extrapolation(kObjectiveAccuracy, std::abs(J));
  for (int i = 0; i < kExtrapolationSteps && extrapolation.improving(); ++i) {
    const double h = step0 * std::max(1.0, std::abs(p[j])) / (i + 1);
    std::vector<double> x(p);
    x[j] += h;
    const std::string what = "extrapolated differences, " + name + ", step " + std::to_string(i + 1) +
                             " of at most " + std::to_string(kExtrapolationSteps);
    extrapolation.add(h, (objective_at(x, what) - J) / h);
  }
  ExtrapolatedDifferenceCheck check;
  check.extrapolant = extrapolation.best();
  check.points = extrapolation.extrapolants().size();
  check.error = std::abs(check.extrapolant.value - gradient[j]);
  check.passed = check.error <= check.extrapolant.estimate + check.extrapolant.noise;
  return check;
}

}  // namespace flexadj::verification
