#pragma once
// Generalized-alpha for index-3 DAEs (Arnold and Bruls 2007, Multibody Syst Dyn 18:185-202):
//   M(q_{n+1}) a_{n+1} - Q(q_{n+1}, v_{n+1}, t_{n+1}) + C_q^T lambda_{n+1} = 0,  C(q_{n+1}, t_{n+1}) = 0,
//   q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) aux_n + h^2 beta aux_{n+1},
//   v_{n+1} = v_n + h (1 - gamma) aux_n + h gamma aux_{n+1},
//   (1 - alpha_m) aux_{n+1} + alpha_m aux_n = (1 - alpha_f) a_{n+1} + alpha_f a_n,
// with alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1), gamma = 1/2 + alpha_f - alpha_m,
// beta = (gamma + 1/2)^2 / 4 (Chung and Hulbert 1993). The HHT coefficients (Hilber, Hughes and Taylor
// 1977) are the special case alpha_m = 0, alpha_f = (1 - rho)/(1 + rho), gamma = 1/2 + alpha_f,
// beta = (1 + alpha_f)^2 / 4, for rho in [1/2, 1] (Arnold and Bruls 2007, sec. 2).
// Newton iterates on (q, beta h^2 lambda) with the scaled matrix of assembler.hpp.
#include <memory>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::integrators {

struct GeneralizedAlphaCoefficients {
  double alpha_m, alpha_f, beta, gamma;
  static GeneralizedAlphaCoefficients from_spectral_radius(double rho_infinity);
  static GeneralizedAlphaCoefficients hht(double rho_infinity);
  static GeneralizedAlphaCoefficients for_scheme(const std::string& scheme, double rho_infinity);
};

// The projection of the given initial state onto the constraints (see GeneralizedAlpha::initialize): the
// given q and v and the multipliers of the two projection problems, kept for the adjoint.
struct InitialProjection {
  std::vector<double> given_q, given_v, position_multipliers, velocity_multipliers;
};

struct StepStatistics {
  int newton_iterations = 0;
  double increment = 0.0;           // last ||dq||_inf
  double constraint_residual = 0.0; // ||C(q_{n+1})||_inf at convergence
};

class GeneralizedAlpha {
 public:
  GeneralizedAlpha(assembly::Assembler& assembler, const model::IntegratorSettings& settings,
                   const linalg::LinearSolverOptions& solver_options);

  // Consistent initial state. The given q and v are projected onto the constraints,
  //   q0 = argmin |q - q_given|^2 subject to C(q, t0) = 0,   v0 = argmin |v - v_given|^2 subject to dC/dt = 0,
  // so that parameters of the constraints (a rod length) move the initial state consistently; a given
  // state that violates a constraint by more than 1e-2 (relative) is an input error. Then the accelerations
  // and multipliers from M a + C_q^T lambda = Q, C_acc = 0; aux = a.
  void initialize(assembly::State& state, double t0);
  const InitialProjection& initial_projection() const { return projection_; }
  // Advances state from t to t + h; throws SolverError (with step, time and residuals) on failure.
  StepStatistics step(assembly::State& state, double t, double h, long long step_index);

  const GeneralizedAlphaCoefficients& coefficients() const { return coefficients_; }
  const linalg::LinearSolver& linear_solver() const { return *solver_; }
  // The options the linear solver was made with (adjoint sweeps make theirs alike).
  const linalg::LinearSolverOptions& solver_options() const { return solver_options_; }

 private:
  // Solves the last assembled system for the increment -A^{-1} r (factorizing the current matrix).
  Teuchos::ArrayRCP<const double> newton_increment();

  assembly::Assembler& assembler_;
  model::IntegratorSettings settings_;
  GeneralizedAlphaCoefficients coefficients_;
  linalg::LinearSolverOptions solver_options_;
  std::unique_ptr<linalg::LinearSolver> solver_;
  RCP<Vector> increment_, right_hand_side_;
  std::vector<double> previous_a_, previous_aux_, last_increment_;
  InitialProjection projection_;
};

}  // namespace flexadj::integrators
