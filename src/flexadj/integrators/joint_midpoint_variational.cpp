#include "flexadj/integrators/joint_midpoint_variational.hpp"

#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

JointMidpointVariational::JointMidpointVariational(assembly::Assembler& assembler,
                                                   const integrators::IntegratorSettings& settings,
                                                   const linalg::LinearSolverOptions& solver_options)
    : JointVariational(assembler, settings, solver_options, "joint-midpoint variational integrator") {
  const auto k = std::size_t(tree_->size()), n = std::size_t(tree_->coordinate_count());
  for (Midpoint* m : {&forward_midpoint_, &recomputed_midpoint_}) {
    for (auto* v : {&m->mid, &m->delta}) v->assign(k, 0.0);
    for (auto* v : {&m->first, &m->second}) v->assign(n, 0.0);
  }
  for (auto* v : {&sum_n_, &half_difference_n_, &mu_first_, &mu_second_, &out_first_, &out_second_, &values_,
                  &values2_})
    v->assign(n, 0.0);
  for (auto* v : {&d1_, &unit_, &mid_direction_, &delta_direction_, &grad_mid_, &grad_delta_, &row_})
    v->assign(k, 0.0);
  mid_columns_.assign(n * k, 0.0);
  refinement_residual_.assign(k, 0.0);
  refinement_product_.assign(k, 0.0);
}

std::string JointMidpointVariational::description() const {
  return "variational integrator, midpoint rule in " + std::to_string(tree_->size()) +
         " joint coordinates (Schubert et al. 2024, sec. 2.3), no multipliers, no numerical damping";
}

void JointMidpointVariational::discrete_momenta(Step& s, double t, double h, std::vector<double>& d1,
                                                std::vector<double>* d2) {
  Midpoint& m = midpoint(s);
  const auto k = m.mid.size(), n = m.first.size();
  for (std::size_t j = 0; j < k; ++j) {
    m.mid[j] = 0.5 * (s.start.alpha[j] + s.end.alpha[j]);
    m.delta[j] = s.end.alpha[j] - s.start.alpha[j];
  }
  // Phi = (g(alpha_m) - g'(alpha_m)[Delta]/2, g(alpha_m) + g'(alpha_m)[Delta]/2).
  tree_->positions(m.mid.data(), tree_->parameters().data(), values_.data());
  equations_->directional_values(m.mid, m.delta.data(), nullptr, values2_.data(), nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    m.first[i] = values_[i] - 0.5 * values2_[i];
    m.second[i] = values_[i] + 0.5 * values2_[i];
  }
  absolute_momenta(m.first, m.second, t, h, s);
  // (D1, D2) = (dPhi/d alpha_n, dPhi/d alpha_{n+1})^T (minus, plus).
  std::fill(d1.begin(), d1.end(), 0.0);
  if (d2) std::fill(d2->begin(), d2->end(), 0.0);
  phi_gradient(m, s.minus, s.plus, d1.data(), d2 ? d2->data() : nullptr, nullptr);
}

void JointMidpointVariational::split_pair(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum_n_[i] = a[i] + b[i];
    half_difference_n_[i] = 0.5 * (b[i] - a[i]);
  }
}

void JointMidpointVariational::add_split_gradients(double* grad_n, double* grad_next) const {
  for (std::size_t j = 0; j < grad_mid_.size(); ++j) {
    if (grad_n) grad_n[j] += 0.5 * grad_mid_[j] - grad_delta_[j];
    if (grad_next) grad_next[j] += 0.5 * grad_mid_[j] + grad_delta_[j];
  }
}

void JointMidpointVariational::phi_gradient(const Midpoint& m, const std::vector<double>& a,
                                            const std::vector<double>& b, double* grad_n, double* grad_next,
                                            assembly::LocalGradient* gradient) {
  // a . Phi_1 + b . Phi_2 = (a + b) . g(alpha_m) + (b - a)/2 . g'(alpha_m)[Delta]: its gradient in alpha_m (Delta
  // held) and in Delta, H(alpha_m)^T (b - a)/2.
  split_pair(a, b);
  std::fill(grad_mid_.begin(), grad_mid_.end(), 0.0);
  equations_->directional_gradient(m.mid, m.delta.data(), nullptr, sum_n_.data(), half_difference_n_.data(), nullptr,
                                   nullptr, grad_mid_.data(), gradient);
  equations_->jacobian_transpose_times(m.mid, half_difference_n_, grad_delta_);
  add_split_gradients(grad_n, grad_next);
}

void JointMidpointVariational::direction_gradient(Step& s, double t, double h, const double* delta_n,
                                                  const double* delta_next, double* grad_n, double* grad_next,
                                                  assembly::LocalGradient* gradient) {
  const Midpoint& m = midpoint(s);
  const auto k = m.mid.size(), n = m.first.size();
  for (std::size_t j = 0; j < k; ++j) {
    const double a = delta_n ? delta_n[j] : 0.0, b = delta_next ? delta_next[j] : 0.0;
    mid_direction_[j] = 0.5 * (a + b);
    delta_direction_[j] = b - a;
  }
  // mu = dPhi[delta] = (g'[d_m - d_Delta/2] - g''[d_m, Delta]/2, g'[d_m + d_Delta/2] + g''[d_m, Delta]/2).
  equations_->directional_values(m.mid, mid_direction_.data(), m.delta.data(), values_.data(), values2_.data());
  for (std::size_t i = 0; i < n; ++i) {
    mu_first_[i] = values_[i] - 0.5 * values2_[i];
    mu_second_[i] = values_[i] + 0.5 * values2_[i];
  }
  equations_->directional_values(m.mid, delta_direction_.data(), nullptr, values_.data(), nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    mu_first_[i] -= 0.5 * values_[i];
    mu_second_[i] += 0.5 * values_[i];
  }
  // (minus, plus) through Phi: o = (d(minus, plus)/d Phi)^T mu, then the gradient of o . Phi (o held).
  std::fill(out_first_.begin(), out_first_.end(), 0.0);
  std::fill(out_second_.begin(), out_second_.end(), 0.0);
  momenta_.add_discrete_momenta_transposed(m.first, m.second, t, h, mu_first_, mu_second_, out_first_, out_second_);
  if (gradient)
    momenta_.add_discrete_momenta_parameter_gradient(m.first, m.second, t, h, mu_first_, mu_second_, *gradient);
  phi_gradient(m, out_first_, out_second_, grad_n, grad_next, gradient);
  // dPhi[delta] with (minus, plus) held: w . dPhi = (minus + plus) . g'[d_m] + (plus - minus)/2 . (g'[d_Delta] +
  // g''[d_m, Delta]).
  split_pair(s.minus, s.plus);
  std::fill(grad_mid_.begin(), grad_mid_.end(), 0.0);
  std::fill(grad_delta_.begin(), grad_delta_.end(), 0.0);
  equations_->directional_gradient(m.mid, mid_direction_.data(), m.delta.data(), nullptr, sum_n_.data(), nullptr,
                                   half_difference_n_.data(), grad_mid_.data(), gradient);
  equations_->directional_gradient(m.mid, delta_direction_.data(), nullptr, nullptr, half_difference_n_.data(),
                                   nullptr, nullptr, grad_mid_.data(), gradient);
  // d/d Delta of (plus - minus)/2 . g''(alpha_m)[d_m, Delta] = d/d alpha_m of (plus - minus)/2 . g'(alpha_m)[d_m].
  equations_->directional_gradient(m.mid, mid_direction_.data(), nullptr, nullptr, half_difference_n_.data(), nullptr,
                                   nullptr, grad_delta_.data(), nullptr);
  add_split_gradients(grad_n, grad_next);
}

void JointMidpointVariational::fill_jacobian(Step& s, double t, double h, bool new_start) {
  const auto k = std::size_t(tree_->size());
  const Midpoint& m = midpoint(s);
  if (new_start && !exact_jacobian()) {
    // Newton's matrix: H(alpha_m)^T d(minus)/dq_{n+1} H(alpha_m) = -M_hat/h + O(1), as the exact one, from one
    // assembly and k sparse products (the exact one costs k element sweeps); simplified Newton contracts by O(h).
    const std::size_t n = m.first.size();
    for (std::size_t j = 0; j < k; ++j) {
      std::fill(unit_.begin(), unit_.end(), 0.0);
      unit_[j] = 1.0;
      equations_->directional_values(m.mid, unit_.data(), nullptr, &mid_columns_[j * n], nullptr);
    }
    project_step_matrix(m.first, m.second, t, h, mid_columns_, mid_columns_, s);
    return;
  }
  // The exact dE/d alpha_{n+1}: row i is the gradient in alpha_{n+1} of e_i . (D1 + f^-).
  for (std::size_t i = 0; i < k; ++i) {
    std::fill(unit_.begin(), unit_.end(), 0.0);
    unit_[i] = 1.0;
    std::fill(row_.begin(), row_.end(), 0.0);
    direction_gradient(s, t, h, unit_.data(), nullptr, nullptr, row_.data(), nullptr);
    for (std::size_t j = 0; j < k; ++j) s.jacobian[i + j * k] = row_[j];
  }
}

void JointMidpointVariational::prepare_adjoint(Step& s, double t, double h) {
  if (exact_jacobian()) factorize_jacobian(s, t, h, false);
}

void JointMidpointVariational::solve_adjoint_equation(double t, double h) {
  if (exact_jacobian()) {
    solve_step_adjoint(end_alpha_bar_);
    return;
  }
  Step& s = recomputed_;
  const int k = tree_->size();
  const Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  for (int j = 0; j < k; ++j) lambda_[std::size_t(j)] = -end_alpha_bar_[std::size_t(j)];
  lapack.GETRS('T', k, 1, s.jacobian.data(), k, s.pivots.data(), lambda_.data(), k, &info);
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < 20; ++iteration) {
    std::fill(refinement_product_.begin(), refinement_product_.end(), 0.0);
    direction_gradient(s, t, h, lambda_.data(), nullptr, nullptr, refinement_product_.data(), nullptr);
    double correction = 0.0, size = 0.0;
    for (int j = 0; j < k; ++j)
      refinement_residual_[std::size_t(j)] = -end_alpha_bar_[std::size_t(j)] - refinement_product_[std::size_t(j)];
    lapack.GETRS('T', k, 1, s.jacobian.data(), k, s.pivots.data(), refinement_residual_.data(), k, &info);
    for (int j = 0; j < k; ++j) {
      lambda_[std::size_t(j)] += refinement_residual_[std::size_t(j)];
      correction = std::max(correction, std::abs(refinement_residual_[std::size_t(j)]));
      size = std::max(size, std::abs(lambda_[std::size_t(j)]));
    }
    if (correction <= 1e-15 * size) return;
    // Round-off: the corrections stop shrinking at the level of the products' rounding.
    if (correction > 0.5 * previous && correction <= 1e-12 * size) return;
    if (!std::isfinite(correction) || (iteration >= 3 && correction > 0.5 * previous)) break;
    previous = correction;
  }
  // The refinement did not contract (a step too large for the approximation): the exact Jacobian.
  factorize_jacobian(s, t, h, false);
  solve_step_adjoint(end_alpha_bar_);
}

void JointMidpointVariational::momentum_balance(Step& s, double t, double h, std::vector<double>& out) {
  discrete_momenta(s, t, h, out, nullptr);
}

void JointMidpointVariational::end_momentum(Step& s, double t, double h) {
  discrete_momenta(s, t, h, d1_, &s.end.p_hat);
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

// On entry (q_bar_, v_bar_) = dJ/d(q_{n+1}, v_{n+1}); on exit the carry holds dJ/d(q_n, v_n) through this step
// (Schubert et al. 2024, eq. (18), in the integrator's own unknowns).
void JointMidpointVariational::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  const double h = t_next - t;
  Step& s = recomputed_;
  // (alpha_{n+1}, p_{n+1}) -> (q_{n+1}, v_{n+1}).
  equations_->absolute_state_transposed(s.end, q_bar_, v_bar_, end_alpha_bar_, end_p_bar_, gradient);
  // p_{n+1} = D2 L_d^J + f^+: p_bar . D2 differentiated in alpha_n, alpha_{n+1} and the parameters.
  std::fill(start_alpha_bar_.begin(), start_alpha_bar_.end(), 0.0);
  direction_gradient(s, t, h, nullptr, end_p_bar_.data(), start_alpha_bar_.data(), end_alpha_bar_.data(), &gradient);
  // The adjoint of the discrete Euler-Lagrange equation E: (dE/d alpha_{n+1})^T lambda = -alpha_bar_{n+1}.
  solve_adjoint_equation(t, h);
  // E = p_n + D1 L_d^J + f^-: lambda . D1 in alpha_n and the parameters (alpha_{n+1} is eliminated by lambda);
  // p_n enters E with the identity.
  direction_gradient(s, t, h, lambda_.data(), nullptr, start_alpha_bar_.data(), nullptr, &gradient);
  // (q_n, v_n) -> (alpha_n, p_n).
  std::fill(carry_q_.begin(), carry_q_.end(), 0.0);
  std::fill(carry_v_.begin(), carry_v_.end(), 0.0);
  equations_->joint_state_transposed(previous_, t, s.start.alpha, start_alpha_bar_, lambda_, carry_q_, carry_v_,
                                     gradient);
}

}  // namespace flexadj::integrators
