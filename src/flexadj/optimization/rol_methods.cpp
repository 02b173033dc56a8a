#include "flexadj/optimization/rol_methods.hpp"

#include <ROL_Bounds.hpp>
#include <ROL_Constraint.hpp>
#include <ROL_Objective.hpp>
#include <ROL_PartitionedVector.hpp>
#include <ROL_Problem.hpp>
#include <ROL_Solver.hpp>
#include <ROL_StatusTest.hpp>
#include <ROL_StdVector.hpp>

#include <cmath>
#include <stdexcept>

#include "flexadj/optimization/rol_constraint.hpp"

namespace flexadj::optimization::detail {
namespace {

using rol::constrained;
using rol::design_of;
using rol::RolConstraint;
using rol::RolVector;
using rol::values_of;
using rol::violation;

constexpr int kSubproblemIterations = 50;  // augmented Lagrangian: iterations per subproblem

class RolObjective : public ROL::Objective<double> {
 public:
  RolObjective(Function& f, bool gauss_newton) : function_(f), gauss_newton_(gauss_newton) {}
  // A trial point where the forward run failed has J = inf (GradientProblemFunction). ROL's line searches
  // interpolate the values they see, and an infinite one makes their next step NaN: such a point is given a value
  // far above the last finite one instead, which rejects it and makes the interpolation step back.
  double value(const ROL::Vector<double>& x, double&) override {
    const double J = function_.value(values_of(x));
    if (std::isfinite(J)) return last_finite_ = J;
    return last_finite_ + 1e3 * (1.0 + std::abs(last_finite_));
  }
  void gradient(ROL::Vector<double>& g, const ROL::Vector<double>& x, double&) override {
    function_.value_and_gradient(values_of(x), *dynamic_cast<RolVector&>(g).getVector());
  }
  // Exact products (newton_krylov) or Gauss-Newton products (gauss_newton); the other ROL methods run with "Use as
  // Hessian" and never call it.
  void hessVec(ROL::Vector<double>& hv, const ROL::Vector<double>& v, const ROL::Vector<double>& x,
               double&) override {
    std::vector<double>& product = *dynamic_cast<RolVector&>(hv).getVector();
    if (gauss_newton_) function_.gauss_newton_vector(values_of(x), values_of(v), product);
    else function_.hessian_vector(values_of(x), values_of(v), product);
  }

 private:
  Function& function_;
  bool gauss_newton_;
  double last_finite_ = 0.0;
};

// The function as ROL sees it: every evaluation is recorded into the restart state; after a restart the recorded
// ones are answered from the record, in order, until it is used up (RestartState).
class ReplayFunction : public Function {
 public:
  ReplayFunction(Function& f, std::vector<RecordedEvaluation>& record) : function_(f), record_(record) {}
  double value(const std::vector<double>& x) override {
    if (const RecordedEvaluation* r = next(x, false)) return r->objective;
    const double J = function_.value(x);
    record_.push_back({x, J, {}});
    return J;
  }
  double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) override {
    if (const RecordedEvaluation* r = next(x, true)) {
      gradient = r->gradient;
      return r->objective;
    }
    const double J = function_.value_and_gradient(x, gradient);
    record_.push_back({x, J, gradient});
    return J;
  }
  long forward_runs() const override { return function_.forward_runs(); }
  long adjoint_runs() const override { return function_.adjoint_runs(); }
  // Constraints: not recorded (flexadj optimize refuses a restart with constraints).
  std::size_t constraint_count() const override { return function_.constraint_count(); }
  void constraint_values(const std::vector<double>& x, std::vector<double>& c) override {
    function_.constraint_values(x, c);
  }
  void constraint_adjoint(const std::vector<double>& x, const std::vector<double>& lambda,
                          std::vector<double>& product) override {
    function_.constraint_adjoint(x, lambda, product);
  }
  // Hessian products are not recorded: a replay computes them again at the recorded x (the second-order adjoint
  // is deterministic, so the replayed ROL run takes the same steps; it costs the products again).
  void hessian_vector(const std::vector<double>& x, const std::vector<double>& v,
                      std::vector<double>& product) override {
    function_.hessian_vector(x, v, product);
  }
  void gauss_newton_vector(const std::vector<double>& x, const std::vector<double>& v,
                           std::vector<double>& product) override {
    function_.gauss_newton_vector(x, v, product);
  }
  long hessian_products() const override { return function_.hessian_products(); }

 private:
  const RecordedEvaluation* next(const std::vector<double>& x, bool with_gradient) {
    if (replayed_ >= record_.size() || replayed_ >= replay_count_) return nullptr;
    const RecordedEvaluation& r = record_[replayed_++];
    if (r.x != x || r.gradient.empty() == with_gradient)
      throw std::invalid_argument("restart: ROL asked for another evaluation than the recorded run at evaluation " +
                               std::to_string(replayed_) + " (the model, the settings or the program changed)");
    return &r;
  }
  Function& function_;
  std::vector<RecordedEvaluation>& record_;
  std::size_t replayed_ = 0, replay_count_ = record_.size();  // the evaluations there were at the restart
};

// Our stopping rules and progress lines inside ROL's iteration: ROL calls check() before every iteration
// with the accepted iterate, whose value and gradient it has just computed (served from the cache).
// With constraints ROL calls check() before every outer iteration of the augmented Lagrangian; the line reports J,
// ROL's gradient norm of the augmented Lagrangian and the largest constraint violation at the iterate.
class RolMonitor : public ROL::StatusTest<double> {
 public:
  RolMonitor(Monitor& monitor, Function& f, const Settings& s) : monitor_(monitor), function_(f), settings_(s) {}
  bool check(ROL::AlgorithmState<double>& state) override {
    const std::vector<double>& x = design_of(*state.iterateVec);
    if (constrained(settings_)) {
      const double J = function_.value(x);
      function_.constraint_values(x, c_);
      return monitor_.accept(x, J, state.gnorm, violation(settings_, c_));
    }
    gradient_.resize(x.size());
    const double J = function_.value_and_gradient(x, gradient_);
    return monitor_.accept(x, J, gradient_);
  }

 private:
  Monitor& monitor_;
  Function& function_;
  const Settings& settings_;
  std::vector<double> gradient_, c_;
};

}  // namespace

void run_rol(Function& f, std::vector<double>& x, const Settings& s, Monitor& monitor) {
  ROL::ParameterList list;
  list.sublist("General").set("Output Level", 0);
  list.sublist("General").sublist("Secant").set("Type", "Limited-Memory BFGS");
  list.sublist("General").sublist("Secant").set("Maximum Storage", s.lbfgs_memory);
  // newton_krylov: the model is the exact Hessian (hessVec), gauss_newton: the Gauss-Newton matrix (hessVec, PSD);
  // the others: the L-BFGS matrix, no Hessian products.
  const bool newton = s.method == "newton_krylov" || s.method == "gauss_newton";
  list.sublist("General").sublist("Secant").set("Use as Hessian", !newton);
  list.sublist("General").sublist("Secant").set("Use as Preconditioner", false);
  list.sublist("Status Test").set("Iteration Limit", s.max_iterations);
  if (constrained(s)) {
    // ROL's augmented Lagrangian (optimizer.hpp); its subproblems by the method below. Its default problem
    // scaling takes J_c^T e_i for every constraint value i (one adjoint sweep each): off, so that the cost does
    // not grow with the number of (path) constraint values.
    list.sublist("Step").set("Type", "Augmented Lagrangian");
    auto& al = list.sublist("Step").sublist("Augmented Lagrangian");
    al.set("Use Default Problem Scaling", false);
    al.set("Subproblem Step Type", s.method == "lbfgs" ? "Line Search" : "Trust Region");
    al.set("Subproblem Iteration Limit", kSubproblemIterations);
    al.set("Level of Hessian Approximation", 0);
    list.sublist("Status Test").set("Constraint Tolerance", s.constraint_tolerance);
    list.sublist("Status Test").set("Gradient Tolerance", s.gradient_tolerance > 0.0 ? s.gradient_tolerance : 1e-10);
  }
  if (s.method == "lbfgs") {
    list.sublist("Step").set("Type", "Line Search");
    auto& ls = list.sublist("Step").sublist("Line Search");
    ls.sublist("Descent Method").set("Type", "Quasi-Newton Method");
    ls.sublist("Line-Search Method").set("Type", "Cubic Interpolation");
    ls.sublist("Curvature Condition").set("Type", "Strong Wolfe Conditions");
  } else {
    list.sublist("Step").set("Type", "Trust Region");
    auto& tr = list.sublist("Step").sublist("Trust Region");
    tr.set("Subproblem Solver", "Truncated CG");
    // With bounds: ROL's Lin-More algorithm (projected truncated CG on the free variables, Lin and More 1999),
    // the bound-constrained trust region that uses the model's Hessian products as given.
    tr.set("Subproblem Model", "Lin-More");
    // Without it ROL starts from the length of the Cauchy step, which on badly scaled designs can leave the
    // basin of the wanted minimum in the first iteration.
    if (s.trust_radius > 0.0) tr.set("Initial Radius", s.trust_radius);
    if (newton) {
      // Truncated CG stops at a residual of krylov_tolerance |g|, with no absolute floor: ROL's defaults (1e-2 |g|,
      // at most 1e-4) leave the small curvatures of an ill-conditioned model unresolved, and the iterations then
      // creep along its flat valleys (the inertia identification: 30 iterations, 17 with 1e-4; docs/results.md).
      auto& krylov = list.sublist("General").sublist("Krylov");
      krylov.set("Absolute Tolerance", ROL::ROL_INF<double>());
      krylov.set("Relative Tolerance", s.krylov_tolerance);
    }
  }
  if (constrained(s)) {  // the bound-constrained subproblems (TypeB): projected quasi-Newton with L-BFGS
    list.sublist("Step").sublist("Line Search").sublist("Descent Method").set("Type", "Quasi-Newton Method");
  }
  ReplayFunction replay(f, monitor.state().evaluations);
  auto xr = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(x));
  auto objective = ROL::makePtr<RolObjective>(replay, s.method == "gauss_newton");
  auto problem = ROL::makePtr<ROL::Problem<double>>(objective, xr);
  if (bounded(s)) {
    auto lower = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(s.lower));
    auto upper = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(s.upper));
    problem->addBoundConstraint(ROL::makePtr<ROL::Bounds<double>>(lower, upper));
  }
  if (constrained(s)) {
    const std::size_t m = s.constraint_lower.size();
    const bool equality = s.constraint_lower == s.constraint_upper;
    const ROL::Ptr<ROL::Constraint<double>> constraint = ROL::makePtr<RolConstraint>(replay, s, equality);
    const ROL::Ptr<ROL::Vector<double>> multiplier = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(m, 0.0));
    if (equality) {
      problem->addConstraint("constraints", constraint, multiplier);
    } else {
      // One inequality constraint lower <= c <= upper (equalities as lower = upper) with ROL's slack variables,
      // so that J_c^T lambda stays one product (one adjoint sweep) for all constraints together.
      auto finite = [](std::vector<double> b) {
        for (double& v : b) v = std::max(-ROL::ROL_INF<double>(), std::min(ROL::ROL_INF<double>(), v));
        return b;
      };
      auto lower = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(finite(s.constraint_lower)));
      auto upper = ROL::makePtr<RolVector>(ROL::makePtr<std::vector<double>>(finite(s.constraint_upper)));
      const ROL::Ptr<ROL::BoundConstraint<double>> range = ROL::makePtr<ROL::Bounds<double>>(lower, upper);
      problem->addConstraint("constraints", constraint, multiplier, range);
    }
  }
  problem->finalize(false, false);
  ROL::Solver<double> solver(problem, list);
  std::ostringstream rol_output;  // ROL's own table is not printed; the monitor prints ours
  solver.solve(rol_output, ROL::makePtr<RolMonitor>(monitor, replay, s), false);
  x = monitor.state().x;
}

}  // namespace flexadj::optimization::detail
