#pragma once
// The constrained Hamiltonian equations of Maciag, Malczyk and Fraczek 2022 ([MMF22], docs/references.md) in
// absolute coordinates (v = dq/dt): with the augmented momenta p* = M v + D sigma (eq. (4)), D = C_q^T,
//   [M(q) D(q); D^T(q) 0] [v; sigma] = [p*; -C_t]                                         (6a)
//   dp*/dt = Q(q, v, t) + D'(q, v) sigma,   D' sigma = (d(C_q v + C_t)/dq)^T sigma           (6b)
// with Q = Q_ex - H_q = T_q + f (kinetic energy T, all other forces f; [MMF22] eq. (3)); sigma integrates the
// multipliers, d sigma/dt = lambda, with the signs of flexadj's M a - Q + C_q^T lambda = 0 ([MMF22] eq. (3):
// dp/dt = Q - D lambda). Index 2: (6a) holds the velocity constraints, C(q) = 0 is hidden.
//
// Integrator: (6a) eliminates v and sigma, so (6a)/(6b) is an ODE in (q, p*), integrated by the explicit trapezoidal
// rule (Heun, order 2; Hairer, Norsett and Wanner, Solving ODE I, sec. II.1) with the projection of q onto C = 0
// after each step (coordinate projection: Hairer, Lubich and Wanner, GNI, sec. IV.4; Eich 1993 for mechanical
// systems); the velocities need none, (6a) gives D^T v + C_t = 0 at every stage. Each step starts from sigma_n = 0,
// p*_n = T_v(q_n, v_n) (eq. (4) with sigma = 0, as [MMF22] start at t = 0): sigma is a gauge of the exact flow
// (p* + D delta, sigma + delta give the same v), so restarting it keeps the order and makes (q, v) the whole state.
//   p_n = T_v(q_n, v_n),  F_n = Q(q_n, v_n, t_n)
//   q* = q_n + h v_n,  p* = p_n + h F_n;   (6a) at (q*, t_n + h): v*, sigma*;   F* = Q(q*, v*) + D'(q*, v*) sigma*
//   q~ = q_n + h/2 (v_n + v*),  p~ = p_n + h/2 (F_n + F*)
//   q_{n+1}: q - q~ + C_q(q)^T nu = 0, C(q, t_{n+1}) = 0 (Newton);  (6a) at q_{n+1} with p~: v_{n+1} (sigma dropped)
// a_{n+1}, lambda_{n+1} (output, as the other integrators fill them) by one back-substitution with the
// factorization of (6a) at q_{n+1}, the matrix of the consistent accelerations. Per step two factorizations of
// [M C_q^T; C_q 0] beside the Newton iterations of the projection (state_space: three). Explicit: the step must
// resolve the highest frequency of the model (as state_space.hpp).
//
// The discrete adjoint (transpose_step; docs/adjoint.md, "The Hamiltonian integrator") is the transpose of the
// linearised step map above: it recomputes step n from state n - 1 and takes the transposed stages in reverse order.
// The derivative of D' sigma with respect to q needs third derivatives of C: xi . D'(q, v) sigma =
// sigma . (dc_vel/dq) xi is bilinear in (v, xi), so with c_acc(q, w) the acceleration-level constraint at a = 0,
//   sigma . (dc_vel/dq)(q, v) xi = sigma . [c_acc(q, v + s xi) - c_acc(q, v - s xi)] / (4 s)   (any s != 0)
// (polarization), whose q, v and parameter derivatives the assembler gives; s = |v|/|xi| keeps both arguments of
// one size (no cancellation).
#include <string>
#include <vector>

#include "flexadj/integrators/carried_state_adjoint.hpp"
#include "flexadj/integrators/variational_assembly.hpp"

namespace flexadj::integrators {

class Hamiltonian final : public CarriedStateIntegrator {
 public:
  Hamiltonian(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
              const linalg::LinearSolverOptions& solver_options);

  // The given q and v projected onto the constraints (TimeIntegrator::project_initial_state), a_0 and lambda_0.
  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;

  // The adjoint variables are (dJ/dq_n, dJ/dv_n) of the steps after n (CarriedStateIntegrator).
  void begin_adjoint(storage::Trajectory& trajectory) override;
  // x_n_bar . dPhi/dh_n of the step map (explicit time held: refused by the problem checks), from the stage
  // adjoints of the last adjoint_step(n).
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

  // The transposed pieces of (6a)/(6b), which the discrete adjoint and the continuous one of [MMF22] eqs.
  // (21a)-(21c) (adjoint/hamiltonian_continuous_adjoint.hpp) share; begin_adjoint() first. Collective.
  //
  // The transpose of (6a) at (state.q, t) with v = state.v, sigma = state.lambda: A^T [rho; kappa] = [v_bar;
  // sigma_bar] (sigma_bar nullptr: zero), p_bar = rho, multipliers() = -kappa, q_bar -= d(M v + C_q^T sigma)/dq^T rho
  // + d(C_q v + C_t)/dq^T kappa, and the parameter terms with -[rho; kappa] into `gradient`.
  void momentum_system_adjoint(const assembly::State& state, double t, const std::vector<double>& v_bar,
                               const std::vector<double>* sigma_bar, std::vector<double>& p_bar,
                               std::vector<double>& q_bar, assembly::LocalGradient& gradient);
  const std::vector<double>& multipliers() const { return kappa_; }
  // The transpose of (6b)'s right-hand side F(q, v, sigma) at `state` (lambda = sigma) for F_bar = xi: q_bar, v_bar,
  // sigma_bar += (dF/d.)^T xi, parameter and control terms into `gradient` (polarization for D' sigma, above).
  void rate_adjoint(const assembly::State& state, double t, const std::vector<double>& xi, std::vector<double>& q_bar,
                    std::vector<double>& v_bar, std::vector<double>& sigma_bar, assembly::LocalGradient& gradient);
  // [M D; D^T 0] [x; y] = [rhs_q; rhs_m], the matrix of (6a) at (q, t) (symmetric), factorized afresh.
  void solve_momentum_matrix(const std::vector<double>& q, double t, const std::vector<double>& rhs_q,
                             const std::vector<double>& rhs_m, std::vector<double>& x, std::vector<double>& y);
  // out = M(q) x (T_v at v = x).
  void mass_times(const std::vector<double>& q, double t, const std::vector<double>& x, std::vector<double>& out);
  // gradient += mu . d(C_q v + C_t)/dp at `state`: the velocity-level constraints' parameter terms.
  void add_velocity_constraint_parameter_terms(const assembly::State& state, double t, const std::vector<double>& mu,
                                               assembly::LocalGradient& gradient);
  // d(sigma)/dt of (6a)/(6b) at a stored state (q, v, a): D lambda = T_q + f - d(T_v)/dt, i.e.
  // [M D; D^T 0] [x; lambda] = [T_q + f - (dT_v/dq) v - M a; 0] (x = 0). It differs from the state's lambda where the
  // assembler's residual writes the inertia forces otherwise along the columns of D (the Newton-Euler form of the
  // Euler-parameter bodies: body_inertia.cpp). `no_direction`: a zero LocalGradient (parameters held).
  void hamiltonian_multipliers(const assembly::State& state, double t, const assembly::LocalGradient& no_direction,
                               std::vector<double>& lambda);
  // The transpose of p* = T_v(q, v) + C_q^T sigma (eq. (4); sigma = state.lambda): q_bar, v_bar += its derivatives'
  // transposes times p_bar, the parameter terms into `gradient`.
  void add_momentum_transposed(const assembly::State& state, double t, const std::vector<double>& p_bar,
                               std::vector<double>& q_bar, std::vector<double>& v_bar,
                               assembly::LocalGradient& gradient);

 private:
  void recompute_step(const assembly::State& previous, double t, double h) override;
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;
  // What one step computes: p_n, F_n; the stage (q*, v*, lambda = sigma*) with p*, F*; q~, p~; the projected state
  // (q_{n+1}, v_{n+1}) with nu and sigma_{n+1}.
  struct Stages {
    assembly::State stage, projected;
    std::vector<double> p0, f0, p_stage, f_stage, q_tilde, p_tilde, nu, sigma_next;
  };
  // Step from `state` (q_n, v_n) to stages.projected (forward assembly; the forward step and the adjoint's
  // recomputation alike).
  void advance(const assembly::State& state, double t, double h, Stages& stages, StepStatistics& statistics);
  VariationalAssembly forces_;  // T_v, T_q + f and their transposed products
  Stages forward_, recomputed_;
  // The backward sweep's stage adjoints and work vectors.
  assembly::State polar_;  // rate_adjoint()'s states (q, v +- s xi)
  std::vector<double> q_tilde_bar_, p_tilde_bar_, stage_q_bar_, stage_v_bar_,
      stage_p_bar_, f0_bar_, f_stage_bar_, p0_bar_, rho_, mu_q_, scratch_, y_k_, y_d_, y_m_, zero_n_;
  std::vector<double> stage_sigma_bar_, kappa_, mu_c_;
};

}  // namespace flexadj::integrators
