#include "flexadj/adjoint/dense_state_equations.hpp"

#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <string>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"

namespace flexadj::adjoint {
namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};  // [M C_q^T; C_q 0]
// out = Q2^T x (f) and out = Q2 x (n); q2 is n x f, column-major.
void q2_transpose_times(const double* q2, std::size_t n, std::size_t f, const std::vector<double>& x,
                        std::vector<double>& out) {
  for (std::size_t c = 0; c < f; ++c) {
    double y = 0.0;
    for (std::size_t i = 0; i < n; ++i) y += q2[i + n * c] * x[i];
    out[c] = y;
  }
}
void q2_times(const double* q2, std::size_t n, std::size_t f, const std::vector<double>& x, std::vector<double>& out) {
  for (std::size_t i = 0; i < n; ++i) {
    double y = 0.0;
    for (std::size_t c = 0; c < f; ++c) y += q2[i + n * c] * x[c];
    out[i] = y;
  }
}
}  // namespace

DenseStateEquations::DenseStateEquations(assembly::Assembler& assembler)
    : assembler_(assembler),
      n_(assembler.dofs().owned_coordinates().size()),
      m_(assembler.dofs().owned_multipliers().size()),
      f_(n_ - std::min(n_, m_)),
      state_(assembler.make_state()),
      work_(assembler.make_state()),
      mu_(assembler.system_map()) {
  basis_.resize(n_, m_);
  mass_.assign(n_ * n_, 0.0);
  c_transposed_.assign(n_ * m_, 0.0);
  g_lu_.assign(f_ * f_, 0.0);
  pivots_.assign(f_, 0);
  for (auto* v : {&force_, &kinematics_, &kinetics_, &b_, &b_bar_, &u_, &column_, &y_k_, &y_d_, &y_m_, &scratch_,
                  &zero_})
    v->assign(n_, 0.0);
  for (auto* v : {&c_t_, &c_tt_, &ct_bar_, &ctt_bar_}) v->assign(m_, 0.0);
  for (auto* v : {&y_, &s_, &q2v_, &q2mu_}) v->assign(f_, 0.0);
  mq2_.assign(n_ * f_, 0.0);
  q2_bar_.assign(n_ * f_, 0.0);
  p_bar_.assign(n_ * m_, 0.0);
  c_bar_.assign(n_ * m_, 0.0);
}

void DenseStateEquations::linearize(const assembly::State& state, double t) {
  using assembly::ConstraintLevel;
  const std::size_t n = n_, m = m_, f = f_;
  state_.q = state.q;
  state_.v = state.v;
  t_ = t;
  // [M C_q^T; C_q 0] and the residual [-f; c_tt] at a = 0, lambda = 0 (forward matrices).
  work_.q = state.q;
  work_.v = state.v;
  std::fill(work_.a.begin(), work_.a.end(), 0.0);
  std::fill(work_.lambda.begin(), work_.lambda.end(), 0.0);
  const assembly::ScopedTransposedAssembly forward(assembler_, false);
  assembler_.assemble(work_, t, ConstraintLevel::Acceleration, 1.0, &kMassOnly);
  const CrsMatrix& matrix = *assembler_.matrix();
  const auto row_map = matrix.getRowMap(), column_map = matrix.getColMap(), system = assembler_.system_map();
  std::fill(mass_.begin(), mass_.end(), 0.0);
  std::fill(c_transposed_.begin(), c_transposed_.end(), 0.0);
  for (std::size_t r = 0; r < n + m; ++r) {
    CrsMatrix::local_inds_host_view_type columns;
    CrsMatrix::values_host_view_type values;
    matrix.getLocalRowView(LocalOrdinal(r), columns, values);
    const auto row = std::size_t(system->getLocalElement(row_map->getGlobalElement(LocalOrdinal(r))));
    for (std::size_t k = 0; k < columns.extent(0); ++k) {
      const auto c = std::size_t(system->getLocalElement(column_map->getGlobalElement(columns(k))));
      if (row < n && c < n) mass_[row + n * c] = values(k);
      if (row >= n && c < n) c_transposed_[c + n * (row - n)] = values(k);
    }
  }
  {
    const assembly::ConstSystemVectorView residual(assembler_.residual(), n);
    for (std::size_t i = 0; i < n; ++i) force_[i] = -residual.coordinates()[i];
    for (std::size_t k = 0; k < m; ++k) c_tt_[k] = residual.multipliers()[k];
  }
  // c_t: the velocity-level constraint C_q v + c_t at v = 0.
  std::fill(work_.v.begin(), work_.v.end(), 0.0);
  assembler_.assemble(work_, t, ConstraintLevel::Velocity, 1.0, nullptr);
  {
    const assembly::ConstSystemVectorView residual(assembler_.residual(), n);
    for (std::size_t k = 0; k < m; ++k) c_t_[k] = residual.multipliers()[k];
  }
  basis_.factor(c_transposed_);
  basis_.differentiate();
  const double* q2 = basis_.q2();
  const std::vector<double>& p = basis_.p();
  // M Q2, G = Q2^T M Q2 (LU), b = M P c_tt + f, y = G^-1 Q2^T b: [HS] eqs. (14), (15).
  std::fill(mq2_.begin(), mq2_.end(), 0.0);
  for (std::size_t c = 0; c < f; ++c)
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i) mq2_[i + n * c] += mass_[i + n * k] * q2[k + n * c];
  for (std::size_t c = 0; c < f; ++c)
    for (std::size_t r = 0; r < f; ++r) {
      double x = 0.0;
      for (std::size_t i = 0; i < n; ++i) x += q2[i + n * r] * mq2_[i + n * c];
      g_lu_[r + f * c] = x;
    }
  std::fill(scratch_.begin(), scratch_.end(), 0.0);  // P c_tt
  for (std::size_t k = 0; k < m; ++k)
    for (std::size_t i = 0; i < n; ++i) scratch_[i] += p[i + n * k] * c_tt_[k];
  for (std::size_t i = 0; i < n; ++i) {
    double x = force_[i];
    for (std::size_t k = 0; k < n; ++k) x += mass_[i + n * k] * scratch_[k];
    b_[i] = x;
  }
  q2_transpose_times(q2, n, f, b_, y_);
  Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  if (f > 0) {
    lapack.GETRF(int(f), int(f), g_lu_.data(), int(f), pivots_.data(), &info);
    if (info != 0)
      throw SolverError("state-space form at t = " + std::to_string(t) +
                        ": Q2^T M Q2 is singular (a free motion without mass)");
    lapack.GETRS('N', int(f), 1, g_lu_.data(), int(f), pivots_.data(), y_.data(), int(f), &info);
  }
  // W = Q2 y - P c_tt, V = Q2 Q2^T v - P c_t.
  q2_transpose_times(q2, n, f, state.v, q2v_);
  q2_times(q2, n, f, y_, kinetics_);
  q2_times(q2, n, f, q2v_, kinematics_);
  for (std::size_t i = 0; i < n; ++i) {
    kinetics_[i] -= scratch_[i];
    for (std::size_t k = 0; k < m; ++k) kinematics_[i] -= p[i + n * k] * c_t_[k];
  }
}

void DenseStateEquations::add_parameter_terms(const assembly::State& state, const std::vector<double>* mu_r,
                                              const std::vector<double>* mu_c, double weight,
                                              assembly::ConstraintLevel level, bool constraints_only,
                                              assembly::LocalGradient& gradient) {
  assembly::SystemVectorView(mu_, n_).assign(mu_r ? *mu_r : zero_, weight, mu_c, weight);
  assembler_.add_parameter_gradient(state, t_, mu_, level, constraints_only, gradient);
}

// The reverse of eqs. (15), (22), (23): with s = G^-T Q2^T nu, b_bar = Q2 s, u = M^T b_bar - nu,
//   v_bar = Q2 Q2^T mu,  Q2_bar = mu (Q2^T v)^T + v (Q2^T mu)^T - u y^T + (b - M Q2 y) s^T,
//   P_bar = -mu c_t^T + u c_tt^T,  c_t_bar = -P^T mu,  c_tt_bar = P^T u,  M_bar = -b_bar W^T,  f_bar = b_bar.
void DenseStateEquations::transposed_products(const std::vector<double>& mu, const std::vector<double>& nu,
                                              std::vector<double>& q_bar, std::vector<double>& v_bar, double weight,
                                              assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const std::size_t n = n_, m = m_, f = f_;
  const double* q2 = basis_.q2();
  const std::vector<double>& p = basis_.p();
  q2_transpose_times(q2, n, f, mu, q2mu_);
  q2_transpose_times(q2, n, f, nu, s_);
  Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  if (f > 0) lapack.GETRS('T', int(f), 1, g_lu_.data(), int(f), pivots_.data(), s_.data(), int(f), &info);
  std::fill(q_bar.begin(), q_bar.end(), 0.0);
  q2_times(q2, n, f, q2mu_, v_bar);
  q2_times(q2, n, f, s_, b_bar_);
  for (std::size_t i = 0; i < n; ++i) {
    double x = -nu[i];
    for (std::size_t k = 0; k < n; ++k) x += mass_[k + n * i] * b_bar_[k];
    u_[i] = x;
  }
  for (std::size_t k = 0; k < m; ++k) {
    double a = 0.0, b = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      a -= p[i + n * k] * mu[i];
      b += p[i + n * k] * u_[i];
    }
    ct_bar_[k] = a;
    ctt_bar_[k] = b;
  }
  for (std::size_t i = 0; i < n; ++i) {  // b - M Q2 y
    double x = b_[i];
    for (std::size_t c = 0; c < f; ++c) x -= mq2_[i + n * c] * y_[c];
    scratch_[i] = x;
  }
  for (std::size_t c = 0; c < f; ++c)
    for (std::size_t i = 0; i < n; ++i)
      q2_bar_[i + n * c] = mu[i] * q2v_[c] + state_.v[i] * q2mu_[c] - u_[i] * y_[c] + scratch_[i] * s_[c];
  for (std::size_t k = 0; k < m; ++k)
    for (std::size_t i = 0; i < n; ++i) p_bar_[i + n * k] = -mu[i] * c_t_[k] + u_[i] * c_tt_[k];
  // C^T_bar through the AD derivatives of Q2 and P (QrBasis::differentiate).
  for (std::size_t e = 0; e < n * m; ++e) {
    const double* dq2 = basis_.dq2(e);
    const double* dp = basis_.dp(e);
    double x = 0.0;
    for (std::size_t k = 0; k < n * f; ++k) x += q2_bar_[k] * dq2[k];
    for (std::size_t k = 0; k < n * m; ++k) x += p_bar_[k] * dp[k];
    c_bar_[e] = x;
  }

  // M and f: (-b_bar) . d(M a - f) at a = W, lambda = 0.
  work_.q = state_.q;
  work_.v = state_.v;
  work_.a = kinetics_;
  std::fill(work_.lambda.begin(), work_.lambda.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i) scratch_[i] = -b_bar_[i];
  assembler_.adjoint_products(work_, t_, scratch_, {}, false, y_k_, y_d_, y_m_);
  for (std::size_t i = 0; i < n; ++i) {
    q_bar[i] += y_k_[i];
    v_bar[i] += y_d_[i];
  }
  if (weight != 0.0) add_parameter_terms(work_, &scratch_, nullptr, weight, ConstraintLevel::Position, false, gradient);
  // C_q: sum_j (d(C_q^T e_j)/dq)^T C^T_bar(:, j) and the same with d/dp.
  for (std::size_t j = 0; j < m; ++j) {
    std::fill(work_.lambda.begin(), work_.lambda.end(), 0.0);
    work_.lambda[j] = 1.0;
    std::copy(c_bar_.begin() + long(n * j), c_bar_.begin() + long(n * (j + 1)), column_.begin());
    assembler_.adjoint_products(work_, t_, column_, {}, true, y_k_, y_d_, y_m_);
    for (std::size_t i = 0; i < n; ++i) q_bar[i] += y_k_[i];
    if (weight != 0.0) add_parameter_terms(work_, &column_, nullptr, weight, ConstraintLevel::Position, true, gradient);
  }
  // c_tt = gamma: the acceleration-level constraint at a = 0.
  std::fill(work_.a.begin(), work_.a.end(), 0.0);
  std::fill(work_.lambda.begin(), work_.lambda.end(), 0.0);
  assembler_.add_constraint_level_transposed(work_, t_, ConstraintLevel::Acceleration, ctt_bar_, q_bar, v_bar);
  if (weight != 0.0)
    add_parameter_terms(work_, nullptr, &ctt_bar_, weight, ConstraintLevel::Acceleration, true, gradient);
  // c_t: the velocity-level constraint at v = 0 (its v-derivative C_q is not a derivative of c_t).
  std::fill(work_.v.begin(), work_.v.end(), 0.0);
  assembler_.add_constraint_level_transposed(work_, t_, ConstraintLevel::Velocity, ct_bar_, q_bar, y_d_);
  if (weight != 0.0) add_parameter_terms(work_, nullptr, &ct_bar_, weight, ConstraintLevel::Velocity, true, gradient);
}

}  // namespace flexadj::adjoint
