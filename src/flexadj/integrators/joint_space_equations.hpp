#pragma once
// The joint-space Hamiltonian equations of Maciag, Malczyk and Fraczek 2022 ([MMF22], docs/references.md), eqs.
// (8)-(10), for an open-loop planar model (model/joint_tree.hpp: q = g(alpha), v = H beta, H = dg/dalpha, beta =
// d(alpha)/dt):
//   M_hat(alpha) beta = p_hat,   M_hat = H^T M H                                              (10a)
//   d(p_hat)/dt = F_hat = H^T Q + H'^T M H beta,   Q = T_q + f                                (10b)
// as the ODE y' = Phi(y, t) in y = (alpha, p_hat), Phi = (beta, F_hat), with its transposed Jacobian products for
// the discrete adjoint. H'^T P equals (d(H beta)/d(alpha))^T P for H = dg/dalpha (second derivatives of g
// commute), so with P = T_v = M v
//   F_hat = d/d(alpha) [Q . g(alpha) + P . g'(alpha)[beta]]   (Q, P held),
// and every product below is the gradient of such a scalar, c0 . g + c1 . g'[y] + c2 . g'[z] + c12 . g''[y, z],
// with respect to alpha and the joints' parameters: one Sacado pass of g in nested forward types
// (directional_gradient). The absolute pieces (Q, P = T_v, M, and their transposed products and parameter terms)
// come from the model's force elements (VariationalAssembly, as the absolute Hamiltonian integrator). Dense (the
// k x k matrix M_hat by LU) and serial: small models, one rank (integrators/joint_hamiltonian.hpp refuses more).
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/variational_assembly.hpp"
#include "flexadj/model/joint_tree.hpp"

namespace flexadj::integrators {

// The joint tree of the assembler's model (model/joint_tree.hpp) on its one rank. InputError naming `key` for more
// than one rank (the joint-space equations are dense and serial) and for what JointTree refuses.
std::unique_ptr<model::JointTree> make_joint_tree(const assembly::Assembler& assembler, const std::string& key);

class JointSpaceEquations {
 public:
  // One evaluation of (10a)/(10b) at (alpha, p_hat, t).
  struct Point {
    std::vector<double> alpha, p_hat, beta, rate;  // rate = F_hat
    std::vector<double> jacobian;                  // H, n x k, column-major
    std::vector<double> mass_lu;                   // LU factors of M_hat (k x k)
    std::vector<int> pivots;
    std::vector<double> force, momentum;           // Q and P = T_v at (q, v)
    assembly::State state;                         // q = g(alpha), v = H beta
    double t = 0.0;
  };

  JointSpaceEquations(assembly::Assembler& assembler, const model::JointTree& tree);
  Point make_point() const;
  int size() const { return k_; }

  // Fills e from e.alpha, e.p_hat and e.t: q, H, M_hat (factorized), beta, v, Q, P and F_hat. SolverError if M_hat
  // is singular (a singular configuration of the joints).
  void evaluate(Point& e);
  // The joint state of the absolute state s: alpha = g^-1(q), p_hat = H(alpha)^T T_v(q, v).
  void joint_state(const assembly::State& s, double t, std::vector<double>& alpha, std::vector<double>& p_hat);

  // Transposed products; each adds `weight` times its parameter and control terms into `gradient` (none if weight
  // is 0).
  // (alpha_bar, p_bar) = (dPhi/d(alpha, p_hat))^T (mu, nu) at e (overwritten), and (mu, nu) . dPhi/dp.
  void rate_transposed(const Point& e, const std::vector<double>& mu, const std::vector<double>& nu,
                       std::vector<double>& alpha_bar, std::vector<double>& p_bar, assembly::LocalGradient& gradient,
                       double weight = 1.0);
  // The map (alpha, p_hat) -> (q, v) = (g(alpha), H beta) at e: (alpha_bar, p_bar) from (q_bar, v_bar) (overwritten).
  void absolute_state_transposed(const Point& e, const std::vector<double>& q_bar, const std::vector<double>& v_bar,
                                 std::vector<double>& alpha_bar, std::vector<double>& p_bar,
                                 assembly::LocalGradient& gradient, double weight = 1.0);
  // The map (q, v) -> (alpha, p_hat) of joint_state() at s (alpha = its joint coordinates): q_bar, v_bar +=.
  void joint_state_transposed(const assembly::State& s, double t, const std::vector<double>& alpha,
                              const std::vector<double>& alpha_bar, const std::vector<double>& p_bar,
                              std::vector<double>& q_bar, std::vector<double>& v_bar,
                              assembly::LocalGradient& gradient);

 private:
  // alpha_grad += d/d(alpha) S and gradient += weight d/dp S (the wanted joint parameters; gradient may be nullptr) of
  //   S = c0 . g(alpha) + c1 . g'(alpha)[y] + c2 . g'(alpha)[z] + c12 . g''(alpha)[y, z]   (nullptr c: 0).
  void directional_gradient(const std::vector<double>& alpha, const double* y, const double* z, const double* c0,
                            const double* c1, const double* c2, const double* c12, double* alpha_grad,
                            assembly::LocalGradient* gradient, double weight = 1.0);
  // g'(alpha)[y] and g''(alpha)[y, z].
  void directional_values(const std::vector<double>& alpha, const double* y, const double* z, double* first,
                          double* second);
  // H = dg/dalpha at alpha (column-major n x k).
  void jacobian(const std::vector<double>& alpha, std::vector<double>& h);
  // The wanted joint parameters of `gradient`: (index into tree.parameters(), index into gradient.parameters).
  void wanted_parameters(const assembly::LocalGradient& gradient);
  // H x, H^T x and M_hat^-1 x (in place) at e.
  void times_jacobian(const Point& e, const std::vector<double>& x, std::vector<double>& out) const;
  void jacobian_transpose_times(const Point& e, const std::vector<double>& x, std::vector<double>& out) const;
  void mass_solve(const Point& e, std::vector<double>& x) const;
  // w_ = H s, c_ = P_q^T w_ and mw_ = M w_ at e: the pieces of d(s . M_hat beta)/dalpha.
  void momentum_products(const Point& e, const std::vector<double>& s);

  assembly::Assembler& assembler_;
  const model::JointTree& tree_;
  VariationalAssembly forces_;
  int n_, k_;
  std::vector<std::pair<int, int>> wanted_;
  assembly::State work_;
  std::vector<double> zero_n_, weighted_, w1_, w2_, a_, b_, s_, w_, c_, mw_, hb_, column_, k_work_, k_work2_, h_work_;
};

}  // namespace flexadj::integrators
