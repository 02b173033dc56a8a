#include "flexadj/verification/hessian_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace flexadj::verification {
namespace {

double norm(const std::vector<double>& x) { return std::sqrt(dot(x, x)); }

}  // namespace

HessianCheck check_hessian(const GradientAt& gradient_at, const HessianVectorAt& hessian_at,
                           const std::vector<double>& p, const std::vector<double>& dp, const std::vector<double>& u,
                           const std::vector<double>& steps) {
  HessianCheck check;
  const std::vector<double> h_dp = hessian_at(dp), h_u = hessian_at(u);
  const double size = norm(u) * norm(h_dp) + norm(dp) * norm(h_u);
  check.symmetry = size > 0.0 ? std::abs(dot(u, h_dp) - dot(dp, h_u)) / size : 0.0;
  check.symmetric = check.symmetry <= kSymmetryTolerance;
  std::vector<std::vector<double>> D;
  for (double h : steps) {
    char step[48];
    std::snprintf(step, sizeof step, "gradient at h = %g, ", h);
    const std::vector<double> plus = gradient_at(axpy(h, dp, p), std::string(step) + "+h");
    const std::vector<double> minus = gradient_at(axpy(-h, dp, p), std::string(step) + "-h");
    std::vector<double> d(p.size());
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = (plus[i] - minus[i]) / (2.0 * h);
    D.push_back(d);
  }
  const auto largest_difference = [](const std::vector<double>& a, const std::vector<double>& b) {
    double e = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
    return e;
  };
  std::size_t k = 0;
  if (D.size() > 1) {
    check.estimate = largest_difference(D[0], D[1]);
    for (std::size_t j = 1; j + 1 < D.size(); ++j)
      if (largest_difference(D[j], D[j + 1]) < check.estimate) {
        check.estimate = largest_difference(D[j], D[j + 1]);
        k = j;
      }
  }
  for (std::size_t i = 0; i < h_dp.size(); ++i) check.scale = std::max({check.scale, std::abs(h_dp[i]), std::abs(D[k][i])});
  for (std::size_t i = 0; i < h_dp.size(); ++i) {
    const double error = check.scale > 0.0 ? std::abs(D[k][i] - h_dp[i]) / check.scale : 0.0;
    if (error >= check.error) {
      check.error = error;
      check.worst = i;
    }
  }
  check.allowed = 1e-6 + (check.scale > 0.0 ? 3.0 * check.estimate / check.scale : 0.0);
  check.resolved = D.size() == 1 || check.estimate <= 1e-5 * check.scale;
  check.passed = check.symmetric && check.resolved && check.error <= check.allowed;
  return check;
}

}  // namespace flexadj::verification
