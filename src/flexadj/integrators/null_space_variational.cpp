#include "flexadj/integrators/null_space_variational.hpp"

#include <algorithm>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

NullSpaceVariational::NullSpaceVariational(assembly::Assembler& assembler,
                                           const integrators::IntegratorSettings& settings,
                                           const linalg::LinearSolverOptions& solver_options)
    : JointVariational(assembler, settings, solver_options, "null-space variational integrator") {
  const auto k = std::size_t(tree_->size()), n = std::size_t(tree_->coordinate_count());
  for (auto* v : {&column_, &first_bar_, &second_bar_}) v->assign(n, 0.0);
  unit_.assign(k, 0.0);
  start_columns_.assign(n * k, 0.0);
  end_columns_.assign(n * k, 0.0);
}

std::string NullSpaceVariational::description() const {
  return "midpoint variational integrator, discrete null-space method with nodal reparametrization in " +
         std::to_string(tree_->size()) + " joint coordinates (Betsch and Leyendecker 2006; Schubert et al. 2024, " +
         "sec. 3), no multipliers, no numerical damping";
}

void NullSpaceVariational::discrete_momenta(Step& s, double t, double h) {
  tree_->positions(s.end.alpha.data(), tree_->parameters().data(), s.end.state.q.data());
  absolute_momenta(s.start.state.q, s.end.state.q, t, h, s);
}

void NullSpaceVariational::fill_jacobian(Step& s, double t, double h, bool new_start) {
  const auto k = std::size_t(tree_->size()), n = s.minus.size();
  // The columns of H(alpha_{n+1}), and of H(alpha_n) once per step (one pass over the tree each).
  for (std::size_t j = 0; j < k; ++j) {
    std::fill(unit_.begin(), unit_.end(), 0.0);
    unit_[j] = 1.0;
    if (new_start)
      equations_->directional_values(s.start.alpha, unit_.data(), nullptr, &start_columns_[j * n], nullptr);
    equations_->directional_values(s.end.alpha, unit_.data(), nullptr, &end_columns_[j * n], nullptr);
  }
  project_step_matrix(s.start.state.q, s.end.state.q, t, h, start_columns_, end_columns_, s);
}

void NullSpaceVariational::momentum_balance(Step& s, double t, double h, std::vector<double>& out) {
  discrete_momenta(s, t, h);
  equations_->jacobian_transpose_times(s.start.alpha, s.minus, out);
}

void NullSpaceVariational::end_momentum(Step& s, double t, double h) {
  discrete_momenta(s, t, h);
  equations_->jacobian_transpose_times(s.end.alpha, s.plus, s.end.p_hat);
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

// On entry (q_bar_, v_bar_) = dJ/d(q_{n+1}, v_{n+1}); on exit the carry holds dJ/d(q_n, v_n) through this step.
void NullSpaceVariational::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  const double h = t_next - t;
  Step& s = recomputed_;
  const std::vector<double>&q_n = s.start.state.q, &q_next = s.end.state.q;
  // (alpha_{n+1}, p_hat_{n+1}) -> (q_{n+1}, v_{n+1}).
  equations_->absolute_state_transposed(s.end, q_bar_, v_bar_, end_alpha_bar_, end_p_bar_, gradient);
  // p_hat_{n+1} = H_{n+1}^T plus(q_n, g(alpha_{n+1})): with y = H_{n+1} p_bar, first_bar_ = plus_{q_n}^T y and
  // alpha_bar += d/d(alpha_{n+1}) [plus . g'[p_bar] + (plus_{q_{n+1}}^T y) . g].
  equations_->directional_values(s.end.alpha, end_p_bar_.data(), nullptr, column_.data(), nullptr);
  std::fill(first_bar_.begin(), first_bar_.end(), 0.0);
  std::fill(second_bar_.begin(), second_bar_.end(), 0.0);
  momenta_.add_discrete_momenta_transposed(q_n, q_next, t, h, zero_n_, column_, first_bar_, second_bar_);
  momenta_.add_discrete_momenta_parameter_gradient(q_n, q_next, t, h, zero_n_, column_, gradient);
  equations_->directional_gradient(s.end.alpha, end_p_bar_.data(), nullptr, second_bar_.data(), s.plus.data(),
                                   nullptr, nullptr, end_alpha_bar_.data(), &gradient);
  // The adjoint of the step's equation E: (dE/d alpha_{n+1})^T lambda = -alpha_bar (Schubert et al. 2024, sec. 3.2).
  solve_step_adjoint(end_alpha_bar_);
  // E = p_hat_n + H_n^T minus(g(alpha_n), g(alpha_{n+1})): with y = H_n lambda, minus_{q_n}^T y joins first_bar_;
  // g(alpha_{n+1}) contributes its parameter terms only (alpha_{n+1} is eliminated by lambda).
  equations_->directional_values(s.start.alpha, lambda_.data(), nullptr, column_.data(), nullptr);
  std::fill(second_bar_.begin(), second_bar_.end(), 0.0);
  momenta_.add_discrete_momenta_transposed(q_n, q_next, t, h, column_, zero_n_, first_bar_, second_bar_);
  momenta_.add_discrete_momenta_parameter_gradient(q_n, q_next, t, h, column_, zero_n_, gradient);
  equations_->directional_gradient(s.end.alpha, nullptr, nullptr, second_bar_.data(), nullptr, nullptr, nullptr,
                                   nullptr, &gradient);
  // alpha_n through q_n = g(alpha_n) (both equations) and through H_n (E): d/d(alpha_n) [first_bar_ . g +
  // minus . g'[lambda]]; p_hat_n enters E with the identity.
  std::fill(start_alpha_bar_.begin(), start_alpha_bar_.end(), 0.0);
  equations_->directional_gradient(s.start.alpha, lambda_.data(), nullptr, first_bar_.data(), s.minus.data(), nullptr,
                                   nullptr, start_alpha_bar_.data(), &gradient);
  // (q_n, v_n) -> (alpha_n, p_hat_n).
  std::fill(carry_q_.begin(), carry_q_.end(), 0.0);
  std::fill(carry_v_.begin(), carry_v_.end(), 0.0);
  equations_->joint_state_transposed(previous_, t, s.start.alpha, start_alpha_bar_, lambda_, carry_q_, carry_v_,
                                     gradient);
}

}  // namespace flexadj::integrators
