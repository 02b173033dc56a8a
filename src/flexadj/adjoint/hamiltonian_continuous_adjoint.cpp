#include "flexadj/adjoint/hamiltonian_continuous_adjoint.hpp"

#include <algorithm>

#include "flexadj/adjoint/initial_state_gradient.hpp"

namespace flexadj::adjoint {

namespace {

using Partials = objectives::Objective::Partials;

// The stored states read backwards, each with sigma(t) in place of lambda (the gauge sigma(t1) = 0, its rate
// Hamiltonian::hamiltonian_multipliers integrated by the trapezoidal rule), the objective's integrand partials and
// its step values.
class GaugedStates {
 public:
  GaugedStates(assembly::Assembler& assembler, integrators::Hamiltonian& integrator, storage::Trajectory& trajectory,
               const objectives::Objective& objective, const assembly::LocalGradient& no_direction)
      : assembler_(assembler), integrator_(integrator), trajectory_(trajectory), objective_(objective),
        no_direction_(no_direction), times(trajectory.step_times()), objective_parts(times.size()),
        point(assembler.make_state()), sigma_rate(point.lambda.size()), h_q(point.q.size()), h_v(point.q.size()) {}

  void load(std::size_t step) {
    state = trajectory_.step(step);
    later_rate_ = sigma_rate;
    integrator_.hamiltonian_multipliers(state, times[step], no_direction_, sigma_rate);
    if (step + 1 == times.size()) {
      std::fill(point.lambda.begin(), point.lambda.end(), 0.0);
    } else {
      const double h = times[step + 1] - times[step];
      for (std::size_t k = 0; k < point.lambda.size(); ++k)
        point.lambda[k] -= 0.5 * h * (sigma_rate[k] + later_rate_[k]);
    }
    point.q = state.q;
    point.v = state.v;
    point.a = state.a;
    objective_parts[step] = objective_.local_step_value(assembler_, times, step, state);
    std::fill(h_q.begin(), h_q.end(), 0.0);
    std::fill(h_v.begin(), h_v.end(), 0.0);
    objective_.add_partials(assembler_, times, step, state, h_q, h_v, Partials::Integrand);
  }

 private:
  assembly::Assembler& assembler_;
  integrators::Hamiltonian& integrator_;
  storage::Trajectory& trajectory_;
  const objectives::Objective& objective_;
  const assembly::LocalGradient& no_direction_;
  std::vector<double> later_rate_;

 public:
  const std::vector<double>& times;
  std::vector<double> objective_parts;
  assembly::State state, point;  // the stored state; point: its q, v, a with lambda = sigma(t)
  std::vector<double> sigma_rate, h_q, h_v;
};

}  // namespace

Gradient hamiltonian_continuous_adjoint_gradient(assembly::Assembler& assembler, integrators::Hamiltonian& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters, HamiltonianAdjointForm form,
                                                 AdjointConstraintHistory* history) {
  const model::Model& model = assembler.model();
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last =
      forward_grid_last_step(model, integrator, times, "--continuous-form", "the Hamiltonian continuous adjoint");
  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(trajectory);
  const std::size_t n = assembler.dofs().owned_coordinates().size();

  assembly::LocalGradient local = make_local_gradient(model, parameters), terms = local, ignored = local,
                          no_direction = local;
  GaugedStates s(assembler, integrator, trajectory, objective, no_direction);
  assembly::State& point = s.point;
  const std::size_t m = point.lambda.size();
  assembly::State work = assembler.make_state(), shifted = assembler.make_state();
  std::vector<double> xi(n), pi(n), eta(n), mu(m), q_bar(n), v_bar(n), minus_xi(n), sigma_bar(m);
  auto record = [&](std::size_t step) {
    if (history) history->record(assembler, step, times[step], point.q, xi, work);
  };
  if (history) history->reset(times.size());

  // The index-2 form's rate (d xi/dt, d Pi/dt) = (eta, -h_q - q_bar) at the loaded step for (x, p); eta and mu into
  // eta_out, mu_out; weight * the gradient's integrand into `local`.
  auto index2_rate = [&](std::size_t step, const std::vector<double>& x, const std::vector<double>& p, double weight,
                         std::vector<double>& eta_out, std::vector<double>& rate_pi, std::vector<double>* mu_out) {
    std::fill(q_bar.begin(), q_bar.end(), 0.0);
    std::fill(sigma_bar.begin(), sigma_bar.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      v_bar[i] = p[i] + s.h_v[i];
      minus_xi[i] = -x[i];
    }
    terms.clear();
    // -F^T xi: v_bar = Pi + h_v - A xi, sigma_bar = -D'^T xi, q_bar = -F_q^T xi, terms = -xi . F_p.
    integrator.rate_adjoint(point, times[step], minus_xi, q_bar, v_bar, sigma_bar, terms);
    // [eta; mu] from the matrix of (6a); q_bar -= p~_q^T eta + (C_q v + C_t)_q^T mu, terms -= their p parts.
    integrator.momentum_system_adjoint(point, times[step], v_bar, &sigma_bar, eta_out, q_bar, terms);
    for (std::size_t i = 0; i < n; ++i) rate_pi[i] = -s.h_q[i] - q_bar[i];
    if (mu_out)
      for (std::size_t k = 0; k < m; ++k) (*mu_out)[k] = -integrator.multipliers()[k];
    if (weight != 0.0) local.add_scaled(weight, terms);
  };

  // Terminal values (A.4a)-(A.4c): xi = -nu, Pi = S_q^T - p~_q^T nu - (C_q v + C_t)_q^T epsilon.
  s.load(last);
  std::vector<double> s_q(n, 0.0), s_v(n, 0.0), nu(n);
  objective.add_partials(assembler, times, last, s.state, s_q, s_v, Partials::Terminal);
  integrator.momentum_system_adjoint(point, times[last], s_v, nullptr, nu, s_q, local);
  for (std::size_t i = 0; i < n; ++i) {
    xi[i] = -nu[i];
    pi[i] = s_q[i];
  }
  record(last);

  if (form == HamiltonianAdjointForm::Index2) {
    // Heun backwards: y* = y_n - h g(t_n, y_n), y_{n-1} = y_n - h/2 (g(t_n, y_n) + g(t_{n-1}, y*)).
    std::vector<double> rate_xi(n), rate_pi(n), star_xi(n), star_pi(n), star_rate_xi(n), star_rate_pi(n);
    index2_rate(last, xi, pi, trapezoidal_weight(times, last), rate_xi, rate_pi, nullptr);
    for (std::size_t step = last; step-- > 0;) {
      const double h = times[step + 1] - times[step];
      for (std::size_t i = 0; i < n; ++i) {
        star_xi[i] = xi[i] - h * rate_xi[i];
        star_pi[i] = pi[i] - h * rate_pi[i];
      }
      s.load(step);
      index2_rate(step, star_xi, star_pi, 0.0, star_rate_xi, star_rate_pi, nullptr);
      for (std::size_t i = 0; i < n; ++i) {
        xi[i] -= 0.5 * h * (rate_xi[i] + star_rate_xi[i]);
        pi[i] -= 0.5 * h * (rate_pi[i] + star_rate_pi[i]);
      }
      record(step);
      index2_rate(step, xi, pi, trapezoidal_weight(times, step), rate_xi, rate_pi, nullptr);
    }
  } else {
    // [MMF22] eqs. (22a)/(22b) in (xi, eta, mu) (hamiltonian_continuous_adjoint.hpp): at t1 eta and mu from (A.4c).
    std::vector<double> unused(n);
    index2_rate(last, xi, pi, 0.0, eta, unused, &mu);
    const double epsilon = 1e-6 * (times[last] - times[0]);
    std::vector<double> q_a(n), q_b(n), v_b(n), s_b(m), q_c(n), v_c(n), minus_eta(n), minus_mu(m), g_plus(n),
        g_minus(n), s_plus(m), s_minus(m), h_q_shifted(n), h_v_shifted(n), r_q(n), r_m(m);
    std::vector<double> shifted_times = times;
    // G(t) = M eta + A xi - h_v at the state moved by +-epsilon along the trajectory (q, v, sigma, t) +
    // epsilon (v, a, d sigma/dt, 1): G and D'^T xi for their time derivatives at fixed (eta, xi).
    auto moved = [&](std::size_t step, double sign, std::vector<double>& g, std::vector<double>& d_xi) {
      const double t = times[step] + sign * epsilon;
      for (std::size_t i = 0; i < n; ++i) {
        shifted.q[i] = point.q[i] + sign * epsilon * point.v[i];
        shifted.v[i] = point.v[i] + sign * epsilon * point.a[i];
      }
      for (std::size_t k = 0; k < m; ++k) shifted.lambda[k] = point.lambda[k] + sign * epsilon * s.sigma_rate[k];
      integrator.mass_times(shifted.q, t, eta, g);
      std::fill(q_bar.begin(), q_bar.end(), 0.0);
      std::fill(d_xi.begin(), d_xi.end(), 0.0);
      integrator.rate_adjoint(shifted, t, xi, q_bar, g, d_xi, ignored);
      std::fill(h_q_shifted.begin(), h_q_shifted.end(), 0.0);
      std::fill(h_v_shifted.begin(), h_v_shifted.end(), 0.0);
      shifted_times[step] = t;
      objective.add_partials(assembler, shifted_times, step, shifted, h_q_shifted, h_v_shifted, Partials::Integrand);
      shifted_times[step] = times[step];
      for (std::size_t i = 0; i < n; ++i) g[i] -= h_v_shifted[i];
    };
    // (d xi/dt, d eta/dt, d mu/dt) at the loaded step for (x, e, u) (x, e, u: xi, eta, mu of this evaluation).
    auto index1_rate = [&](std::size_t step, const std::vector<double>& x, const std::vector<double>& e,
                           const std::vector<double>& u, double weight, std::vector<double>& rate_xi,
                           std::vector<double>& rate_eta, std::vector<double>& rate_mu) {
      const double t = times[step];
      // Evaluated with (xi, eta) = (x, e): the moved states read xi and eta.
      xi = x;
      eta = e;
      terms.clear();
      for (std::size_t i = 0; i < n; ++i) {
        minus_xi[i] = -x[i];
        minus_eta[i] = -e[i];
      }
      for (std::size_t k = 0; k < m; ++k) minus_mu[k] = -u[k];
      std::fill(q_a.begin(), q_a.end(), 0.0);
      std::fill(v_bar.begin(), v_bar.end(), 0.0);
      std::fill(sigma_bar.begin(), sigma_bar.end(), 0.0);
      integrator.rate_adjoint(point, t, minus_xi, q_a, v_bar, sigma_bar, terms);  // -F_q^T xi, terms -xi . F_p
      std::fill(q_b.begin(), q_b.end(), 0.0);
      std::fill(v_b.begin(), v_b.end(), 0.0);
      std::fill(s_b.begin(), s_b.end(), 0.0);
      integrator.rate_adjoint(point, t, e, q_b, v_b, s_b, ignored);  // A eta, D'^T eta
      std::fill(q_c.begin(), q_c.end(), 0.0);
      std::fill(v_c.begin(), v_c.end(), 0.0);
      integrator.add_momentum_transposed(point, t, minus_eta, q_c, v_c, terms);  // -p~_q^T eta, terms -eta . p~_p
      integrator.add_velocity_constraint_parameter_terms(point, t, minus_mu, terms);  // -mu . (C_q v + C_t)_p
      moved(step, 1.0, g_plus, s_plus);
      moved(step, -1.0, g_minus, s_minus);
      // M d(eta)/dt + D d(mu)/dt = -h_q + p~_q^T eta + F_q^T xi - A eta - dG/dt,
      // D^T d(eta)/dt = -2 D'^T eta - d(D'^T)/dt xi ([MMF22] eq. (22b)).
      for (std::size_t i = 0; i < n; ++i)
        r_q[i] = -s.h_q[i] - q_c[i] - q_a[i] - v_b[i] - (g_plus[i] - g_minus[i]) / (2.0 * epsilon);
      for (std::size_t k = 0; k < m; ++k) r_m[k] = -2.0 * s_b[k] - (s_plus[k] - s_minus[k]) / (2.0 * epsilon);
      integrator.solve_momentum_matrix(point.q, t, r_q, r_m, rate_eta, rate_mu);
      rate_xi = e;
      if (weight != 0.0) local.add_scaled(weight, terms);
    };
    std::vector<double> y_xi = xi, y_eta = eta, y_mu = mu, rate_xi(n), rate_eta(n), rate_mu(m), star_xi(n),
                        star_eta(n), star_mu(m), star_rate_xi(n), star_rate_eta(n), star_rate_mu(m);
    index1_rate(last, y_xi, y_eta, y_mu, trapezoidal_weight(times, last), rate_xi, rate_eta, rate_mu);
    for (std::size_t step = last; step-- > 0;) {
      const double h = times[step + 1] - times[step];
      for (std::size_t i = 0; i < n; ++i) {
        star_xi[i] = y_xi[i] - h * rate_xi[i];
        star_eta[i] = y_eta[i] - h * rate_eta[i];
      }
      for (std::size_t k = 0; k < m; ++k) star_mu[k] = y_mu[k] - h * rate_mu[k];
      s.load(step);
      index1_rate(step, star_xi, star_eta, star_mu, 0.0, star_rate_xi, star_rate_eta, star_rate_mu);
      for (std::size_t i = 0; i < n; ++i) {
        y_xi[i] -= 0.5 * h * (rate_xi[i] + star_rate_xi[i]);
        y_eta[i] -= 0.5 * h * (rate_eta[i] + star_rate_eta[i]);
      }
      for (std::size_t k = 0; k < m; ++k) y_mu[k] -= 0.5 * h * (rate_mu[k] + star_rate_mu[k]);
      xi = y_xi;
      record(step);
      index1_rate(step, y_xi, y_eta, y_mu, trapezoidal_weight(times, step), rate_xi, rate_eta, rate_mu);
    }
    // Pi(t0) = M eta + A xi + D mu - h_v.
    xi = y_xi;
    integrator.mass_times(point.q, times[0], y_eta, pi);
    std::fill(q_bar.begin(), q_bar.end(), 0.0);
    std::fill(sigma_bar.begin(), sigma_bar.end(), 0.0);
    integrator.rate_adjoint(point, times[0], y_xi, q_bar, pi, sigma_bar, ignored);
    std::vector<double> zero(n, 0.0), d_mu(n), unused_v(n), unused_a(n);
    assembler.adjoint_products(point, times[0], zero, y_mu, true, d_mu, unused_v, unused_a);
    for (std::size_t i = 0; i < n; ++i) pi[i] += d_mu[i] - s.h_v[i];
  }

  // Through p*(t0) = T_v(q0, v0) + D sigma(t0): dJ/dq0 = Pi - p~_q^T xi, dJ/dv0 = -T_vv^T xi; then the adjoint of the
  // initial projection.
  std::vector<double> dJ_dv(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) minus_xi[i] = -xi[i];
  integrator.add_momentum_transposed(point, times[0], minus_xi, pi, dJ_dv, local);
  return initial_state_gradient(assembler, integrator, s.state, objective, times, s.objective_parts, local, pi, dJ_dv);
}

}  // namespace flexadj::adjoint
