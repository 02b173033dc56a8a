#pragma once
// The `optimization` section of a model file (docs/model-format.md): method, bounds and stopping rules of
// `flexadj optimize`.
#include <limits>
#include <string>
#include <vector>

namespace flexadj::problem {

// Bounds on one design variable (all values of a control signal share them).
struct DesignBound {
  std::string variable;  // a design-variable name as stored in Problem::design_variables ("control:F")
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
};

// The iteration of the desired end momentum of Schubert et al. 2024, Remark 1 (optimization/
// momentum_target_iteration.hpp): at most `iterations` optimisations with a modified target, until
// |p_N - p^N| <= tolerance, then one with the model's target. iterations = 0: off (a single optimisation).
struct MomentumTargetIteration {
  int iterations = 0;
  double tolerance = 0.0;
  bool enabled() const { return iterations > 0; }
};

struct OptimizationSettings {
  std::string method = "lbfgs";  // lbfgs | trust_region | newton_krylov | gauss_newton | gradient | barzilai_borwein
  int max_iterations = 100;
  double gradient_tolerance = 0.0;            // stop when the (projected) gradient norm is <= this
  double relative_gradient_tolerance = 1e-8;  // ... or <= this times its value at the start
  double objective_tolerance = 0.0;           // ... or when |J_k - J_(k-1)| <= this |J_(k-1)|
  double objective_target = -std::numeric_limits<double>::infinity();  // ... or when J <= this
  double step_fraction = 0.05;         // gradient and Barzilai-Borwein methods: epsilon of the first step
  std::string line_search = "armijo";  // gradient method: armijo | none
  int lbfgs_memory = 10;
  double trust_radius = 0.0;  // trust-region methods: the first radius (0: ROL's, the Cauchy step's length)
  double krylov_tolerance = 1e-4;  // newton_krylov, gauss_newton: truncated CG's residual relative to the gradient
  bool krylov_tolerance_given = false;  // given in the model file (or by --set): the other methods refuse it
  int nonmonotone_memory = 10;  // Barzilai-Borwein: J values the non-monotone safeguard compares with
  std::vector<DesignBound> bounds;
  // With constraints: converged only where no constraint value is violated by more than this.
  double constraint_tolerance = 1e-8;
  std::string start_from;  // design-values file applied to the model (path as resolved by the reader)
  MomentumTargetIteration momentum_target_iteration;
};

}  // namespace flexadj::problem
