#pragma once
// The joint-space Hamiltonian equations of Maciag, Malczyk and Fraczek 2022 ([MMF22], docs/references.md), eqs.
// (8)-(10), for an open-loop model (model/joint_tree.hpp: q = g(alpha), v = H beta, H = dg/dalpha, beta =
// d(alpha)/dt):
//   M_hat(alpha) beta = p_hat,   M_hat = H^T M H                                              (10a)
//   d(p_hat)/dt = F_hat = H^T Q + H'^T M H beta,   Q = T_q + f                                (10b)
// as the ODE y' = Phi(y, t) in y = (alpha, p_hat), Phi = (beta, F_hat), with its transposed Jacobian products for
// the discrete adjoint. H'^T P equals (d(H beta)/d(alpha))^T P for H = dg/dalpha (second derivatives of g
// commute), so with P = T_v = M v
//   F_hat = d/d(alpha) [Q . g(alpha) + P . g'(alpha)[beta]]   (Q, P held),
// and every product below is the gradient of such a scalar, c0 . g + c1 . g'[y] + c2 . g'[z] + c12 . g''[y, z],
// with respect to alpha and the joints' parameters. The absolute pieces (Q, P = T_v, M, and their transposed
// products and parameter terms) come from the model's force elements (VariationalAssembly, as the absolute
// Hamiltonian integrator).
//
// Cost O(n) per evaluation and per transposed product, for chains of any length (the role of the recursive O(n)
// algorithms [MMF22] cites, refs. [9, 31]), from three recursions over the tree and one sparse solve:
// - g(alpha), g'[y] and g''[y, z]: one pass of q = g(alpha), parents before children, on the four parts of every
//   coordinate (model/planar_link_map.hpp: the planar link maps written out, one cos/sin per angle; spatial links in
//   nested forward types through model::JointTree::place_child);
// - gradients of the scalar above (H^T x among them): the reverse of that pass, children before parents, each link
//   differentiated locally on its parent's and child's coordinates only (the transposed planar link maps; place_child
//   in nested forward types for the spatial links);
// - M_hat^-1 x without forming M_hat: with G = g^-1 (joint coordinates from the bodies', link by link) G_q H = I and
//   C_q H = 0, so the velocities of joint momenta x solve the sparse saddle-point system of eq. (6a),
//     [M C_q^T; C_q 0] [v; sigma] = [G_q^T x; 0],   M_hat^-1 x = G_q v
//   (v = H b for some b as C_q v = 0; H^T of the first row gives M_hat b = x), factorized by the direct solver
//   (KLU2: a tree's saddle-point matrix factorizes without fill beyond its links) once per configuration q; G_q
//   link by link (model/planar_link_inverse.hpp for planar links, JointTree::read_link in forward types for spatial).
// Serial: one rank (integrators/joint_hamiltonian.hpp refuses more).
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/variational_assembly.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "flexadj/model/joint_tree.hpp"
#include "flexadj/model/planar_link_inverse.hpp"
#include "flexadj/model/planar_link_map.hpp"

namespace flexadj::integrators {

// The joint tree of the assembler's model (model/joint_tree.hpp) on its one rank. InputError naming `key` for more
// than one rank (the joint-space equations are serial) and for what JointTree refuses.
std::unique_ptr<model::JointTree> make_joint_tree(const assembly::Assembler& assembler, const std::string& key);

class JointSpaceEquations {
 public:
  // One evaluation of (10a)/(10b) at (alpha, p_hat, t).
  struct Point {
    std::vector<double> alpha, p_hat, beta, rate;  // rate = F_hat
    std::vector<double> force, momentum;           // Q and P = T_v at (q, v)
    assembly::State state;                         // q = g(alpha), v = H beta
    double t = 0.0;
  };

  JointSpaceEquations(assembly::Assembler& assembler, const model::JointTree& tree);
  ~JointSpaceEquations();
  Point make_point() const;
  int size() const { return k_; }

  // Fills e from e.alpha, e.p_hat and e.t: q, beta, v, Q, P and F_hat. SolverError if M_hat is singular (a
  // singular configuration of the joints).
  void evaluate(Point& e);
  // Between begin_step() and end_step() (one step's configurations, or one transposed step's) the saddle-point
  // factorizations after the first reuse its pivot order (KLU's refactorization, linear_solver.hpp, Pivots); the
  // first is fresh, so that a step depends on its start alone. Outside, every factorization is fresh.
  void begin_step();
  // begin_step() for the transpose of the step just evaluated (the discrete adjoint after its recomputation): the
  // factorization held descends from that step's fresh one, so it is kept and later ones reuse its pivot order; the
  // transposed step, like the step, then depends on the step's start alone.
  void resume_step() {
    within_step_ = true;
    step_factorized_ = factorized_;
  }
  void end_step() { within_step_ = false; }
  // The solver holding the factorization of [M C_q^T; C_q 0] at q (its velocity level, mass only), or nullptr.
  linalg::LinearSolver* factorization_at(const std::vector<double>& q) const {
    return factorized_ && q == factorized_q_ ? solver_.get() : nullptr;
  }
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

  // The kinematic products of g (also the null-space matrix H and nodal reparametrization of the null-space
  // variational integrator, null_space_variational.hpp).
  // alpha_grad += d/d(alpha) S and gradient += weight d/dp S (the wanted joint parameters; gradient may be nullptr) of
  //   S = c0 . g(alpha) + c1 . g'(alpha)[y] + c2 . g'(alpha)[z] + c12 . g''(alpha)[y, z]   (nullptr c: 0),
  // by the reverse of g's pass over the tree.
  void directional_gradient(const std::vector<double>& alpha, const double* y, const double* z, const double* c0,
                            const double* c1, const double* c2, const double* c12, double* alpha_grad,
                            assembly::LocalGradient* gradient, double weight = 1.0);
  // g'(alpha)[y] and g''(alpha)[y, z] (either output may be nullptr).
  void directional_values(const std::vector<double>& alpha, const double* y, const double* z, double* first,
                          double* second);
  // H(alpha)^T x.
  void jacobian_transpose_times(const std::vector<double>& alpha, const std::vector<double>& x,
                                std::vector<double>& out);

 private:
  // G_q(q) v with G = g^-1 (out: k values), and q_bar += G_q^T a_bar, gradient += a_bar . dG/dp (gradient may be
  // nullptr).
  void inverse_tangent(const std::vector<double>& q, const std::vector<double>& v, std::vector<double>& out);
  void inverse_transposed(const std::vector<double>& q, const std::vector<double>& a_bar, std::vector<double>& q_bar,
                          assembly::LocalGradient* gradient);
  // The planar link `index`'s inverse map derivatives at q into inverse_dq_, inverse_dp_
  // (model/planar_link_inverse.hpp) and its coordinates' indices into inverse_index_; returns their number.
  int planar_inverse_jacobian(std::size_t index, const std::vector<double>& q);
  // The wanted joint parameters of `gradient` by link: (index into the link's parameters, index into
  // gradient.parameters).
  void wanted_parameters(const assembly::LocalGradient& gradient);
  // H x and M_hat^-1 x (in place) at e.
  void times_jacobian(const Point& e, const std::vector<double>& x, std::vector<double>& out);
  void mass_solve(const Point& e, std::vector<double>& x);
  // w_ = H s, c_ = P_q^T w_ and mw_ = M w_ at e: the pieces of d(s . M_hat beta)/dalpha.
  void momentum_products(const Point& e, const std::vector<double>& s);
  // The forward pass of g: parts_ (g, g'[y], g'[z], g''[y, z] of every coordinate; y, z nullptr: 0) and turns_.
  void forward_parts(const std::vector<double>& alpha, const double* y, const double* z);
  // The reverse of link `index` of that pass in nested forward types (the spatial links): the weights w on the
  // child's parts to its parent's parts, alpha_grad and gradient (its wanted parameters).
  void link_transposed_ad(std::size_t index, double* w, double* alpha_grad, assembly::LocalGradient* gradient,
                          double weight);

  assembly::Assembler& assembler_;
  const model::JointTree& tree_;
  VariationalAssembly forces_;
  int n_, k_;
  std::vector<std::vector<std::pair<int, int>>> wanted_;  // by link
  // The saddle-point system of mass_solve(), factorized at the configuration factorized_q_.
  std::unique_ptr<linalg::LinearSolver> solver_;
  Teuchos::RCP<Vector> rhs_, solution_;
  assembly::State saddle_state_;
  std::vector<double> factorized_q_;
  bool factorized_ = false;
  bool factorized_fresh_ = false;   // the factorization held was made with a pivot search
  bool within_step_ = false;        // begin_step() .. end_step()
  bool step_factorized_ = false;    // a fresh factorization since begin_step()
  double inverse_dq_[3][6], inverse_dp_[3][16];
  int inverse_index_[6];
  std::vector<model::Parts> parts_, alpha_parts_;  // by local coordinate, by joint coordinate
  std::vector<model::LinkTurns> turns_;    // by link
  std::vector<model::Turn> body_turn_;     // by body: cos, sin of its angle (planar rigid bodies)
  std::vector<double> zero_n_, weighted_, w1_, w2_, a_, b_, s_, w_, c_, mw_, column_, k_work_, k_work2_, f_, v_,
      adjoint_parts_;
};

}  // namespace flexadj::integrators
