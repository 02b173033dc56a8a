#include "flexadj/optimization/optimizer.hpp"
#include "flexadj/optimization/rol_constraint.hpp"

#include <ROL_Bounds.hpp>
#include <ROL_Constraint.hpp>
#include <ROL_Objective.hpp>
#include <ROL_PartitionedVector.hpp>
#include <ROL_Problem.hpp>
#include <ROL_Solver.hpp>
#include <ROL_StatusTest.hpp>
#include <ROL_StdVector.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace flexadj::optimization {
namespace {

using rol::constrained;
using rol::design_of;
using rol::RolConstraint;
using rol::RolVector;
using rol::values_of;
using rol::violation;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kArmijoSlope = 1e-4;  // sufficient-decrease constant of the Armijo rule
constexpr int kMaxHalvings = 40;
constexpr int kMaxDoublings = 10;
constexpr double kStallStep = 1e-15;  // relative step below which an iteration made no progress
constexpr int kSubproblemIterations = 50;  // augmented Lagrangian: iterations per subproblem

bool bounded(const Settings& s) { return !s.lower.empty(); }

double clamp(const Settings& s, std::size_t i, double x) {
  return bounded(s) ? std::min(std::max(x, s.lower[i]), s.upper[i]) : x;
}

void project(const Settings& s, std::vector<double>& x) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = clamp(s, i, x[i]);
}

double norm(const std::vector<double>& x) {
  double sum = 0.0;
  for (double xi : x) sum += xi * xi;
  return std::sqrt(sum);
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

// |P(x - g) - x|: zero at a stationary point of the bound-constrained problem. A component with no finite bound
// contributes g_i itself: x_i - g_i - x_i loses g_i below the rounding unit of x_i (a gradient of 1e-16 at
// x = 100 read as exactly 0, a stop on gradient_tolerance 0 that did not hold).
double projected_gradient_norm(const Settings& s, const std::vector<double>& x, const std::vector<double>& g) {
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool free = !bounded(s) || (std::isinf(s.lower[i]) && std::isinf(s.upper[i]));
    const double d = free ? g[i] : clamp(s, i, x[i] - g[i]) - x[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}

// Records accepted iterates, applies the stopping rules common to all methods and keeps the restart state.
class Monitor {
 public:
  // replay: the restart's iterates come again from the start (ROL's methods with recorded evaluations): they
  // rebuild the state and are neither recorded nor reported again.
  Monitor(Function& f, const Settings& s, const Observer& observer, const RestartState* restart, bool replay = false)
      : function_(f), settings_(s), observer_(observer), start_(std::chrono::steady_clock::now()) {
    if (restart) {
      state_ = *restart;
      if (!state_.history.empty()) seconds_offset_ = state_.history.back().seconds;
      restarted_ = !replay;
    }
    if (restart && replay) {
      replay_until_ = restart->iteration;
      replaying_ = true;
      state_.iteration = 0;
      state_.x.clear();
      state_.previous_objective = state_.objective_before = std::numeric_limits<double>::quiet_NaN();
    }
  }

  RestartState& state() { return state_; }
  int iteration() const { return state_.iteration; }
  // The line search found no acceptable step: the method ends at the last accepted iterate.
  void stop_line_search_failed(double trial_objective) {
    std::ostringstream why;
    why << "line search failed: no acceptable step after " << kMaxHalvings << " halvings (last trial J = "
        << trial_objective << (std::isfinite(trial_objective) ? ")" : ": the forward run failed)");
    reason_ = why.str();
  }
  const std::string& stop_reason() const { return reason_; }
  bool converged() const { return converged_; }

  // The accepted iterate x with J and g. Returns false when a stopping rule holds. The first call after a
  // restart re-evaluates the last written iterate and is not recorded again.
  bool accept(const std::vector<double>& x, double J, const std::vector<double>& g) {
    return accept(x, J, projected_gradient_norm(settings_, x, g), std::numeric_limits<double>::quiet_NaN());
  }
  // The same with the gradient norm given, and the constraint violation (NaN: no constraints).
  bool accept(const std::vector<double>& x, double J, double gnorm, double violation) {
    if (replaying_) {
      const int iteration = first_ ? 0 : state_.iteration + 1;
      if (first_) state_.initial_gradient_norm = gnorm;
      state_.objective_before = state_.previous_objective;
      state_.iteration = iteration;
      if (iteration < replay_until_) {  // an iterate before the restart's last: state only
        state_.x = x;
        state_.previous_objective = J;
        first_ = false;
        return true;
      }
      // The restart's last iterate: as after a plain restart, checked against the stopping rules, not recorded.
      replaying_ = false;
      restarted_ = true;
      first_ = true;
    }
    const bool repeat = restarted_ && first_;
    if (first_ && !restarted_) state_.initial_gradient_norm = gnorm;
    if (!first_) ++state_.iteration;
    Iteration it;
    it.iteration = state_.iteration;
    it.objective = J;
    it.gradient_norm = gnorm;
    it.constraint_violation = violation;
    it.step = state_.x.empty() || first_ ? 0.0 : distance(x, state_.x);
    it.forward_runs = function_.forward_runs();
    it.adjoint_runs = function_.adjoint_runs();
    it.seconds = seconds_offset_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // J_(k-1) for the objective tolerance; a repeated iterate compares with the value before it.
    const double previous = repeat ? state_.objective_before : state_.previous_objective;
    if (!repeat) state_.objective_before = state_.previous_objective;
    state_.x = x;
    state_.previous_objective = J;
    if (std::isfinite(J) && (state_.best_x.empty() || J < state_.best_objective)) {
      state_.best_x = x;
      state_.best_objective = J;
      state_.best_iteration = state_.iteration;
    }
    if (!repeat) {
      state_.history.push_back(it);
      if (observer_) observer_(it, x, state_);
    }
    first_ = false;
    return !stop(it, previous, x, repeat);
  }

 private:
  bool stop(const Iteration& it, double previous, const std::vector<double>& x, bool repeat) {
    std::ostringstream why;
    // With constraints, a tolerance or the target counts at a feasible iterate only.
    const bool feasible = !(it.constraint_violation > settings_.constraint_tolerance);
    if (!feasible) {
      // the iteration limit and the stall test below
    } else if (it.gradient_norm <= settings_.gradient_tolerance) {
      why << "gradient norm " << it.gradient_norm << " <= gradient_tolerance " << settings_.gradient_tolerance;
      converged_ = true;
    } else if (it.gradient_norm <= settings_.relative_gradient_tolerance * state_.initial_gradient_norm) {
      why << "gradient norm reduced by " << it.gradient_norm / state_.initial_gradient_norm
          << " <= relative_gradient_tolerance " << settings_.relative_gradient_tolerance;
      converged_ = true;
    } else if (it.objective <= settings_.objective_target) {
      why << "objective " << it.objective << " <= objective_target " << settings_.objective_target;
      converged_ = true;
    } else if (it.iteration > 0 && settings_.objective_tolerance > 0.0 && std::isfinite(previous) &&
               std::abs(it.objective - previous) <= settings_.objective_tolerance * std::abs(previous)) {
      why << "relative change of the objective " << std::abs(it.objective - previous) / std::abs(previous)
          << " <= objective_tolerance " << settings_.objective_tolerance;
      converged_ = true;
    }
    if (why.tellp() > 0) {
      // a rule above held
    } else if (it.iteration >= settings_.max_iterations) {
      why << "iteration limit " << settings_.max_iterations << " reached";
    } else if (stalled(it, repeat, x)) {
      why << "no progress in " << stalled_iterations_ << " iteration(s)";
    } else {
      return false;
    }
    reason_ = why.str();
    return true;
  }

  // A trust-region iteration may reject its step and shrink the radius; the other methods make progress in
  // every iteration unless their line search failed.
  bool stalled(const Iteration& it, bool repeat, const std::vector<double>& x) {
    if (it.iteration == 0 || repeat) return false;
    if (it.step > kStallStep * (1.0 + norm(x))) {
      stalled_iterations_ = 0;
      return false;
    }
    ++stalled_iterations_;
    // Trust regions, and an augmented Lagrangian iteration whose subproblem is already solved (it may only raise
    // the penalty), may stay at an iterate.
    const bool may_stay = settings_.method == "trust_region" || settings_.method == "newton_krylov" ||
                          settings_.method == "gauss_newton" || !settings_.constraint_lower.empty();
    return stalled_iterations_ >= (may_stay ? 50 : 2);
  }

  Function& function_;
  const Settings& settings_;
  const Observer& observer_;
  int stalled_iterations_ = 0;
  std::chrono::steady_clock::time_point start_;
  RestartState state_;
  double seconds_offset_ = 0.0;
  bool restarted_ = false, first_ = true, converged_ = false, replaying_ = false;
  int replay_until_ = 0;
  std::string reason_;
};

// ---- ROL ------------------------------------------------------------------------------------------------

class RolObjective : public ROL::Objective<double> {
 public:
  RolObjective(Function& f, bool gauss_newton) : function_(f), gauss_newton_(gauss_newton) {}
  double value(const ROL::Vector<double>& x, double&) override { return function_.value(values_of(x)); }
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

// ---- gradient method -------------------------------------------------------------------------------------

double metric(const Settings& s, std::size_t i) { return s.metric.empty() ? 1.0 : s.metric[i]; }

// kappa = epsilon |J| / (g^T W^-1 g): the step that changes the linearised J by the fraction epsilon,
// Nachbagauer et al. 2015, eq. (56) for parameters, eq. (57) for controls (W: quadrature weights).
double fraction_step(const Settings& s, double J, const std::vector<double>& g) {
  double gwg = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) gwg += g[i] * g[i] / metric(s, i);
  return gwg > 0.0 ? s.step_fraction * std::abs(J) / gwg : 0.0;
}

// x_trial = P(x - kappa W^-1 g)
void trial_point(const Settings& s, const std::vector<double>& x, const std::vector<double>& g, double kappa,
                 std::vector<double>& trial) {
  for (std::size_t i = 0; i < x.size(); ++i) trial[i] = clamp(s, i, x[i] - kappa * g[i] / metric(s, i));
}

double directional_change(const std::vector<double>& x, const std::vector<double>& trial,
                          const std::vector<double>& g) {
  double d = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) d += g[i] * (trial[i] - x[i]);
  return d;
}

// Written here rather than taken from ROL: the paper's step rule (56)/(57) is not one of ROL's.
void run_gradient(Function& f, std::vector<double>& x, const Settings& s, Monitor& monitor) {
  std::vector<double> g(x.size()), trial(x.size()), best(x.size());
  double J = f.value_and_gradient(x, g);
  while (monitor.accept(x, J, g)) {
    double kappa = fraction_step(s, J, g);
    trial_point(s, x, g, kappa, trial);
    double J_trial = f.value(trial);
    if (s.armijo) {
      // Inexact line search on kappa (Nachbagauer et al. 2015, sec. 4.1, strategy 2): halve until the
      // Armijo condition holds; if the first kappa is accepted, double it while J keeps decreasing.
      int halvings = 0;
      while (!(J_trial <= J + kArmijoSlope * directional_change(x, trial, g)) && halvings++ < kMaxHalvings) {
        kappa *= 0.5;
        trial_point(s, x, g, kappa, trial);
        J_trial = f.value(trial);
      }
      if (!(J_trial <= J + kArmijoSlope * directional_change(x, trial, g))) {
        monitor.stop_line_search_failed(J_trial);
        return;
      }
      if (halvings == 0) {
        for (int doubling = 0; doubling < kMaxDoublings; ++doubling) {
          best = trial;
          trial_point(s, x, g, 2.0 * kappa, trial);
          const double J_wider = f.value(trial);
          if (!(J_wider < J_trial && J_wider <= J + kArmijoSlope * directional_change(x, trial, g))) {
            trial = best;
            break;
          }
          kappa *= 2.0;
          J_trial = J_wider;
        }
      }
    }
    if (!std::isfinite(J_trial)) {  // without the Armijo search: the eq. (56)/(57) step left the feasible designs
      monitor.stop_line_search_failed(J_trial);
      return;
    }
    x = trial;
    J = f.value_and_gradient(x, g);
  }
}

// ---- Barzilai-Borwein -------------------------------------------------------------------------------------

// Written here rather than taken from ROL: ROL's spectral gradient method exists only for bound constraints
// (TypeB) and cannot restart exactly; this is the two-point step of Barzilai and Borwein (1988), as in
// Schubert et al. 2024, in the metric of eq. (57).
void run_barzilai_borwein(Function& f, std::vector<double>& x, const Settings& s, Monitor& monitor) {
  RestartState& state = monitor.state();
  std::vector<double> g(x.size()), trial(x.size());
  double J = f.value_and_gradient(x, g);
  while (monitor.accept(x, J, g)) {
    double alpha;
    if (state.previous_x.empty()) {
      alpha = fraction_step(s, J, g);  // first step: eqs. (56)/(57)
    } else {
      // alpha = s^T W s / s^T y with s = x_k - x_(k-1), y = g_k - g_(k-1) (BB1 step in the metric W)
      double sws = 0.0, sy = 0.0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double si = x[i] - state.previous_x[i];
        sws += si * metric(s, i) * si;
        sy += si * (g[i] - state.previous_gradient[i]);
      }
      alpha = sy > 0.0 ? sws / sy : state.previous_step_length;
    }
    // Non-monotone safeguard of Raydan (1997) / Grippo et al. (1986): accept the BB step if J falls below
    // the largest of the last nonmonotone_memory values (plus the Armijo term), else halve it. Plain BB
    // steps diverge on the strongly nonlinear control problems here.
    double reference = J;
    const std::size_t memory = static_cast<std::size_t>(s.nonmonotone_memory);
    const std::size_t first = state.history.size() > memory ? state.history.size() - memory : 0;
    for (std::size_t k = first; k < state.history.size(); ++k) reference = std::max(reference, state.history[k].objective);
    trial_point(s, x, g, alpha, trial);
    double J_trial = f.value(trial);
    for (int halvings = 0; !(J_trial <= reference + kArmijoSlope * directional_change(x, trial, g)) &&
                           halvings < kMaxHalvings;
         ++halvings) {
      alpha *= 0.5;
      trial_point(s, x, g, alpha, trial);
      J_trial = f.value(trial);
    }
    if (!(J_trial <= reference + kArmijoSlope * directional_change(x, trial, g))) {
      monitor.stop_line_search_failed(J_trial);
      return;
    }
    state.previous_x = x;
    state.previous_gradient = g;
    state.previous_step_length = alpha;
    x = trial;
    J = f.value_and_gradient(x, g);
  }
}

}  // namespace

void Function::hessian_vector(const std::vector<double>&, const std::vector<double>&, std::vector<double>&) {
  throw std::logic_error("this function has no Hessian-vector products");
}

void Function::gauss_newton_vector(const std::vector<double>&, const std::vector<double>&, std::vector<double>&) {
  throw std::logic_error("this function has no Gauss-Newton products");
}

void Function::constraint_values(const std::vector<double>&, std::vector<double>&) {
  throw std::logic_error("this function has no constraints");
}

void Function::constraint_adjoint(const std::vector<double>&, const std::vector<double>&, std::vector<double>&) {
  throw std::logic_error("this function has no constraints");
}

void check_settings(const Settings& s, std::size_t size) {
  const std::vector<std::string> methods = {"lbfgs", "trust_region", "newton_krylov", "gauss_newton", "gradient",
                                            "barzilai_borwein"};
  if (std::find(methods.begin(), methods.end(), s.method) == methods.end())
    throw std::invalid_argument("unknown optimisation method '" + s.method + "'");
  if (s.lower.size() != s.upper.size() || (!s.lower.empty() && s.lower.size() != size))
    throw std::invalid_argument("bounds must have one entry per design scalar");
  for (std::size_t i = 0; i < s.lower.size(); ++i)
    if (!(s.lower[i] <= s.upper[i])) throw std::invalid_argument("lower bound above upper bound");
  if (!s.metric.empty() && s.metric.size() != size) throw std::invalid_argument("metric must have one weight per scalar");
  if (s.nonmonotone_memory < 1) throw std::invalid_argument("nonmonotone_memory must be at least 1");
  if (s.constraint_lower.size() != s.constraint_upper.size())
    throw std::invalid_argument("constraints must have a lower and an upper bound per value");
  if (!s.constraint_lower.empty() && s.method != "lbfgs" && s.method != "trust_region")
    throw std::invalid_argument("method '" + s.method + "' takes no constraints; with constraints the method is ROL's "
                                "augmented Lagrangian with lbfgs or trust_region subproblems");
}

Result minimize(Function& f, const std::vector<double>& x0, const Settings& s, const Observer& observer,
                const RestartState* restart) {
  check_settings(s, restart ? restart->x.size() : x0.size());
  if (s.constraint_lower.size() != f.constraint_count())
    throw std::invalid_argument("constraint bounds must have one entry per constraint value");
  if (constrained(s) && restart)
    throw std::invalid_argument("a run with constraints cannot restart (ROL's augmented Lagrangian keeps its "
                                "multipliers and penalty inside ROL); run again from the design file instead");
  const bool rol = s.method != "gradient" && s.method != "barzilai_borwein";
  // ROL's methods replay a recorded run from the start, x0 (RestartState).
  const bool replay = rol && restart && !restart->evaluations.empty();
  std::vector<double> x = restart && !replay ? restart->x : x0;
  project(s, x);
  Monitor monitor(f, s, observer, restart, replay);
  if (s.method == "gradient") run_gradient(f, x, s, monitor);
  else if (s.method == "barzilai_borwein") run_barzilai_borwein(f, x, s, monitor);
  else run_rol(f, x, s, monitor);
  const RestartState& state = monitor.state();
  Result result;
  result.iterations = monitor.iteration();
  result.last_objective = state.previous_objective;
  result.stop_reason = monitor.stop_reason().empty() ? "the method stopped" : monitor.stop_reason();
  result.converged = monitor.converged();
  // With constraints the lowest J may be infeasible: the result is the last iterate.
  const bool best_is_last = constrained(s) || state.best_x.empty() || state.best_iteration == state.iteration;
  result.x = best_is_last ? state.x : state.best_x;
  result.objective = best_is_last ? state.previous_objective : state.best_objective;
  result.best_iteration = best_is_last ? state.iteration : state.best_iteration;
  if (!best_is_last) {  // a non-monotone run left its best iterate: return that one (not a stationary point)
    std::ostringstream why;
    why << "; returned iteration " << state.best_iteration << ", the lowest J, not the last (J = "
        << state.previous_objective << ")";
    result.stop_reason += why.str();
    result.converged = false;
  }
  result.history = state.history;
  return result;
}

}  // namespace flexadj::optimization
