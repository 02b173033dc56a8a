#include "flexadj/adjoint/continuous_adjoint.hpp"

#include <array>
#include <cmath>

#include <Teuchos_CommHelpers.hpp>

#include "flexadj/adjoint/forward_interpolation.hpp"
#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/integrators/end_condition.hpp"
#include "flexadj/objectives/terminal_rate.hpp"

namespace flexadj::adjoint {
namespace {

// BDF coefficients alpha_0..alpha_k of dF/dtau(tau_n) ~ (1/h) sum_i alpha_i F(tau_{n-i}) (Nachbagauer et al.
// 2015, eq. (42); Hairer and Wanner, Solving ODEs II, sec. III.1).
constexpr int kMaxBdfOrder = 4;
constexpr std::array<std::array<double, kMaxBdfOrder + 1>, kMaxBdfOrder + 1> kBdf{{
    {0.0, 0.0, 0.0, 0.0, 0.0},
    {1.0, -1.0, 0.0, 0.0, 0.0},
    {1.5, -2.0, 0.5, 0.0, 0.0},
    {11.0 / 6.0, -3.0, 1.5, -1.0 / 3.0, 0.0},
    {25.0 / 12.0, -4.0, 3.0, -4.0 / 3.0, 0.25},
}};

double local_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The adjoint's grid: the forward grid if its steps are constant and no own steps are asked for, else `steps`
// constant steps over [t_0, t_N] (as many as the forward run's if 0).
std::vector<double> adjoint_grid(const std::vector<double>& times, long long steps) {
  const std::size_t last = times.size() - 1;
  const double h = times[1] - times[0];
  bool constant = true;
  for (std::size_t i = 1; i <= last; ++i) constant = constant && std::abs(times[i] - times[i - 1] - h) <= 1e-9 * h;
  if (steps == 0 && constant) return times;
  if (steps == 0) steps = static_cast<long long>(last);
  std::vector<double> grid(static_cast<std::size_t>(steps) + 1);
  for (long long j = 0; j <= steps; ++j)
    grid[j] = times.front() + (times.back() - times.front()) * (double(j) / double(steps));
  grid.back() = times.back();
  return grid;
}

// A final time that moves (Bestle and Eberhard 1992, sec. 3). J = S(y(t1), t1) + int_t0^t1 F dt with
// y = (q, v), dy/dt = (v, a); with the states following the solution, dJ/dt1 = F(t1) + S_t + S_q v + S_v a.
// - Free final time (design variable end_time): that is dJ/dt1 itself (returned).
// - Implicit final time, H(y(t1)) = 0 (integrators/end_condition.hpp): varying p moves t1 by
//   dt1/dp = -(H_y dy/dp + H_p) / (dH/dt), dH/dt = H_q v + H_v a (eqs. (43)-(45), reconstructed: the text
//   lost the equations, this is the variation of J + tau H with tau chosen so that the dt1 terms cancel), so the
//   adjoint starts from the terminal partials S_y + tau H_y with tau = -(dJ/dt1)/(dH/dt), the multiplier of H at
//   t1 (eq. (43)); the gradient gets tau H_p (eq. (51); H here holds no parameter: 0) and nothing else.
// Adds tau H_q, tau H_v to s_q, s_v; returns dJ/dt1 of a free final time, else 0. Collective.
double add_final_time_terms(const assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                            const objectives::Objective& objective, const assembly::State& terminal, double t1,
                            std::vector<double>& s_q, std::vector<double>& s_v) {
  const integrators::IntegratorSettings& settings = integrator.settings();
  const integrators::EndCondition* end = settings.end_condition.get();
  const bool free_final_time = settings.fixed_steps > 0 && !end;
  if (!end && !free_final_time) return 0.0;
  const bool root = assembler.comm()->getRank() == 0;
  std::array<double, 2> local{objectives::local_integrand_value(objective, assembler, t1, terminal) +
                                  local_dot(s_q, terminal.v) + local_dot(s_v, terminal.a) +
                                  (root ? objectives::final_time_weight(objective) : 0.0),
                              0.0};
  const std::size_t n = s_q.size();
  std::vector<double> dH_dq(n, 0.0), dH_dv(n, 0.0);
  if (end) {
    end->add_partials(assembler, terminal, dH_dq, dH_dv);
    local[1] = local_dot(dH_dq, terminal.v) + local_dot(dH_dv, terminal.a);
  }
  std::array<double, 2> rate{};
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, 2, local.data(), rate.data());
  if (free_final_time) return rate[0];
  if (!(std::abs(rate[1]) > 0.0) || !std::isfinite(rate[1]))
    throw SolverError("the end condition " + end->description() + " is met tangentially (dH/dt = " +
                      std::to_string(rate[1]) + " at the end of the run): its time has no derivative");
  const double tau = -rate[0] / rate[1];  // Bestle and Eberhard 1992, eq. (43)
  for (std::size_t i = 0; i < n; ++i) {
    s_q[i] += tau * dH_dq[i];
    s_v[i] += tau * dH_dv[i];
  }
  return 0.0;
}

}  // namespace

Gradient continuous_adjoint_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                     storage::Trajectory& trajectory, const objectives::Objective& objective,
                                     const model::ParameterSpace& parameters, const ContinuousAdjointOptions& options) {
  using assembly::ConstraintLevel;
  using Partials = objectives::Objective::Partials;
  const std::string source = assembler.model().source_file;
  if (options.bdf_order < 1 || options.bdf_order > kMaxBdfOrder)
    throw InputError(source, "adjoint.bdf_order", "expected an integer from 1 to 4, got " +
                                                       std::to_string(options.bdf_order));
  if (options.adjoint_steps < 0)
    throw InputError(source, "--adjoint-steps", "expected a positive step count, got " +
                                                     std::to_string(options.adjoint_steps));
  const auto& times = trajectory.step_times();
  if (times.size() < 2) throw InputError(source, "integrator", "the continuous adjoint needs at least one step");
  // The adjoint's own constant step (BDF-k, eq. (42)); the forward states are interpolated at its times
  // (forward_interpolation.hpp), exactly the stored ones where the grids meet.
  const std::vector<double> grid = adjoint_grid(times, options.adjoint_steps);
  const std::size_t last = grid.size() - 1;
  const double h = grid == times ? times[1] - times[0] : (grid.back() - grid.front()) / double(last);

  const std::size_t n = assembler.dofs().owned_coordinates().size(), m = assembler.dofs().owned_multipliers().size();
  // J from the stored states as they enter the window (each once): the trajectory is never read forward again.
  std::vector<double> objective_parts(times.size());
  InterpolatedForwardStates forward(trajectory, assembler.make_state(),
                                    [&](std::size_t step, const assembly::State& state) {
                                      objective_parts[step] = objective.local_step_value(assembler, times, step, state);
                                    });
  assembly::LocalGradient local = make_local_gradient(assembler.model(), parameters);

  Vector rhs(assembler.system_map()), solution(assembler.system_map()), mu(assembler.system_map());
  std::vector<double> w(n), p(n), h_q(n), h_v(n), s_q(n), s_v(n), xi(m), eta(m), multiplier(m), y_k(n), y_d(n),
      y_m(n), scratch(n);
  // p and M^T w of the previous k steps (ring buffers: BDF history, eq. (50)).
  std::array<std::vector<double>, kMaxBdfOrder> p_history, mw_history;
  for (int i = 0; i < options.bdf_order; ++i) {
    p_history[i].assign(n, 0.0);
    mw_history[i].assign(n, 0.0);
  }
  auto history = [&](std::array<std::vector<double>, kMaxBdfOrder>& ring, std::size_t step) -> std::vector<double>& {
    return ring[step % options.bdf_order];
  };
  // [coordinate_factor * coordinates; multiplier_factor * multipliers] (no multipliers: zeros).
  auto set_system_vector = [&](Vector& vector, const std::vector<double>& coordinates, double coordinate_factor,
                               const std::vector<double>& multipliers, double multiplier_factor) {
    assembly::SystemVectorView(vector, n).assign(coordinates, coordinate_factor,
                                                 multipliers.empty() ? nullptr : &multipliers, multiplier_factor);
  };

  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  // ---- terminal conditions at t = T (tau = 0), eqs. (37)-(39) -----------------------------------------------
  const assembly::State terminal = forward.at(grid[last]);
  const double t_end = grid[last];
  std::fill(s_q.begin(), s_q.end(), 0.0);
  std::fill(s_v.begin(), s_v.end(), 0.0);
  std::fill(h_q.begin(), h_q.end(), 0.0);
  std::fill(h_v.begin(), h_v.end(), 0.0);
  objective.add_partials(assembler, grid, last, terminal, s_q, s_v, Partials::Terminal);
  objective.add_partials(assembler, grid, last, terminal, h_q, h_v, Partials::Integrand);
  const double final_time_rate = add_final_time_terms(assembler, integrator, objective, terminal, t_end, s_q, s_v);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler.assemble(terminal, t_end, ConstraintLevel::Acceleration, 1.0, &mass_only);
  // Solves with A^T: the assembler fills the transpose, the solver is the forward run's kind.
  auto solver = linalg::make_linear_solver(assembler.matrix(), integrator.solver_options());
  solver->update();
  auto solve = [&](std::vector<double>& coordinates, std::vector<double>& multipliers, double multiplier_factor) {
    solver->solve(rhs, solution);
    assembly::ConstSystemVectorView(solution, n).extract(&coordinates, &multipliers);
    for (double& value : multipliers) value = multiplier_factor * value;
  };
  // Eq. (38): [M^T C_q^T; C_q 0] [w; xi] = [-S_v; 0].
  set_system_vector(rhs, s_v, -1.0, {}, 0.0);
  solve(w, xi, 1.0);
  // Eq. (39): p = -S_q - (C_q v)_q^T xi.
  std::fill(p.begin(), p.end(), 0.0);
  std::fill(scratch.begin(), scratch.end(), 0.0);
  assembler.add_constraint_level_transposed(terminal, t_end, ConstraintLevel::Velocity, xi, p, scratch);
  for (std::size_t i = 0; i < n; ++i) p[i] = -s_q[i] - p[i];
  // The hidden constraint d/dt (C_q w) = 0 of eq. (26) at T, with M^T dw/dt = h_v - p + D^T w - (dM/dt)^T w
  // from eq. (25): p += C_q^T eta with
  //   C_q M^-T C_q^T eta = C_q M^-T (h_v - p + D^T w - (dM/dt)^T w) + (dC_q/dt) w,
  // a solve with the matrix of eq. (38). Eqs. (37)-(39) alone leave p(T) off this constraint; BDF-k then
  // absorbs the jump into mu over its first steps, which misses the jump's share of dJ/dp for constraint
  // parameters and, if w(T) != 0, costs an order of the whole gradient. (dM/dt)^T w and (dC_q/dt) w come from
  // second-order backward differences on the stored steps (they vanish with w(T) = 0, i.e. S_v = 0).
  assembler.adjoint_products(terminal, t_end, w, {}, false, y_k, y_d, y_m);
  Vector system_w(assembler.system_map()), product(assembler.system_map());
  set_system_vector(system_w, w, 1.0, {}, 0.0);
  std::vector<double> mw_rate(n, 0.0), cq_w_rate(m, 0.0);
  // The states of the two steps below T, kept: the sweep below starts there and the interpolation reads the
  // trajectory downwards only.
  std::array<assembly::State, 3> near_end{terminal, terminal, terminal};
  if (last >= 2) {
    near_end[1] = forward.at(grid[last - 1]);
    near_end[2] = forward.at(grid[last - 2]);
    const double difference[3] = {1.5 / h, -2.0 / h, 0.5 / h};
    for (int j = 2; j >= 0; --j) {
      const assembly::State& state_j = near_end[j];
      assembler.adjoint_products(state_j, grid[last - j], w, {}, false, y_k, y_d, y_m);
      for (std::size_t i = 0; i < n; ++i) mw_rate[i] += difference[j] * y_m[i];
      assembler.assemble(state_j, grid[last - j], ConstraintLevel::Acceleration, 1.0, &mass_only);
      assembler.matrix()->apply(system_w, product);
      const assembly::ConstSystemVectorView cq_w(product, n);
      for (std::size_t k = 0; k < m; ++k) cq_w_rate[k] += difference[j] * cq_w.multipliers()[k];
    }
    solver->update();  // the matrix is that of T again
  }
  for (std::size_t i = 0; i < n; ++i) scratch[i] = h_v[i] - p[i] + y_d[i] - mw_rate[i];
  set_system_vector(rhs, scratch, 1.0, cq_w_rate, -1.0);
  solve(y_k, eta, 1.0);
  const std::vector<double> zero(n, 0.0);
  assembler.adjoint_products(terminal, t_end, zero, eta, true, y_k, y_d, y_m);
  for (std::size_t i = 0; i < n; ++i) p[i] += y_k[i];
  // Boundary terms of a constraint parameter at T: with C_q dq + C_p dp = 0 and the velocity-level variation
  // of eq. (33) with its parameter term, dJ/dp += -eta . C_p + xi . (C_q v + C_t)_p.
  set_system_vector(mu, zero, 0.0, eta, -1.0);
  assembler.add_parameter_gradient(terminal, t_end, mu, ConstraintLevel::Position, true, local);
  set_system_vector(mu, zero, 0.0, xi, 1.0);
  assembler.add_parameter_gradient(terminal, t_end, mu, ConstraintLevel::Velocity, true, local);
  // Eq. (52) by the trapezoidal rule: the w-part of the end point now, its mu-part once mu(T) is extrapolated.
  set_system_vector(mu, w, 0.5 * h, {}, 0.0);
  assembler.add_parameter_gradient(terminal, t_end, mu, ConstraintLevel::Position, false, local);
  assembler.adjoint_products(terminal, t_end, w, {}, false, y_k, y_d, y_m);
  history(p_history, last) = p;
  history(mw_history, last) = y_m;

  // ---- BDF-k backwards, eqs. (46), (49)-(51) ---------------------------------------------------------------
  const int startup_layer = options.bdf_order + 1;  // steps after T whose mu BDF-k gets wrong
  const bool extrapolate = static_cast<int>(last) > startup_layer + 3;  // else too few steps: the BDF values
  // The states of the layer, kept for the extrapolation after the sweep (index last - step; 0 is `terminal`).
  std::vector<assembly::State> layer_states(extrapolate ? startup_layer + 1 : 0);
  std::array<std::vector<double>, 3> mu_after_layer{std::vector<double>(m, 0.0), std::vector<double>(m, 0.0),
                                                     std::vector<double>(m, 0.0)};
  for (std::size_t step = last; step-- > 0;) {
    const int k = std::min<int>(options.bdf_order, static_cast<int>(last - step));
    const auto& alpha = kBdf[k];
    const assembly::State* state = last >= 2 && last - step <= 2 ? &near_end[last - step] : &forward.at(grid[step]);
    const double t = grid[step];
    if (extrapolate && static_cast<int>(last - step) <= startup_layer) layer_states[last - step] = *state;
    std::fill(h_q.begin(), h_q.end(), 0.0);
    std::fill(h_v.begin(), h_v.end(), 0.0);
    objective.add_partials(assembler, grid, step, *state, h_q, h_v, Partials::Integrand);
    // Eq. (50): r = -alpha_0 h h_v - h^2 h_q - sum_i alpha_i (h p_{n-i} + alpha_0 M w_{n-i}) (tau numbering).
    for (std::size_t i = 0; i < n; ++i) scratch[i] = -alpha[0] * h * h_v[i] - h * h * h_q[i];
    for (int j = 1; j <= k; ++j) {
      const auto& p_j = history(p_history, step + j);
      const auto& mw_j = history(mw_history, step + j);
      for (std::size_t i = 0; i < n; ++i) scratch[i] -= alpha[j] * (h * p_j[i] + alpha[0] * mw_j[i]);
    }
    // Eq. (51) divided by alpha_0^2: W / alpha_0^2 = (h/alpha_0)^2 K^T + (h/alpha_0) D^T + M^T is the transposed
    // Newton matrix with scale (h/alpha_0)^2 and coefficients (1, alpha_0/h, (alpha_0/h)^2) (A = K^T, B = -D^T
    // in eq. (29)/(30) with R = M a - Q + C_q^T lambda); its multiplier part is (h/alpha_0)^2 mu.
    const double scale = (h / alpha[0]) * (h / alpha[0]);
    const model::JacobianCoefficients coefficients{1.0, alpha[0] / h, alpha[0] * alpha[0] / (h * h)};
    assembler.assemble(*state, t, ConstraintLevel::Position, scale, &coefficients);
    solver->update();
    set_system_vector(rhs, scratch, 1.0 / (alpha[0] * alpha[0]), {}, 0.0);
    solve(w, multiplier, 1.0 / scale);
    // Eq. (46): p = -(h/alpha_0)(h_q + A w + C_q^T mu) - (1/alpha_0) sum_i alpha_i p_{n-i}.
    assembler.adjoint_products(*state, t, w, multiplier, false, y_k, y_d, y_m);
    for (std::size_t i = 0; i < n; ++i) p[i] = -(h / alpha[0]) * (h_q[i] + y_k[i]);
    for (int j = 1; j <= k; ++j) {
      const auto& p_j = history(p_history, step + j);
      for (std::size_t i = 0; i < n; ++i) p[i] -= alpha[j] / alpha[0] * p_j[i];
    }
    // Eq. (52) with the terms of eq. (20): integrand w . dR/dp + mu . dC/dp (R = M a - Q + C_q^T lambda, so a
    // parameter of the mass matrix contributes w . M_p a), trapezoidal weights. The mu-part of the first
    // steps waits (see below).
    const double weight = step > 0 ? h : 0.5 * h;
    const bool in_startup_layer = extrapolate && static_cast<int>(last - step) <= startup_layer;
    set_system_vector(mu, w, weight, multiplier, in_startup_layer ? 0.0 : weight);
    assembler.add_parameter_gradient(*state, t, mu, ConstraintLevel::Position, false, local);
    const int after_layer = static_cast<int>(last - step) - startup_layer - 1;
    if (after_layer >= 0 && after_layer < 3) mu_after_layer[after_layer] = multiplier;
    history(p_history, step) = p;
    history(mw_history, step) = y_m;
  }
  // BDF-k determines the multipliers of an index-3 system to O(h^k) only after its first k + 1 steps
  // (Brenan, Campbell and Petzold 1996, sec. 3.2); there mu is off by O(1), and with it h . mu . dC/dp. The
  // mu-part of the quadrature there (and at T, where the terminal conditions give no mu) uses the quadratic
  // extrapolation of the three multipliers after that layer.
  if (extrapolate) {
    for (int j = 0; j <= startup_layer; ++j) {
      const std::size_t step = last - j;
      const double x = startup_layer + 1 - j;  // in steps after the first multiplier past the layer
      const double l0 = (x + 1) * (x + 2) / 2, l1 = -x * (x + 2), l2 = x * (x + 1) / 2;
      for (std::size_t k = 0; k < m; ++k)
        multiplier[k] = l0 * mu_after_layer[0][k] + l1 * mu_after_layer[1][k] + l2 * mu_after_layer[2][k];
      set_system_vector(mu, zero, 0.0, multiplier, j == 0 ? 0.5 * h : h);
      assembler.add_parameter_gradient(j == 0 ? terminal : layer_states[j], grid[step], mu,
                                       ConstraintLevel::Position, true, local);
    }
  }

  // ---- the initial state: dJ = -p(0) . dq_0 - (M^T w(0)) . dv_0 (boundary terms of eq. (22)) --------------
  forward.read_remaining();
  const assembly::State& initial = forward.at(grid[0]);
  std::vector<double> dJ_dq(n), dJ_dv(n);
  for (std::size_t i = 0; i < n; ++i) {
    dJ_dq[i] = -p[i];
    dJ_dv[i] = -y_m[i];
  }
  integrator.add_initial_projection_adjoint(*solver, initial, times[0], dJ_dq, dJ_dv, local);
  const double objective_value = objective.total(assembler, times, objective_parts);
  Gradient gradient = reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
  gradient.final_time = final_time_rate;
  return gradient;
}

}  // namespace flexadj::adjoint
