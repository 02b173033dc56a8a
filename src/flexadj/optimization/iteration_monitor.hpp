#pragma once
// What every optimisation method of optimizer.cpp and rol_methods.cpp shares: the design's bounds and norms, and the
// Monitor that records the accepted iterates, applies the common stopping rules and keeps the restart state.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/optimization/optimizer.hpp"

namespace flexadj::optimization::detail {

inline constexpr double kStallStep = 1e-15;  // relative step below which an iteration made no progress
inline constexpr int kMaxHalvings = 40;       // line searches: step halvings at most

inline bool bounded(const Settings& s) { return !s.lower.empty(); }

inline double clamp(const Settings& s, std::size_t i, double x) {
  return bounded(s) ? std::min(std::max(x, s.lower[i]), s.upper[i]) : x;
}

inline void project(const Settings& s, std::vector<double>& x) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = clamp(s, i, x[i]);
}

inline double norm(const std::vector<double>& x) {
  double sum = 0.0;
  for (double xi : x) sum += xi * xi;
  return std::sqrt(sum);
}

inline double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

// |P(x - g) - x|: zero at a stationary point of the bound-constrained problem. A component with no finite bound
// contributes g_i itself: x_i - g_i - x_i loses g_i below the rounding unit of x_i (a gradient of 1e-16 at
// x = 100 read as exactly 0, a stop on gradient_tolerance 0 that did not hold).
inline double projected_gradient_norm(const Settings& s, const std::vector<double>& x, const std::vector<double>& g) {
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

}  // namespace flexadj::optimization::detail
