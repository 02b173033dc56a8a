#pragma once
// The state equations of Held and Seifried ([HS], docs/references.md) in dense form, eq. (15) (Z = I):
//   dq/dt = V(q, v, t) = Q2 Q2^T v - P c_t,
//   dv/dt = W(q, v, t) = Q2 (Q2^T M Q2)^-1 Q2^T (M P c_tt + f) - P c_tt,
// with the QR basis of C_q^T (linalg/qr_basis.hpp; P = Q1 R1^-T), M, f = Q (flexadj's generalized forces),
// c_t = dC/dt and c_tt = gamma (C_acc = C_q a + gamma) from the assembler at one point, and the transposed
// Jacobian products of eqs. (18), (22), (23) and the parameter integrand of eq. (20).
//
// The products are eqs. (22)-(23) in reverse order: the adjoints of Q2 and P gathered into a dense
// C_bar = dL/dC^T through dQ2/dC^T and dP/dC^T (QrBasis::differentiate, Sacado), then contracted with dC_q/dq and
// dC_q/dp by the assembler (adjoint products of C_q^T e_j, one per constraint); M and f enter through
// (d(M a - f)/dq)^T at a = W, c_t and c_tt through the velocity- and acceleration-level constraints at v = 0 and
// a = 0. Serial: the matrices are this rank's rows (adjoint/state_space_continuous_adjoint.hpp refuses more ranks).
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/linalg/qr_basis.hpp"

namespace flexadj::adjoint {

class DenseStateEquations {
 public:
  // Allocates everything (n coordinates, m multipliers of the single rank).
  explicit DenseStateEquations(assembly::Assembler& assembler);

  // M, C_q, f, c_t, c_tt at the state's q, v and t; the QR basis and its derivatives; V and W.
  void linearize(const assembly::State& state, double t);
  const std::vector<double>& kinematics() const { return kinematics_; }  // V
  const std::vector<double>& kinetics() const { return kinetics_; }      // W
  const linalg::QrBasis& basis() const { return basis_; }

  // [q_bar; v_bar] = J^T [mu; nu], J = d(V, W)/d(q, v) at the last linearize() ([HS] eqs. (18), (21)-(23)); with
  // weight != 0 also weight * (mu . dV/dp + nu . dW/dp) into `gradient` (the integrand of eq. (20)).
  void transposed_products(const std::vector<double>& mu, const std::vector<double>& nu, std::vector<double>& q_bar,
                           std::vector<double>& v_bar, double weight, assembly::LocalGradient& gradient);

 private:
  void add_parameter_terms(const assembly::State& state, const std::vector<double>* mu_r,
                           const std::vector<double>* mu_c, double weight, assembly::ConstraintLevel level,
                           bool constraints_only, assembly::LocalGradient& gradient);

  assembly::Assembler& assembler_;
  std::size_t n_, m_, f_;
  linalg::QrBasis basis_;
  assembly::State state_, work_;
  double t_ = 0.0;
  Vector mu_;  // system vector for Assembler::add_parameter_gradient
  // Dense, column-major: M (n x n), C^T (n x m), G = Q2^T M Q2 (f x f) and its LU factors.
  std::vector<double> mass_, c_transposed_, g_lu_;
  std::vector<int> pivots_;
  std::vector<double> force_, c_t_, c_tt_, kinematics_, kinetics_, b_, y_, mq2_;
  // transposed_products() work: Q2^T v, Q2^T mu, s, b_bar, u = M^T b_bar - nu, the adjoints of Q2, P, c_t,
  // c_tt and C^T, the products' outputs.
  std::vector<double> q2v_, q2mu_, s_, b_bar_, u_, q2_bar_, p_bar_, ct_bar_, ctt_bar_, c_bar_, column_, y_k_, y_d_,
      y_m_, scratch_, zero_;
};

}  // namespace flexadj::adjoint
