#pragma once
// Helpers for gradient tests: J and its discrete-adjoint gradient for a model, finite differences and
// Taylor remainders of the discrete objective.
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "flexadj/adjoint/discrete_adjoint.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/problem/design_space.hpp"
#include "fd_check.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {

struct Evaluation {
  double value = 0.0;
  adjoint::Gradient gradient;
  std::vector<double> times;  // t_0 .. t_N of the forward run
};

// Runs the forward problem of `problem` (with the direct linear solver) through flexadj::GradientProblem with
// `objective` and, if asked, the discrete adjoint (or, with bdf_order > 0, the continuous adjoint with BDF of that
// order, on adjoint_steps steps of its own if > 0), for all component parameters. `sweep`: an observer of the
// discrete adjoint's steps (SweepOptions::after_step). The initial velocities shifted by initial_velocity_shift,
// if given, for this run.
inline Evaluation evaluate(const problem::Problem& problem, const objectives::Objective& objective,
                           RCP<const Comm> comm, bool with_gradient,
                           const std::vector<double>* initial_velocity_shift = nullptr, int bdf_order = 0,
                           long long adjoint_steps = 0, const adjoint::SweepOptions& sweep = {}) {
  auto run = problem;  // a copy that shares the model
  run.objective_terms = objective.terms();
  run.design_variables.clear();
  run.integrator.linear_solver = "direct";
  model::Model& model = *run.model;
  const std::vector<double> v0 = model.initial_velocities();
  const auto shift = [&](const std::vector<double>& v) {  // the initial velocities the shift touches set to v
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((*initial_velocity_shift)[i] != 0.0)
        flexadj::problem::set_initial_value(model, static_cast<long long>(i), true, v[i]);
  };
  if (initial_velocity_shift) {
    std::vector<double> shifted = v0;
    for (std::size_t i = 0; i < v0.size(); ++i) shifted[i] += (*initial_velocity_shift)[i];
    shift(shifted);
  }
  Evaluation e;
  try {
    GradientProblem gradient_problem(std::move(run), comm, "test");
    AdjointSettings settings;
    settings.storage = "memory";
    if (bdf_order > 0) {
      settings.mode = "continuous";
      settings.bdf_order = bdf_order;
      settings.adjoint_steps = adjoint_steps;
    }
    gradient_problem.set_adjoint(settings);
    gradient_problem.set_sweep_observer(sweep.after_step);
    const GradientEvaluation result = gradient_problem.evaluate(with_gradient);
    e.value = result.objective;
    e.gradient = result.sensitivities;
    e.times = gradient_problem.step_times();
  } catch (...) {
    if (initial_velocity_shift) shift(v0);
    throw;
  }
  if (initial_velocity_shift) shift(v0);
  return e;
}

// On the rigid chain of models.hpp (6 links or more): final squares of the positions of links 1, 2, 5, 6
// (7 coordinates per link) and tracking of a velocity.
inline objectives::Objective rigid_chain_objective() {
  objectives::Objective objective;
  for (long long coordinate : {0, 9, 30, 37}) {
    objectives::ObjectiveTerm term;
    term.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
    term.coordinate = coordinate;
    term.target = 0.1;
    objective.add(term);
  }
  objectives::ObjectiveTerm velocity;
  velocity.kind = objectives::ObjectiveTerm::Kind::Tracking;
  velocity.quantity = objectives::ObjectiveTerm::Quantity::Velocity;
  velocity.coordinate = 23;
  objective.add(velocity);
  return objective;
}

// An objective on the oscillator of models.hpp (coordinate 0): 2 int (x - 0.2 sin 3t)^2 dt / 2 + (v(T) - 0.1)^2 / 2.
inline objectives::Objective oscillator_objective() {
  objectives::Objective objective;
  objectives::ObjectiveTerm tracking;
  tracking.kind = objectives::ObjectiveTerm::Kind::Tracking;
  tracking.coordinate = 0;
  tracking.weight = 2.0;
  tracking.reference = functions::Expression::parse("0.2*sin(3*t)");
  objective.add(tracking);
  objectives::ObjectiveTerm final_velocity;
  final_velocity.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
  final_velocity.quantity = objectives::ObjectiveTerm::Quantity::Velocity;
  final_velocity.coordinate = 0;
  final_velocity.target = 0.1;
  objective.add(final_velocity);
  return objective;
}

// An objective on the spinning body of spinning_top_pendulum(): terminal positions x, y of the centre and
// the Euler parameter e1 (targets 0.05), the tracking of v_z against 0.1 t, and with final_velocity 1/2 v_y(T)^2 (S_v != 0).
inline objectives::Objective spinning_body_objective(bool final_velocity) {
  using objectives::ObjectiveTerm;
  objectives::Objective objective;
  for (long long coordinate : {0, 1, 4}) {
    ObjectiveTerm term;
    term.kind = ObjectiveTerm::Kind::FinalSquare;
    term.coordinate = coordinate;
    term.target = 0.05;
    objective.add(term);
  }
  ObjectiveTerm tracking;
  tracking.kind = ObjectiveTerm::Kind::Tracking;
  tracking.quantity = ObjectiveTerm::Quantity::Velocity;
  tracking.coordinate = 2;
  tracking.reference = functions::Expression::parse("0.1*t");
  objective.add(tracking);
  if (final_velocity) {
    ObjectiveTerm velocity;
    velocity.kind = ObjectiveTerm::Kind::FinalSquare;
    velocity.quantity = ObjectiveTerm::Quantity::Velocity;
    velocity.coordinate = 1;
    objective.add(velocity);
  }
  return objective;
}

// On spring_pendulum (models.hpp): J = 1/2 (x(T) - 0.3)^2 + 1/2 int (v_y - t/2)^2 dt.
inline objectives::Objective spring_pendulum_objective() {
  using objectives::ObjectiveTerm;
  objectives::Objective objective;
  ObjectiveTerm final_x;
  final_x.kind = ObjectiveTerm::Kind::FinalSquare;
  final_x.coordinate = 0;
  final_x.target = 0.3;
  objective.add(final_x);
  ObjectiveTerm tracking;
  tracking.kind = ObjectiveTerm::Kind::Tracking;
  tracking.quantity = ObjectiveTerm::Quantity::Velocity;
  tracking.coordinate = 1;
  tracking.reference = functions::Expression::parse("0.5*t");
  objective.add(tracking);
  return objective;
}

// Held and Seifried's Table 1 (docs/results.md): dpsi/dl of meshes/torsional_pendulum_state_space.yaml at
// h = 2e-3, 1e-3, 5e-4 s by `gradient`, against the closed form eq. (39) (m = 2, l = 1.5, c_r = 5, alpha0 = pi/2,
// t1 = 10), and the Richardson extrapolation without the h^2 and h^3 terms of the error expansion
// c2 h^2 + c3 h^3 + O(h^4). Prints each step.
struct Table1 {
  double exact = 0.0, extrapolated = 0.0;
  std::vector<double> gradients;  // at the three steps
  double order(int k) const { return std::log2((gradients[k] - exact) / (gradients[k + 1] - exact)); }
  double relative_error() const { return std::abs(extrapolated - exact) / std::abs(exact); }
};

inline Table1 held_seifried_table1(
    const std::function<Evaluation(const problem::Problem&, const objectives::Objective&)>& gradient) {
  const double m = 2.0, l = 1.5, c_r = 5.0, alpha0 = M_PI / 2, t1 = 10.0;
  const double w = std::sqrt(c_r / (m * l * l)), phase = alpha0 * std::cos(w * t1);
  Table1 table;
  const double exact = std::sin(phase) + alpha0 * t1 / l * std::sqrt(c_r / m) * std::cos(phase) * std::sin(w * t1);
  table.exact = exact;
  auto& g = table.gradients;
  for (const char* step : {"2e-3", "1e-3", "5e-4"}) {
    const std::string file = std::string(FLEXADJ_SOURCE_DIR) + "/meshes/torsional_pendulum_state_space.yaml";
    auto problem = io::read_problem_file(file, {std::string("integrator.step_size=") + step});
    const Evaluation e = gradient(problem, objectives::Objective(problem.objective_terms));
    g.push_back(e.gradient.parameters[model::ParameterSpace(*problem.model).find("rod.length")]);
    std::printf("h = %s: dpsi/dl = %.15f, error %.3e (relative %.3e)\n", step, g.back(), g.back() - exact,
                std::abs(g.back() - exact) / std::abs(exact));
  }
  const double r1 = (4.0 * g[1] - g[0]) / 3.0, r2 = (4.0 * g[2] - g[1]) / 3.0;  // without h^2
  table.extrapolated = (8.0 * r2 - r1) / 7.0;                                    // without h^3
  std::printf("closed form %.15f; orders %.3f, %.3f; h^2 removed: errors %.3e, %.3e; h^2 and h^3 removed: %.15f, "
              "relative error %.3e\n", exact, table.order(0), table.order(1), r1 - exact, r2 - exact,
              table.extrapolated, table.relative_error());
  return table;
}

// The overhead crane of meshes/ in motion: F = 300 N, M = 80 N m for 0.8 s (extra overrides, e.g. the step).
inline problem::Problem moving_crane(const std::vector<std::string>& overrides = {}) {
  std::vector<std::string> all{"integrator.end_time=0.8", "integrator.newton_tolerance=1e-12", "controls[0].value=300",
                               "controls[1].value=80"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/overhead_crane.yaml", all);
}

// An objective on the moving crane's load: tracking of x against t^2/2 and 1/2 (y(T) + 3.5)^2.
inline objectives::Objective crane_load_objective() {
  using objectives::ObjectiveTerm;
  objectives::Objective objective;
  ObjectiveTerm load_x;
  load_x.kind = ObjectiveTerm::Kind::Tracking;
  load_x.coordinate = 3;
  load_x.reference = functions::Expression::parse("0.5*t^2");
  objective.add(load_x);
  ObjectiveTerm load_y;
  load_y.kind = ObjectiveTerm::Kind::FinalSquare;
  load_y.coordinate = 4;
  load_y.target = -3.5;
  objective.add(load_y);
  return objective;
}

// Central difference of J along parameter `index`, step relative_step |p| (relative_step if p = 0).
inline CentralDifference central_difference(problem::Problem& problem, const objectives::Objective& objective,
                                            RCP<const Comm> comm, int index, double relative_step = 1e-6) {
  model::Model& model = *problem.model;
  const model::ParameterSpace space(model);
  const double p = space.value(model, index);
  const double h = testing::relative_step(p, relative_step);
  space.set_value(model, index, p + h);
  const double plus = evaluate(problem, objective, comm, false).value;
  space.set_value(model, index, p - h);
  const double minus = evaluate(problem, objective, comm, false).value;
  space.set_value(model, index, p);
  return {(plus - minus) / (2.0 * h), h};
}

// Central difference of J along value k of a control signal, with absolute step h.
inline CentralDifference control_central_difference(problem::Problem& problem, const objectives::Objective& objective,
                                                    RCP<const Comm> comm, functions::ControlSignal& signal,
                                                    std::size_t k, double h) {
  std::vector<double> values = signal.values();
  const double original = values[k];
  values[k] = original + h;
  signal.set_values(values);
  const double plus = evaluate(problem, objective, comm, false).value;
  values[k] = original - h;
  signal.set_values(values);
  const double minus = evaluate(problem, objective, comm, false).value;
  values[k] = original;
  signal.set_values(values);
  return {(plus - minus) / (2.0 * h), h};
}

// Central difference of J along the given initial velocity of global coordinate `coordinate`, absolute step h.
inline CentralDifference initial_velocity_central_difference(problem::Problem& problem,
                                                             const objectives::Objective& objective,
                                                             RCP<const Comm> comm, long long coordinate, double h) {
  std::vector<double> shift(problem.model->coordinate_count(), 0.0);
  shift[coordinate] = h;
  const double plus = evaluate(problem, objective, comm, false, &shift).value;
  shift[coordinate] = -h;
  const double minus = evaluate(problem, objective, comm, false, &shift).value;
  return {(plus - minus) / (2.0 * h), h};
}

// Central difference of J along the given initial position (coordinate `coordinate` of body `body`), absolute step h.
inline CentralDifference initial_position_central_difference(problem::Problem& problem,
                                                             const objectives::Objective& objective,
                                                             RCP<const Comm> comm, int body, int coordinate, double h) {
  model::Model& model = *problem.model;
  const double x0 = model.body(body).initial_coordinates[coordinate];
  model.set_initial_value(body, coordinate, false, x0 + h);
  const double plus = evaluate(problem, objective, comm, false).value;
  model.set_initial_value(body, coordinate, false, x0 - h);
  const double minus = evaluate(problem, objective, comm, false).value;
  model.set_initial_value(body, coordinate, false, x0);
  return {(plus - minus) / (2.0 * h), h};
}

// Taylor remainders along a direction over the values of one control signal (gradient: dJ/du of that
// signal at the current values); returns the observed orders.
inline std::vector<double> control_taylor_orders(problem::Problem& problem, const objectives::Objective& objective,
                                                 RCP<const Comm> comm, functions::ControlSignal& signal,
                                                 const std::vector<double>& gradient,
                                                 const std::vector<double>& direction, double h0,
                                                 std::vector<double>* remainders_out = nullptr) {
  const double base = evaluate(problem, objective, comm, false).value;
  const std::vector<double> u0 = signal.values();
  double slope = 0.0;
  for (std::size_t k = 0; k < u0.size(); ++k) slope += gradient[k] * direction[k];
  std::vector<double> remainders;
  for (double h = h0; remainders.size() < 4; h *= 0.5) {
    std::vector<double> u(u0);
    for (std::size_t k = 0; k < u.size(); ++k) u[k] += h * direction[k];
    signal.set_values(u);
    remainders.push_back(std::abs(evaluate(problem, objective, comm, false).value - base - h * slope));
  }
  signal.set_values(u0);
  std::vector<double> orders;
  for (std::size_t k = 1; k < remainders.size(); ++k) orders.push_back(std::log2(remainders[k - 1] / remainders[k]));
  if (remainders_out) *remainders_out = remainders;
  return orders;
}

// Taylor remainders |J(p + h dp) - J(p) - h dJ.dp| for h = h0, h0/2, h0/4, h0/8 along direction dp
// over the listed parameters; returns the observed orders log2(r(h)/r(h/2)).
inline std::vector<double> taylor_orders(problem::Problem& problem, const objectives::Objective& objective,
                                         RCP<const Comm> comm, const std::vector<int>& indices,
                                         const std::vector<double>& direction, double h0,
                                         std::vector<double>* remainders_out = nullptr) {
  model::Model& model = *problem.model;
  const model::ParameterSpace space(model);
  const Evaluation base = evaluate(problem, objective, comm, true);
  double slope = 0.0;
  std::vector<double> p0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    slope += base.gradient.parameters[indices[k]] * direction[k];
    p0.push_back(space.value(model, indices[k]));
  }
  std::vector<double> remainders;
  for (double h = h0; remainders.size() < 4; h *= 0.5) {
    for (std::size_t k = 0; k < indices.size(); ++k) space.set_value(model, indices[k], p0[k] + h * direction[k]);
    remainders.push_back(std::abs(evaluate(problem, objective, comm, false).value - base.value - h * slope));
  }
  for (std::size_t k = 0; k < indices.size(); ++k) space.set_value(model, indices[k], p0[k]);
  std::vector<double> orders;
  for (std::size_t k = 1; k < remainders.size(); ++k) orders.push_back(std::log2(remainders[k - 1] / remainders[k]));
  if (remainders_out) *remainders_out = remainders;
  return orders;
}

// spring_pendulum(steps) of models.hpp integrated by `scheme`; its objective is spring_pendulum_objective().
inline problem::Problem damped_rod_pendulum(const std::string& scheme, long long steps = 300) {
  auto problem = spring_pendulum(steps);
  problem.integrator.scheme = scheme;
  return problem;
}

}  // namespace flexadj::testing
