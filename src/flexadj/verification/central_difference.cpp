#include "flexadj/verification/central_difference.hpp"

#include <cmath>
#include <cstdio>

namespace flexadj::verification {

CentralDifferenceCheck check_central_difference(const ObjectiveAt& objective_at, const std::vector<double>& p,
                                                const std::vector<double>& gradient, const std::vector<double>& dp,
                                                const std::vector<double>& steps, const std::string& what) {
  const bool sweep = steps.size() > 1;
  std::vector<double> D;
  for (double h : steps) {
    char step[32];
    std::snprintf(step, sizeof step, ", h = %g", h);
    const double plus = objective_at(axpy(h, dp, p), what + step + ", +h");
    const double minus = objective_at(axpy(-h, dp, p), what + step + ", -h");
    D.push_back((plus - minus) / (2.0 * h));
  }
  CentralDifferenceCheck check;
  if (sweep) {
    check.estimate = std::abs(D[0] - D[1]);
    for (std::size_t k = 1; k + 1 < D.size(); ++k)
      if (std::abs(D[k] - D[k + 1]) < check.estimate) {
        check.estimate = std::abs(D[k] - D[k + 1]);
        check.step = k;
      }
  }
  check.difference = D[check.step];
  check.adjoint = dot(gradient, dp);
  check.scale = std::max(std::abs(check.difference), std::abs(check.adjoint));
  check.error = relative_difference(check.difference, check.adjoint);
  check.allowed = kFiniteDifferenceTolerance + (check.scale > 0.0 ? 3.0 * check.estimate / check.scale : 0.0);
  check.resolved = !sweep || check.estimate <= kResolvable * check.scale;
  for (std::size_t i = 0; i < dp.size(); ++i) check.terms += std::abs(gradient[i] * dp[i]);
  check.cancelled =
      !check.resolved && check.error <= check.allowed && check.estimate <= kResolvable * check.terms;
  check.passed = check.resolved && check.error <= check.allowed;
  return check;
}

}  // namespace flexadj::verification
