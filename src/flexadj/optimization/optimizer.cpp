// The optimisation driver (minimize) and the gradient methods of Nachbagauer et al. 2015 and Barzilai-Borwein;
// ROL's methods are in rol_methods.cpp, the monitor they share in iteration_monitor.hpp.
#include "flexadj/optimization/optimizer.hpp"
#include "flexadj/optimization/rol_constraint.hpp"
#include "flexadj/optimization/rol_methods.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace flexadj::optimization {
namespace {

using namespace detail;
using rol::constrained;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kArmijoSlope = 1e-4;  // sufficient-decrease constant of the Armijo rule
constexpr int kMaxDoublings = 10;

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
