#pragma once
// Test (d) of `flexadj check` where the model has the second-order adjoint (GradientProblem::hessian_vector): the
// Hessian-vector product H dp against (i) symmetry, u . H dp = dp . H u for a second direction u, to 1e-10 relative
// to |u| |H dp| + |dp| |H u|, and (ii) central differences of the exact gradients, FD(h) = (g(p + h dp) -
// g(p - h dp)) / 2h, per component at the steps of kStepSweep: the consecutive pair that agrees best (largest
// component difference e) gives FD as in (b); with s = max(max |H dp|, max |FD|), pass if e <= 1e-5 s (resolved)
// and every |FD_i - (H dp)_i| <= 1e-6 s + 3 e.
#include <functional>
#include <string>
#include <vector>

#include "flexadj/verification/design_directions.hpp"

namespace flexadj::verification {

constexpr double kSymmetryTolerance = 1e-10;

// The gradient at design values x (collective); `what` names the run.
using GradientAt = std::function<std::vector<double>(const std::vector<double>& x, const std::string& what)>;
// H v at the checked design values (collective).
using HessianVectorAt = std::function<std::vector<double>(const std::vector<double>& v)>;

struct HessianCheck {
  double symmetry = 0.0;     // |u . H dp - dp . H u| / (|u| |H dp| + |dp| |H u|)
  double error = 0.0;        // max_i |FD_i - (H dp)_i| / max |H dp|
  double allowed = 0.0;      // the error allowed
  double estimate = 0.0;     // e
  double scale = 0.0;        // max(max |H dp|, max |FD|)
  std::size_t worst = 0;     // the component of the largest error
  bool resolved = true, symmetric = false, passed = false;
};

// Two products and two gradient runs per step (collective).
HessianCheck check_hessian(const GradientAt& gradient_at, const HessianVectorAt& hessian_at,
                           const std::vector<double>& p, const std::vector<double>& dp, const std::vector<double>& u,
                           const std::vector<double>& steps);

}  // namespace flexadj::verification
