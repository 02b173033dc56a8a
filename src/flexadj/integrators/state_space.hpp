#pragma once
// The state-space form of Held and Seifried ([HS], docs/references.md): with the QR decomposition C_q^T = Q1 R1
// (their eq. (4)) the accelerations are dv/dt = Q2 a_f - Q1 R1^-T c_tt (eq. (10b)) with the independent accelerations
// a_f from (Q2^T M Q2) a_f = Q2^T M Q1 R1^-T c_tt + Q2^T f (eq. (14)); eq. (15) is the ODE. This is the null-space
// solution of the saddle-point system of the consistent accelerations,
//   [M C_q^T; C_q 0] [a; lambda] = [Q; -gamma]            (C_acc = C_q a + gamma = 0)
// (benchmarks.md, "003"), so flexadj solves that system instead of forming Q2: the sparse path, with the
// assembler's Tpetra matrix and the linear solver of the other integrators. A dense QR of C_q^T is an n x n factor
// Q (a 10^4-link chain: 7e4 x 7e4 dense); the saddle-point factorization keeps the sparsity of M and C_q.
//
// The ODE in (q, v), a = a(q, v, t), is integrated by the explicit trapezoidal rule (Heun's method, order 2;
// Hairer, Norsett and Wanner, Solving ODE I, sec. II.1), followed by the projection of q onto C(q, t) = 0 and of
// v onto C_q v + C_t = 0 (coordinate projection: Hairer, Lubich and Wanner, Geometric Numerical Integration,
// sec. IV.4; Eich 1993, SIAM J. Numer. Anal. 30:1467-1482, for mechanical systems), which keeps the order and
// removes the drift of the index-1 form. The projection is the closest point, C_q at the projected q as in
// TimeIntegrator::project_initial_state (GNI's Algorithm 4.2 takes C_q at the unprojected point; both keep the
// order):
//   q* = q_n + h v_n,                       v* = v_n + h a_n,            a_n = a(q_n, v_n, t_n)
//   q~ = q_n + h/2 (v_n + v*),               v~ = v_n + h/2 (a_n + a*),   a* = a(q*, v*, t_n + h)
//   q_{n+1} - q~ + C_q(q_{n+1})^T nu = 0,    C(q_{n+1}, t_{n+1}) = 0                     (Newton)
//   v_{n+1} - v~ + C_q(q_{n+1})^T nu' = 0,   C_q(q_{n+1}) v_{n+1} + C_t = 0              (one linear solve)
// and a_{n+1}, lambda_{n+1} consistent with q_{n+1}, v_{n+1} (the first stage of the next step). Explicit: Heun's
// method amplifies an undamped mode of frequency w by 1 + (h w)^4/8 per step and is unstable beyond h w = 2 for
// damped ones, so the step must resolve the model's highest frequency (stiff beams want generalized-alpha or the
// variational integrator). Per step three factorizations of [M C_q^T; C_q 0] or the projection matrix
// beside the Newton iterations of the position projection (usually two).
//
// The discrete adjoint (transpose_step; docs/adjoint.md, "The state-space integrator") is the transpose of the
// linearised step map above, projections included: it recomputes step n from state n - 1 (forward matrices) and
// takes the transposed stages in reverse order.
#include <string>
#include <vector>

#include "flexadj/integrators/carried_state_adjoint.hpp"

namespace flexadj::integrators {

class StateSpace final : public CarriedStateIntegrator {
 public:
  StateSpace(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
             const linalg::LinearSolverOptions& solver_options);

  // The given q and v projected onto the constraints (TimeIntegrator::project_initial_state), a_0 and lambda_0.
  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;

  // The adjoint variables are (dJ/dq_n, dJ/dv_n) of the steps after n (CarriedStateIntegrator).
  void begin_adjoint(storage::Trajectory& trajectory) override;
  // x_n_bar . dPhi/dh_n of the step map x_n = Phi(x_{n-1}, h_n) (explicit time held: refused by the problem
  // checks), from the stage adjoints of the last adjoint_step(n).
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

 private:
  void recompute_step(const assembly::State& previous, double t, double h) override;
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;
  // What one step computes on the way: the second stage (q*, v*, a*, lambda*), q~, v~, the projected state
  // (q_{n+1}, v_{n+1}) and the multipliers nu, nu' of the two projections.
  struct Stages {
    assembly::State stage, projected;
    std::vector<double> q_tilde, v_tilde, nu, nu_velocity;
  };
  // Step from `state` (q_n, v_n with a_n, lambda_n) to stages.projected; the forward step and the adjoint's
  // recomputation alike (forward assembly).
  void advance(const assembly::State& state, double t, double h, Stages& stages, StepStatistics& statistics);
  // projected.q from q~ by Newton to round-off; projected.lambda = nu.
  void project_positions(Stages& stages, double t, StepStatistics& statistics);
  // projected.v from v~ (linear); projected.lambda = nu'.
  void project_velocities(Stages& stages, double t);
  // The transpose of the acceleration map at `state` (a, lambda solved there): with
  // [M C_q^T; C_q 0]^T [mu_r; mu_c] = [-a_bar; 0], q_bar += K^T mu_r + (dC_acc/dq)^T mu_c,
  // v_bar += D^T mu_r + (dC_acc/dv)^T mu_c, and mu . d[R; C_acc]/dp into `gradient`.
  void acceleration_adjoint(const assembly::State& state, double t, const std::vector<double>& a_bar,
                            std::vector<double>& q_bar, std::vector<double>& v_bar, assembly::LocalGradient& gradient);

  // The kinds of transposed matrices a step factorizes, each with its own adjoint solver and pivot order.
  enum AdjointMatrix { kVelocityProjection = 0, kPositionProjection = 1, kAccelerations = 2, kAdjointMatrices = 3 };
  int consistent_accelerations_solver() const override { return kAccelerations; }

  Stages forward_, recomputed_;
  // The backward sweep's stage adjoints and work vectors.
  std::vector<double> q_tilde_bar_, v_tilde_bar_, stage_q_bar_, stage_v_bar_,
      a_bar_, mu_r_, mu_c_, rho_, y_k_, y_d_, y_m_;
};

}  // namespace flexadj::integrators
