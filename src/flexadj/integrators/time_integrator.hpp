#pragma once
// The time integrators behind one interface, each with its forward step and its discrete adjoint step side by side
// in one file (TACS's marchOneStep / marchBackwards): generalized-alpha / HHT (generalized_alpha.hpp), the
// midpoint variational integrator (variational.hpp), the state-space form (state_space.hpp) and the constrained
// Hamiltonian equations (hamiltonian.hpp), chosen by IntegratorSettings::scheme and coordinates through
// make_time_integrator() and the registry (registry.hpp). The base holds what all share: the linear solver of the
// saddle-point systems on the assembler's graph, the consistent initial state (projection of the given q, v
// onto the constraints; accelerations and multipliers) and the adjoint of that projection.
//
// Adding an integrator (docs/design.md, "Adding an integrator"): one class derived from TimeIntegrator in one file
// pair, with initialize() and step() for the forward run and begin_adjoint() and adjoint_step() for the backward
// sweep of adjoint::discrete_adjoint_gradient, and a line in integrator_kinds() (registry.cpp).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/integrator_settings.hpp"
#include "flexadj/integrators/kept_adjoint_steps.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "flexadj/storage/step_recomputer.hpp"

namespace flexadj::storage {
class Trajectory;
}

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

class TimeIntegrator : public storage::StepRecomputer {
 public:
  ~TimeIntegrator() override = default;
  TimeIntegrator(const TimeIntegrator&) = delete;
  TimeIntegrator& operator=(const TimeIntegrator&) = delete;

  // Consistent initial state from the given q and v (see project_initial_state()).
  virtual void initialize(assembly::State& state, double t0) = 0;
  // Advances state from t to t + h; throws SolverError (with step, time and residuals) on failure.
  virtual StepStatistics step(assembly::State& state, double t, double h, long long step_index) = 0;
  // One line for the run header, e.g. "generalized-alpha, rho_inf = 0.9 (alpha_m = 0.4737, alpha_f = 0.4737)".
  virtual std::string description() const = 0;
  // The local error estimate of the step from `before` to `after` (size h) for error-controlled steps
  // (IntegratorSettings::step_control), in the norm max_i e_i / (atol + rtol |q|_inf) over all ranks (collective):
  // the step is accepted if it is at most 1. An integrator without an estimate throws std::logic_error (the model
  // reader refuses step control for it).
  virtual double local_error(const assembly::State& before, const assembly::State& after, double h) const;
  // What step() carries from one step to the next outside the State (the variational predictor's mean
  // acceleration), so that a checkpointed trajectory restarting at step n recomputes steps n + 1, ... bit for bit.
  void save_restart_data(std::vector<double>& data) const override { data.clear(); }
  void load_restart_data(const std::vector<double>& data) override { (void)data; }
  // storage::StepRecomputer: the steps of settings() (step_times()), step() again, describe_run().
  std::vector<double> recorded_step_times() const override;
  void recompute_step(assembly::State& state, double t, double h, long long n) override { step(state, t, h, n); }
  results::RunDescription run_description() const override;

  // The discrete adjoint (docs/adjoint.md): the backward sweep of adjoint::discrete_adjoint_gradient calls
  // begin_adjoint() once, then adjoint_step() for n = N, N-1, ..., 0 over the trajectory of the last forward run of
  // this integrator. On entry dJ_dq, dJ_dv hold the objective's partial derivatives with respect to q_n and v_n
  // (owned coordinates); the step adds its parameter and control terms to `gradient` and keeps the adjoint
  // variables it passes to step n - 1. At n = 0 it also runs the adjoint of initialize() (the consistent initial
  // state and the projection onto the constraints): on exit dJ_dq, dJ_dv are the total derivatives with respect
  // to the model's given initial coordinates and velocities. `state` is step n of `trajectory`, which the step may
  // read backwards (n - 1) as well. Collective. The assembler is set to transposed assembly for the sweep.
  virtual void begin_adjoint(storage::Trajectory& trajectory) = 0;
  // The adjoint variables adjoint_step() passes from step n to step n - 1, so that a sweep interrupted after step n
  // continues bit for bit in another process: begin_adjoint(), then load_adjoint_data(), then adjoint_step(n - 1).
  virtual void save_adjoint_data(std::vector<double>& data) const = 0;
  virtual void load_adjoint_data(const std::vector<double>& data) = 0;
  virtual void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                            std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                            assembly::LocalGradient& gradient) = 0;
  // adjoint_step() with the objective's dJ/da_n as well (terms on accelerations, Objective::on_accelerations): a_n of
  // generalized-alpha's discrete state, or the consistent acceleration of (q_n, v_n) the other kinds put out after
  // each step. Every kind overrides it; the default throws std::logic_error.
  virtual void adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n,
                                               const assembly::State& state, std::vector<double>& dJ_dq,
                                               std::vector<double>& dJ_dv, const std::vector<double>& dJ_da,
                                               assembly::LocalGradient& gradient);
  // mu_n . dE_n/dh_n: the derivative of step n's equations E_n with respect to the step's size h_n = t_n - t_{n-1}
  // (t_{n-1}, x_{n-1} and x_n held), contracted with the step's adjoint variables from the last adjoint_step(n),
  // n >= 1, summed over the ranks (collective). With L = J + sum_n mu_n . E_n this is the dependence of J on h_n
  // through the states, dJ/dh_n = dJ/dh_n|explicit + mu_n . dE_n/dh_n. Needed where h_n depends on the design: the
  // step that ends at an implicit final time (h_last solves H = 0; Bestle and Eberhard 1992, eqs. (43)-(51) in
  // discrete form) and every step of a free final time (h = (t1 - t0)/N). Only the terms of the integration
  // formula are formed: a model whose equations depend on t explicitly is refused there (problem checks).
  virtual double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) = 0;

  // The spacetime adjoint (adjoint/spacetime_system.hpp; docs/adjoint.md, "The spacetime adjoint") takes the
  // steps out of order. The adjoint variables X_{n+1} that adjoint_step(n) reads are the part of the adjoint data
  // on which the step acts affinely, X_n = Phi_n X_{n+1} + G_n(dJ/dq_n, dJ/dv_n) for n >= 1 (for generalized-alpha
  // all of it; the rest of the variational integrator's data is forward context). seek_adjoint(trajectory, n)
  // (after begin_adjoint()) puts the sweep before adjoint_step(n) as if steps N .. n + 1 had been taken, with
  // X_{n+1} = 0: only steps n - 1 .. n + 1 of the trajectory are read. Collective.
  virtual void save_adjoint_variables(std::vector<double>& x) const = 0;
  virtual void load_adjoint_variables(const std::vector<double>& x) = 0;
  virtual void seek_adjoint(storage::Trajectory& trajectory, std::size_t n) = 0;

  // The spacetime adjoint's products repeat adjoint_step(n) for the same steps with other X_{n+1}
  // (kept_adjoint_steps.hpp): keep_adjoint_steps(&trajectory, budget) makes the following adjoint steps n >= 1 of
  // that trajectory keep their factorization and element Jacobians (at most `byte_budget` bytes per rank) and take
  // them from there when repeated; nullptr stops and frees them. An integrator that cannot keep its steps says why
  // in kept_adjoint_statistics().refusal. Collective.
  void keep_adjoint_steps(const storage::Trajectory* trajectory, std::size_t byte_budget);
  const KeptAdjointStatistics& kept_adjoint_statistics() const { return kept_steps_.statistics(); }

  // The second-order adjoint (Hessian-vector products; docs/adjoint.md, "Second-order adjoint"), forward over
  // reverse, for the kinds with the registry's capability second_order_adjoint (the others throw std::logic_error).
  // The direction e moves the parameters and control values (`direction`, in the layout of the sweep's
  // LocalGradient) and the given initial state. tangent_initialize(): on entry tangent.q, tangent.v hold the given
  // initial state's direction, on exit the tangent of initialize() at its result `state`. tangent_step(): the
  // tangent of step() from `previous` at t to `state` at t + h (the converged step), `tangent` the previous step's
  // on entry and this step's on exit. Collective; forward assembly.
  virtual void tangent_initialize(const assembly::State& state, double t0, const assembly::LocalGradient& direction,
                                  assembly::State& tangent);
  virtual void tangent_step(const assembly::State& previous, const assembly::State& state, double t, double h,
                            const assembly::LocalGradient& direction, assembly::State& tangent);
  // The backward sweep differentiated along e: begin_second_order_adjoint() after begin_adjoint(), then
  // second_order_adjoint_step(n) right after each adjoint_step(n) with the same state, `tangent` of step n and
  // `previous_tangent` of step n - 1 (at n = 0: any). On
  // entry dJ_dq_dot, dJ_dv_dot are d/de of the objective's partials at step n; the d/de of adjoint_step()'s
  // parameter and control terms go into gradient_dot; at n = 0 dJ_dq_dot, dJ_dv_dot become d/de of dJ/d(given q, v).
  virtual void begin_second_order_adjoint();
  virtual void second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                         const assembly::State& tangent, const assembly::State& previous_tangent,
                                         const assembly::LocalGradient& direction,
                                         std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                         assembly::LocalGradient& gradient_dot);
  // second_order_adjoint_step() with d/de of the objective's dJ/da_n as well, after adjoint_step_with_accelerations
  // (the kinds with a second-order adjoint; the others throw std::logic_error).
  virtual void second_order_adjoint_step_with_accelerations(
      storage::Trajectory& trajectory, std::size_t n, const assembly::State& state, const assembly::State& tangent,
      const assembly::State& previous_tangent, const assembly::LocalGradient& direction,
      std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot, const std::vector<double>& dJ_da_dot,
      assembly::LocalGradient& gradient_dot);

  // The adjoint of the projection of the given initial state (project_initial_state()): on entry dJ_dq, dJ_dv
  // are the derivatives with respect to the consistent initial state (q_0, v_0); on exit those with respect to the
  // given (q, v) of the model. The projections' parameter terms go into `gradient`. `transposed_solver` solves
  // with the transpose of assembler.matrix(). Collective. (Also used by the continuous adjoint.)
  void add_initial_projection_adjoint(linalg::LinearSolver& transposed_solver, const assembly::State& initial_state,
                                      double t0, std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                      assembly::LocalGradient& gradient) const;

  // add_initial_projection_adjoint() differentiated along e (initial_projection_tangent.cpp; docs/adjoint.md,
  // "Second-order adjoint"), e moving the constraints' parameters by direction's p_dot: on entry dJ_dq_dot, dJ_dv_dot
  // are d/de of the derivatives with respect to the consistent initial state, on exit d/de of those with respect to
  // the given (q, v); the projections' parameter terms differentiated go into gradient_dot. The first-order
  // derivatives are the ones adjoint_step(0) passed to add_initial_projection_adjoint() (kept by
  // keep_initial_partials()); `tangent` is step 0's (tangent_initial_projection()). Collective.
  void add_initial_projection_second_order(linalg::LinearSolver& transposed_solver, const assembly::State& initial_state,
                                           double t0, const assembly::State& tangent,
                                           const assembly::LocalGradient& direction, std::vector<double>& dJ_dq_dot,
                                           std::vector<double>& dJ_dv_dot, assembly::LocalGradient& gradient_dot);

  // The second-order sweep's objective has terms on accelerations: an integrator whose accelerations are an output
  // (the variational one) then forms their tangents in tangent_step() too. Set before the tangent-linear sweep.
  void set_tangent_accelerations(bool wanted) { tangent_accelerations_ = wanted; }

  const integrators::IntegratorSettings& settings() const { return settings_; }
  // A free final time (IntegratorSettings::fixed_steps) moves the end time between runs.
  void set_end_time(double end_time) { settings_.end_time = end_time; }
  // Error-controlled steps held fixed: the following runs take these step times (IntegratorSettings::replayed_times;
  // nullptr: choose them again).
  void set_replayed_times(std::shared_ptr<const std::vector<double>> times) { settings_.replayed_times = std::move(times); }
  const InitialProjection& initial_projection() const { return projection_; }
  const linalg::LinearSolver& linear_solver() const { return *solver_; }
  // An adjoint sweep that reuses pivot orders from step to step (update_adjoint_solver(Pivots::Reuse)) searches
  // them afresh at the steps n with fresh_adjoint_pivots_at(n), whatever the trajectory's storage, and a sweep is
  // saved for resuming only after a step n with resumable_after(n) (adjoint::SweepCheckpoints): a resumed sweep,
  // whose first factorization is fresh, then repeats the uninterrupted sweep bit for bit.
  static constexpr std::size_t kFreshAdjointPivotsEvery = 16;
  static bool fresh_adjoint_pivots_at(std::size_t n) { return (n + 1) % kFreshAdjointPivotsEvery == 0; }
  static bool resumable_after(std::size_t n) { return n > 0 && fresh_adjoint_pivots_at(n - 1); }
  // The options the linear solver was made with (adjoint sweeps make theirs alike).
  const linalg::LinearSolverOptions& solver_options() const { return solver_options_; }

 protected:
  TimeIntegrator(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                 const linalg::LinearSolverOptions& solver_options);

  // Solves the last assembled system for the increment -A^{-1} r (factorizing the current matrix; a Newton
  // iteration after the first of a step reuses the step's pivot order, linalg::Pivots).
  Teuchos::ArrayRCP<const double> newton_increment(linalg::Pivots pivots = linalg::Pivots::Fresh);
  // Solves the last assembled matrix for the given right-hand side (factorizing it).
  Teuchos::ArrayRCP<const double> solve(const Vector& right_hand_side, linalg::Pivots pivots = linalg::Pivots::Fresh);
  // The given q and v projected onto the constraints,
  //   q0 = argmin |q - q_given|^2 subject to C(q, t0) = 0,   v0 = argmin |v - v_given|^2 subject to dC/dt = 0,
  // so that parameters of the constraints (a rod length) move the initial state consistently; a given state that
  // violates a constraint by more than 1e-2 (relative) is an input error. Fills initial_projection().
  void project_initial_state(assembly::State& state, double t0);
  // The tangent of project_initial_state() at its result `initial_state`: on entry tangent.q, tangent.v hold the
  // given state's direction, on exit that of (q_0, v_0), the constraints' parameters moving by direction's p_dot;
  // the multipliers' tangents are kept for
  // add_initial_projection_second_order(). Identities without constraints. Collective; forward assembly.
  void tangent_initial_projection(const assembly::State& initial_state, double t0,
                                  const assembly::LocalGradient& direction, assembly::State& tangent);
  // The adjoint of a = the consistent accelerations of `state` (solve_consistent_accelerations()), with the current
  // adjoint solver holding the factorization of [M C_q^T; C_q 0]^T at state.q: [mu_a; mu_acc] = A^-T [-dJ/da; 0], then
  // dJ_dq += K^T mu_a + (dC_acc/dq)^T mu_acc, dJ_dv += D^T mu_a + (dC_acc/dv)^T mu_acc (K including d(C_q^T lambda)/dq
  // at state.lambda), and mu_a . dR/dp + mu_acc . dC_acc/dp with the controls' terms into `gradient` (unless
  // discarded). Collective.
  void add_consistent_accelerations_adjoint(const assembly::State& state, double t, const std::vector<double>& dJ_da,
                                            std::vector<double>& mu_a, std::vector<double>& mu_acc,
                                            std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                            assembly::LocalGradient& gradient);
  // The consistent accelerations of `state` (solve_consistent_accelerations()) and their multipliers, differentiated
  // (consistent_accelerations_second_order.cpp; docs/adjoint.md, "Terms on accelerations"). The tangent:
  // [M C_q^T; C_q 0] [a_dot; lambda_dot] = -[R_dot(q_dot, v_dot, 0; p_dot, u_dot); C_acc_dot(q_dot, v_dot, 0)]
  // into tangent.a and tangent.lambda (factorizes the forward solver). Collective.
  void tangent_consistent_accelerations(const assembly::State& state, double t, const assembly::LocalGradient& direction,
                                        assembly::State& tangent);
  // The adjoint of a_k = the consistent accelerations of x_k, [M C_q^T; C_q 0]^T [mu_a; mu_acc] = [-dJ/da; 0] (given
  // mu_a, mu_acc), differentiated along e: with `solver` holding that matrix's factorization,
  //   [M C_q^T; C_q 0]^T [mu_a_dot; mu_acc_dot] = [-(dJ_da_dot + d/de (M^T mu_a + C_q^T mu_acc)); -d/de (C_q mu_a)],
  //   dJ_dq_dot += d/de (K^T mu_a + L_q^T mu_acc) + K^T mu_a_dot + L_q^T mu_acc_dot, dJ_dv_dot likewise with D, L_v,
  //   gradient_dot += d/de (mu_a . dR/dp + mu_acc . dC_acc/dp) + the same with the dots (and the controls').
  // Collective.
  void add_consistent_accelerations_second_order(linalg::LinearSolver& solver, const assembly::State& state,
                                                 const assembly::State& tangent, double t,
                                                 const assembly::LocalGradient& direction,
                                                 const std::vector<double>& mu_a, const std::vector<double>& mu_acc,
                                                 const std::vector<double>& dJ_da_dot, std::vector<double>& dJ_dq_dot,
                                                 std::vector<double>& dJ_dv_dot, assembly::LocalGradient& gradient_dot);
  bool tangent_accelerations() const { return tangent_accelerations_; }
  // adjoint_step(0) keeps its dJ/d(q_0, v_0) before add_initial_projection_adjoint() for the second order.
  void keep_initial_partials(const std::vector<double>& dJ_dq, const std::vector<double>& dJ_dv) {
    initial_partials_.dJ_dq = dJ_dq;
    initial_partials_.dJ_dv = dJ_dv;
  }
  // The closest point of C(q, t) = 0 to target: q - target + C_q(q)^T nu = 0, C(q, t) = 0 by Newton from
  // (target, 0) to round-off, as project_initial_state (coordinate projection: Hairer, Lubich and Wanner, GNI,
  // sec. IV.4; Eich 1993). Sets projected.q and projected.lambda = nu; statistics of the iteration. Throws
  // SolverError as step() does. Collective. `first`: the pivots of the first iteration (later ones reuse them).
  // Pivots::Reuse only after a fresh factorization of the same step (linear_solver.hpp, Pivots).
  void project_positions(const std::vector<double>& target, double t, assembly::State& projected,
                         StepStatistics& statistics, linalg::Pivots first = linalg::Pivots::Fresh);
  // Its adjoint (assembler transposed, adjoint solver begun): [I + d(C_q^T nu)/dq, C_q^T; C_q 0]^T [rho; sigma] =
  // [-q_bar; 0] at projected (lambda = nu), target_bar = -rho, and (rho, sigma) . d/dp of the projection's
  // equations into `gradient`. projected.lambda must hold nu. Collective.
  void position_projection_adjoint(const assembly::State& projected, const std::vector<double>& target, double t,
                                   const std::vector<double>& q_bar, std::vector<double>& target_bar,
                                   assembly::LocalGradient& gradient, linalg::Pivots pivots = linalg::Pivots::Fresh);
  // The velocities of given momenta: [M(q) C_q^T; C_q 0] [v; sigma] = [p; -C_t] at (q, t) (Maciag, Malczyk and
  // Fraczek 2022, eq. (6a); the velocity step of RATTLE). Leaves the factorization of the matrix of the consistent
  // accelerations at q in the solver (solve_consistent_accelerations(..., true) may follow). Collective.
  // `pivots` as for project_positions.
  void solve_momentum_system(const std::vector<double>& q, double t, const std::vector<double>& p,
                             std::vector<double>& v, std::vector<double>& sigma,
                             linalg::Pivots pivots = linalg::Pivots::Fresh);
  // a and lambda from M a + C_q^T lambda = Q, C_acc = 0 at the state's q and v. factorized: the solver holds the
  // factorization of [M C_q^T; C_q 0] at this q already (only the right-hand side is assembled). `pivots` as for
  // project_positions.
  void solve_consistent_accelerations(assembly::State& state, double t, bool factorized = false,
                                      linalg::Pivots pivots = linalg::Pivots::Fresh);
  // The same with the factorization of [M C_q^T; C_q 0] at this q held by another solver (the joint-space
  // equations' mass solve at a step's end: its velocity-level matrix is this one for holonomic constraints).
  void solve_consistent_accelerations_with(assembly::State& state, double t, linalg::LinearSolver& factorized);
  // The adjoint sweep's linear algebra. begin_adjoint_solver(matrix_kinds): solvers of the forward run's kind for
  // the transposed matrices, one per kind of matrix a step factorizes (the assembler in transposed mode must have
  // assembled once: the values' layout); the first is selected.
  void begin_adjoint_solver(int matrix_kinds = 1);
  // Selects the solver of a matrix kind (0 .. matrix_kinds - 1) for update_adjoint_solver() and adjoint_solve(), so
  // that a step that factorizes several kinds of matrices reuses each kind's own pivot order.
  void use_adjoint_solver(int kind) {
    adjoint_kind_ = static_cast<std::size_t>(kind);
    adjoint_solver_ = adjoint_solvers_.at(adjoint_kind_).get();
  }
  // Factorizes the last assembled (transposed) matrix. Pivots::Reuse: with the pivot order of the selected solver's
  // last fresh factorization where that stays accurate; each solver's first factorization searches pivots afresh.
  void update_adjoint_solver(linalg::Pivots pivots = linalg::Pivots::Fresh) {
    adjoint_solver_->update(fresh_adjoint_pivots_[adjoint_kind_] ? linalg::Pivots::Fresh : pivots);
    fresh_adjoint_pivots_[adjoint_kind_] = false;
  }
  // [x_q; x_lambda] = A^-T [factor * coordinates; 0] with the current factorization (or the kept step's).
  void adjoint_solve(const std::vector<double>& coordinates, double factor, std::vector<double>& x_q,
                     std::vector<double>& x_lambda, KeptAdjointStep* kept = nullptr);
  // Whether this integrator's adjoint_step() keeps its steps (keep_adjoint_steps()); the others refuse.
  virtual bool can_keep_adjoint_steps() const { return false; }
  // Step n of the trajectory if kept (keep_adjoint_steps()), else nullptr: the step assembles and factorizes, then
  // calls keep_adjoint_step(), which hands the selected adjoint solver's factorization and the assembler's kept
  // Jacobians over if the step is wanted (returning it; solve with it from then on), else returns nullptr.
  KeptAdjointStep* kept_adjoint_step(const storage::Trajectory& trajectory, std::size_t n) {
    return kept_steps_.find(trajectory, n);
  }
  KeptAdjointStep* keep_adjoint_step(const storage::Trajectory& trajectory, std::size_t n);
  // The system vector [mu_r; mu_c] for Assembler::add_parameter_gradient (either may be nullptr: zeros).
  const Vector& adjoint_vector(const std::vector<double>* mu_r, const std::vector<double>* mu_c);
  // ||x||_inf over all ranks.
  double max_norm(const std::vector<double>& x) const;
  // SolverError naming the step, the time and the component whose residual is NaN or Inf
  // (Assembler::nonfinite_source), if the last assembled residual is not finite; nothing otherwise. Collective.
  void check_finite_residual(const assembly::State& state, double t, assembly::ConstraintLevel level,
                             long long step_index);
  // "Newton iteration failed at step ..." with time, iterations, residuals and advice (SolverError).
  [[noreturn]] void throw_newton_failure(long long step_index, double t, const StepStatistics& statistics) const;

  assembly::Assembler& assembler_;
  integrators::IntegratorSettings settings_;
  linalg::LinearSolverOptions solver_options_;
  std::unique_ptr<linalg::LinearSolver> solver_;
  RCP<Vector> increment_, right_hand_side_;
  InitialProjection projection_;
  long long current_step_ = 0;  // of the step being taken (0: the initial state), for messages
  // The adjoint sweep's solver and system vectors (begin_adjoint()).
  std::vector<std::unique_ptr<linalg::LinearSolver>> adjoint_solvers_;  // one per matrix kind
  linalg::LinearSolver* adjoint_solver_ = nullptr;                       // the selected one
  std::size_t adjoint_kind_ = 0;
  std::vector<bool> fresh_adjoint_pivots_;
  RCP<Vector> adjoint_rhs_, adjoint_solution_, adjoint_mu_;
  std::size_t coordinate_count_ = 0, multiplier_count_ = 0;  // owned
  assembly::State momentum_system_;          // solve_momentum_system(): q with v = a = lambda = 0
  std::vector<double> acceleration_adjoint_products_[3];  // add_consistent_accelerations_adjoint()'s K^T, D^T, M^T mu_a
  std::vector<double> projection_sigma_;     // position_projection_adjoint()'s multiplier part
  KeptAdjointSteps kept_steps_;
  // d/de of the projection multipliers (tangent_initial_projection()) and keep_initial_partials()' values.
  struct {
    std::vector<double> position_multipliers, velocity_multipliers;
  } projection_tangent_;
  struct {
    std::vector<double> dJ_dq, dJ_dv;
  } initial_partials_;
  bool tangent_accelerations_ = false;
  // Work vectors of the consistent accelerations' tangent and second order.
  struct {
    std::vector<double> r_dot, c_dot, z_k, z_d, z_m, m_dot, y_k, y_d, y_m, rhs, mu_a_dot, mu_acc_dot;
  } acceleration_work_;

 private:
  // solve_consistent_accelerations() with the factorization held by `factorized` (nullptr: the integrator's solver,
  // updated with `pivots`).
  void consistent_accelerations(assembly::State& state, double t, linalg::LinearSolver* factorized,
                                linalg::Pivots pivots);
};

// The linear-solver options of the integrator settings (integrator.linear_solver, .preconditioner, .schwarz_overlap).
linalg::LinearSolverOptions linear_solver_options(const IntegratorSettings& settings);

// The integrator of the settings' kind (integrators/registry.hpp); InputError for elements it cannot integrate.
std::unique_ptr<TimeIntegrator> make_time_integrator(assembly::Assembler& assembler,
                                                     const integrators::IntegratorSettings& settings,
                                                     const linalg::LinearSolverOptions& solver_options);

}  // namespace flexadj::integrators
