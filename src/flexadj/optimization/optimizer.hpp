#pragma once
// Minimisation of J(x) over design scalars x with optional bounds lower <= x <= upper, given J and its
// gradient (by the discrete adjoint in flexadj optimize). Methods:
//   lbfgs             ROL line search with L-BFGS directions; with bounds ROL's projected quasi-Newton
//   trust_region      ROL trust region with an L-BFGS model; with bounds ROL's Lin-More algorithm
//   newton_krylov     ROL trust region with truncated CG on exact Hessian-vector products (Function::
//                     hessian_vector); with bounds ROL's Lin-More algorithm on the same products
//   gauss_newton      as newton_krylov on the Gauss-Newton products J_r^T J_r v of a least-squares J
//                     (Function::gauss_newton_vector; positive semidefinite)
//   gradient          steepest descent with the step rule of Nachbagauer et al. 2015, eqs. (56)/(57),
//                     optionally safeguarded by an Armijo backtracking line search
//   barzilai_borwein  the two-point step size gradient method (Barzilai and Borwein 1988), as used by
//                     Schubert et al. 2024; projected onto the bounds
// With constraints lower_c <= c(x) <= upper_c (Function::constraint_count() > 0; lbfgs and trust_region only): ROL's
// augmented Lagrangian method (Conn, Gould and Toint 1991; ROL's TypeE/TypeG AugmentedLagrangianAlgorithm), whose
// subproblems are the method above on L_A(x) = J + lambda.c + (mu/2)|c|^2. It was chosen because it asks the
// constraints for values and products J_c^T v only: with a secant model of the subproblem, no J_c v (a tangent
// sweep) and no second derivatives. Inequalities get ROL's slack variables.
// Under MPI every rank runs the same iteration on the same (replicated) x; the function is collective.
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace flexadj::optimization {

// The function to minimise. value() may return +infinity where J cannot be computed (a failed forward run);
// the methods then shorten the step.
class Function {
 public:
  virtual ~Function() = default;
  virtual double value(const std::vector<double>& x) = 0;
  // J(x) and dJ/dx.
  virtual double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) = 0;
  // H(x) v, the exact Hessian-vector product (newton_krylov); the default throws std::logic_error.
  virtual void hessian_vector(const std::vector<double>& x, const std::vector<double>& v, std::vector<double>& product);
  // G(x) v, the Gauss-Newton product J_r^T J_r v of a least-squares J (gauss_newton); the default throws
  // std::logic_error. Counted with hessian_products().
  virtual void gauss_newton_vector(const std::vector<double>& x, const std::vector<double>& v,
                                   std::vector<double>& product);
  virtual long hessian_products() const { return 0; }
  // Work done so far, for the progress lines.
  virtual long forward_runs() const = 0;
  virtual long adjoint_runs() const = 0;
  // Constraints c(x) (none by default): their number, values, and the product J_c(x)^T lambda.
  virtual std::size_t constraint_count() const { return 0; }
  virtual void constraint_values(const std::vector<double>& x, std::vector<double>& c);
  virtual void constraint_adjoint(const std::vector<double>& x, const std::vector<double>& lambda,
                                  std::vector<double>& product);
};

struct Settings {
  std::string method = "lbfgs";  // lbfgs | trust_region | newton_krylov | gauss_newton | gradient | barzilai_borwein
  int max_iterations = 100;
  double gradient_tolerance = 0.0;
  double relative_gradient_tolerance = 1e-8;
  double objective_tolerance = 0.0;  // relative change of J between iterations
  double objective_target = -std::numeric_limits<double>::infinity();
  double step_fraction = 0.05;       // epsilon of eqs. (56)/(57)
  bool armijo = true;                // gradient method: backtracking line search on the eq. (56)/(57) step
  int lbfgs_memory = 10;
  double trust_radius = 0.0;  // trust_region, newton_krylov, gauss_newton: the first radius (0: ROL's)
  // newton_krylov, gauss_newton: truncated CG stops when its residual is at most this times the gradient norm.
  double krylov_tolerance = 1e-4;
  // Barzilai-Borwein: a step is accepted when J falls below the largest of the last this many values (Raydan
  // 1997's M; 1 is a monotone Armijo search).
  int nonmonotone_memory = 10;
  std::vector<double> lower, upper;  // empty: unbounded; else one entry per scalar (+-infinity allowed)
  // Gradient and Barzilai-Borwein methods: the metric of eq. (57), one positive weight per scalar (the
  // quadrature weight of a control value, 1 for a parameter); empty: all 1. The step is -kappa g_i / w_i.
  std::vector<double> metric;
  // Constraints: one lower and one upper bound per value of Function::constraint_values (equal for an
  // equality); empty: none. Converged only where max(c - upper, lower - c, 0) <= constraint_tolerance.
  std::vector<double> constraint_lower, constraint_upper;
  double constraint_tolerance = 1e-8;
};

// One accepted iterate (iteration 0 is the start).
struct Iteration {
  int iteration = 0;
  double objective = 0.0;
  // Euclidean norm of the projected gradient P(x - g) - x; with constraints ROL's norm of the projected gradient
  // of the augmented Lagrangian (scaled by its multiplier update).
  double gradient_norm = 0.0;
  // With constraints: the largest violation of a constraint bound (NaN without constraints).
  double constraint_violation = std::numeric_limits<double>::quiet_NaN();
  double step = 0.0;           // |x_k - x_(k-1)|
  long forward_runs = 0, adjoint_runs = 0;
  double seconds = 0.0;        // since the start of this run
  // With optimization.momentum_target_iteration: the optimisation of the iteration it belongs to (1, 2, ...);
  // else 0.
  int target_iteration = 0;
};

// One evaluation of J (and its gradient, if asked for) during a run of ROL's methods.
struct RecordedEvaluation {
  std::vector<double> x;
  double objective = 0.0;
  std::vector<double> gradient;  // empty: J only
};

// What a restart needs: the last iterate and the state of the gradient and Barzilai-Borwein methods. ROL's methods
// keep their state inside ROL, which cannot save it: a restart runs ROL again from the first x and answers its
// evaluations from `evaluations` (checking each x bit for bit) until they are used up, which rebuilds ROL's state
// exactly (ROL is deterministic), then goes on computing. Without evaluations, ROL restarts from x with an empty
// quasi-Newton memory.
struct RestartState {
  int iteration = 0;
  std::vector<double> x;
  double initial_gradient_norm = 0.0;   // for the relative gradient tolerance
  double previous_objective = std::numeric_limits<double>::quiet_NaN();  // J at x
  double objective_before = std::numeric_limits<double>::quiet_NaN();    // J at the iterate before x
  std::vector<double> previous_x, previous_gradient;  // Barzilai-Borwein: x_(k-1), g_(k-1)
  double previous_step_length = 0.0;                  // Barzilai-Borwein: alpha_(k-1)
  std::vector<Iteration> history;
  // The accepted iterate of lowest J so far (a non-monotone method may leave it); empty: not known yet.
  int best_iteration = -1;
  double best_objective = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> best_x;
  std::vector<RecordedEvaluation> evaluations;  // ROL's methods: every evaluation so far, in order
};

// x is the accepted iterate of lowest J: the last one for the monotone searches (ROL's, the gradient method with
// its Armijo search); Barzilai-Borwein and the gradient method without line search can leave it.
struct Result {
  std::vector<double> x;
  double objective = 0.0;
  int best_iteration = 0;  // the iteration x comes from
  double last_objective = 0.0;  // J at the last iterate
  int iterations = 0;
  std::string stop_reason;
  bool converged = false;  // a tolerance or the target was met (not the iteration limit)
  std::vector<Iteration> history;  // all recorded iterates, those before a restart included
};

// Called after every accepted iterate (and for the start) with the record, x and the restart state.
using Observer = std::function<void(const Iteration&, const std::vector<double>& x, const RestartState&)>;

// restart: null for a fresh start from x0; otherwise continues from restart->x (x0 is ignored).
Result minimize(Function& function, const std::vector<double>& x0, const Settings& settings,
                const Observer& observer, const RestartState* restart = nullptr);

// Throws std::invalid_argument for an unknown method, bounds of the wrong size, or constraints with a method that
// cannot take them.
void check_settings(const Settings& settings, std::size_t size);

}  // namespace flexadj::optimization
