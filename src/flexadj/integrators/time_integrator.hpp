#pragma once
// The forward integrators behind one interface: generalized-alpha / HHT (generalized_alpha.hpp) and the midpoint
// variational integrator (variational.hpp), chosen by IntegratorSettings::scheme through make_time_integrator().
// The base holds what both share: the linear solver of the saddle-point systems on the assembler's graph, and the
// consistent initial state (projection of the given q, v onto the constraints; accelerations and multipliers).
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::integrators {

// The projection of the given initial state onto the constraints (TimeIntegrator::project_initial_state): the
// given q and v and the multipliers of the two projection problems, kept for the adjoint.
struct InitialProjection {
  std::vector<double> given_q, given_v, position_multipliers, velocity_multipliers;
};

struct StepStatistics {
  int newton_iterations = 0;
  double increment = 0.0;           // last ||dq||_inf
  double constraint_residual = 0.0; // ||C(q_{n+1})||_inf at convergence
};

class TimeIntegrator {
 public:
  virtual ~TimeIntegrator() = default;
  TimeIntegrator(const TimeIntegrator&) = delete;
  TimeIntegrator& operator=(const TimeIntegrator&) = delete;

  // Consistent initial state from the given q and v (see project_initial_state()).
  virtual void initialize(assembly::State& state, double t0) = 0;
  // Advances state from t to t + h; throws SolverError (with step, time and residuals) on failure.
  virtual StepStatistics step(assembly::State& state, double t, double h, long long step_index) = 0;
  // One line for the run header, e.g. "generalized-alpha, rho_inf = 0.9 (alpha_m = 0.4737, alpha_f = 0.4737)".
  virtual std::string description() const = 0;

  const InitialProjection& initial_projection() const { return projection_; }
  const linalg::LinearSolver& linear_solver() const { return *solver_; }
  // The options the linear solver was made with (adjoint sweeps make theirs alike).
  const linalg::LinearSolverOptions& solver_options() const { return solver_options_; }

 protected:
  TimeIntegrator(assembly::Assembler& assembler, const model::IntegratorSettings& settings,
                 const linalg::LinearSolverOptions& solver_options);

  // Solves the last assembled system for the increment -A^{-1} r (factorizing the current matrix).
  Teuchos::ArrayRCP<const double> newton_increment();
  // Solves the last assembled matrix for the given right-hand side (factorizing it).
  Teuchos::ArrayRCP<const double> solve(const Vector& right_hand_side);
  // The given q and v projected onto the constraints,
  //   q0 = argmin |q - q_given|^2 subject to C(q, t0) = 0,   v0 = argmin |v - v_given|^2 subject to dC/dt = 0,
  // so that parameters of the constraints (a rod length) move the initial state consistently; a given state that
  // violates a constraint by more than 1e-2 (relative) is an input error. Fills initial_projection().
  void project_initial_state(assembly::State& state, double t0);
  // a and lambda from M a + C_q^T lambda = Q, C_acc = 0 at the state's q and v. factorized: the solver holds the
  // factorization of [M C_q^T; C_q 0] at this q already (only the right-hand side is assembled).
  void solve_consistent_accelerations(assembly::State& state, double t, bool factorized = false);
  // ||x||_inf over all ranks.
  double max_norm(const std::vector<double>& x) const;
  // "Newton iteration failed at step ..." with time, iterations, residuals and advice (SolverError).
  [[noreturn]] void throw_newton_failure(long long step_index, double t, const StepStatistics& statistics) const;

  assembly::Assembler& assembler_;
  model::IntegratorSettings settings_;
  linalg::LinearSolverOptions solver_options_;
  std::unique_ptr<linalg::LinearSolver> solver_;
  RCP<Vector> increment_, right_hand_side_;
  InitialProjection projection_;
};

// The integrator of settings.scheme: generalized_alpha, hht or variational.
std::unique_ptr<TimeIntegrator> make_time_integrator(assembly::Assembler& assembler,
                                                     const model::IntegratorSettings& settings,
                                                     const linalg::LinearSolverOptions& solver_options);

}  // namespace flexadj::integrators
