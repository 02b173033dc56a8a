#include "flexadj/integrators/hamiltonian.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};  // [M C_q^T; C_q 0], the matrix of (6a)
}  // namespace

Hamiltonian::Hamiltonian(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                         const linalg::LinearSolverOptions& solver_options)
    : CarriedStateIntegrator(assembler, settings, solver_options), forces_(assembler) {
  const std::size_t n = coordinate_count_, m = multiplier_count_;
  for (Stages* s : {&forward_, &recomputed_}) {
    s->stage = s->projected = assembler.make_state();
    for (auto* v : {&s->p0, &s->f0, &s->p_stage, &s->f_stage, &s->q_tilde, &s->p_tilde}) v->assign(n, 0.0);
    s->nu.assign(m, 0.0);
    s->sigma_next.assign(m, 0.0);
  }
  scratch_.assign(n, 0.0);
}

std::string Hamiltonian::description() const {
  return "constrained Hamiltonian equations (Maciag, Malczyk and Fraczek 2022, eqs. (6a)/(6b)), absolute "
         "coordinates: explicit trapezoidal rule (Heun, order 2) on (q, p*), projection onto C = 0 after each step";
}

void Hamiltonian::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
}

StepStatistics Hamiltonian::step(assembly::State& state, double t, double h, long long step_index) {
  current_step_ = step_index;
  StepStatistics statistics;
  advance(state, t, h, forward_, statistics);
  state.q = forward_.projected.q;
  state.v = forward_.projected.v;
  // a_{n+1}, lambda_{n+1} with the factorization of (6a) at q_{n+1} (the matrix of the consistent accelerations).
  solve_consistent_accelerations(state, t + h, true);
  return statistics;
}

// The step of hamiltonian.hpp; `state` holds q_n, v_n with C_q v_n + C_t = 0.
void Hamiltonian::advance(const assembly::State& state, double t, double h, Stages& s, StepStatistics& statistics) {
  const std::size_t n = coordinate_count_;
  const double t_next = t + h;
  forces_.momentum(state, t, s.p0);  // p*_n = T_v(q_n, v_n): eq. (4) with sigma_n = 0
  forces_.force(state, t, s.f0);     // eq. (6b) with sigma_n = 0
  for (std::size_t i = 0; i < n; ++i) {
    s.stage.q[i] = state.q[i] + h * state.v[i];
    s.p_stage[i] = s.p0[i] + h * s.f0[i];
  }
  solve_momentum_system(s.stage.q, t_next, s.p_stage, s.stage.v, s.stage.lambda);  // (6a): v*, sigma*
  std::fill(scratch_.begin(), scratch_.end(), 0.0);
  forces_.force(s.stage, t_next, s.f_stage);                                        // (6b): Q + D' sigma*
  assembler_.add_constraint_level_transposed(s.stage, t_next, assembly::ConstraintLevel::Velocity, s.stage.lambda,
                                             s.f_stage, scratch_);
  for (std::size_t i = 0; i < n; ++i) {
    s.q_tilde[i] = state.q[i] + 0.5 * h * (state.v[i] + s.stage.v[i]);
    s.p_tilde[i] = s.p0[i] + 0.5 * h * (s.f0[i] + s.f_stage[i]);
  }
  // The step's later factorizations reuse the pivot order of its first, (6a) at q*: the step depends on its start
  // state alone (linear_solver.hpp, Pivots).
  project_positions(s.q_tilde, t_next, s.projected, statistics, linalg::Pivots::Reuse);
  s.nu = s.projected.lambda;
  solve_momentum_system(s.projected.q, t_next, s.p_tilde, s.projected.v, s.sigma_next,
                        linalg::Pivots::Reuse);  // (6a) at q_{n+1}
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

void Hamiltonian::begin_adjoint(storage::Trajectory& trajectory) {
  // A first assembly fixes the values' layout before the solver reads the structure.
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &kMassOnly);
  begin_adjoint_solver();
  begin_carried_adjoint();
  polar_ = assembler_.make_state();
  for (auto* v : {&q_tilde_bar_, &p_tilde_bar_, &stage_q_bar_, &stage_v_bar_,
                  &stage_p_bar_, &f0_bar_, &f_stage_bar_, &p0_bar_, &rho_, &mu_q_, &scratch_, &y_k_, &y_d_, &y_m_,
                  &zero_n_})
    v->assign(coordinate_count_, 0.0);
  for (auto* v : {&stage_sigma_bar_, &kappa_, &mu_c_}) v->assign(multiplier_count_, 0.0);
}

// dq*/dh = v_n, dp*/dh = F_n, dq~/dh = (v_n + v*)/2, dp~/dh = (F_n + F*)/2 with the adjoints of q*, p*, q~, p~
// that adjoint_step(n) left (the stages depend on h otherwise only through the time, held here).
double Hamiltonian::step_size_sensitivity(storage::Trajectory&, std::size_t n) {
  if (n == 0) throw std::logic_error("Hamiltonian::step_size_sensitivity: step 0 has no size");
  const Stages& s = recomputed_;
  double local = 0.0;
  for (std::size_t i = 0; i < coordinate_count_; ++i)
    local += stage_q_bar_[i] * previous_.v[i] + stage_p_bar_[i] * s.f0[i] +
             0.5 * q_tilde_bar_[i] * (previous_.v[i] + s.stage.v[i]) + 0.5 * p_tilde_bar_[i] * (s.f0[i] + s.f_stage[i]);
  double global = 0.0;
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

void Hamiltonian::solve_momentum_matrix(const std::vector<double>& q, double t, const std::vector<double>& rhs_q,
                                        const std::vector<double>& rhs_m, std::vector<double>& x,
                                        std::vector<double>& y) {
  momentum_system_.q = q;
  assembler_.assemble(momentum_system_, t, assembly::ConstraintLevel::Velocity, 1.0, &kMassOnly);
  update_adjoint_solver();
  assembly::SystemVectorView(*adjoint_rhs_, coordinate_count_).assign(rhs_q, 1.0, &rhs_m, 1.0);
  adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, coordinate_count_).extract(&x, &y);
}

void Hamiltonian::mass_times(const std::vector<double>& q, double t, const std::vector<double>& x,
                             std::vector<double>& out) {
  polar_.q = q;
  polar_.v = x;
  forces_.momentum(polar_, t, out);
}

void Hamiltonian::add_velocity_constraint_parameter_terms(const assembly::State& state, double t,
                                                          const std::vector<double>& mu,
                                                          assembly::LocalGradient& gradient) {
  assembler_.add_parameter_gradient(state, t, adjoint_vector(nullptr, &mu), assembly::ConstraintLevel::Velocity, true,
                                    gradient);
}

void Hamiltonian::momentum_system_adjoint(const assembly::State& state, double t, const std::vector<double>& v_bar,
                                          const std::vector<double>* sigma_bar, std::vector<double>& p_bar,
                                          std::vector<double>& q_bar, assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const std::size_t n = coordinate_count_;
  momentum_system_.q = state.q;
  assembler_.assemble(momentum_system_, t, ConstraintLevel::Velocity, 1.0, &kMassOnly);
  update_adjoint_solver();
  assembly::SystemVectorView(*adjoint_rhs_, n).assign(v_bar, 1.0, sigma_bar, 1.0);
  adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, n).extract(&p_bar, &kappa_);  // p_bar = rho
  // With mu = -[rho; kappa]: q_bar += mu . dE/dq for E = [T_v(q, v) + C_q^T sigma - p; C_q v + C_t].
  for (std::size_t i = 0; i < n; ++i) mu_q_[i] = -p_bar[i];
  for (double& value : kappa_) value = -value;
  forces_.add_discrete_momenta_transposed_at_end(state.q, state.v, t, 0.0, zero_n_, mu_q_, false, q_bar);  // q part
  forces_.add_discrete_momenta_parameter_gradient(state.q, state.v, t, 0.0, zero_n_, mu_q_, gradient);
  assembler_.adjoint_products(state, t, mu_q_, {}, true, y_k_, y_d_, y_m_);  // d(C_q^T sigma)/dq^T mu
  for (std::size_t i = 0; i < n; ++i) q_bar[i] += y_k_[i];
  assembler_.add_constraint_level_transposed(state, t, ConstraintLevel::Velocity, kappa_, q_bar, scratch_);
  assembler_.add_parameter_gradient(state, t, adjoint_vector(&mu_q_, &kappa_), ConstraintLevel::Velocity, true,
                                    gradient);
}

void Hamiltonian::hamiltonian_multipliers(const assembly::State& state, double t,
                                          const assembly::LocalGradient& no_direction, std::vector<double>& lambda) {
  const std::size_t n = coordinate_count_;
  forces_.force(state, t, y_k_);                                                                       // T_q + f
  forces_.discrete_momenta_tangent(state.q, state.v, state.v, zero_n_, t, 0.0, no_direction, y_d_, y_m_);  // T_v,q v
  polar_.q = state.q;
  polar_.v = state.a;
  forces_.momentum(polar_, t, scratch_);  // M a
  for (std::size_t i = 0; i < n; ++i) y_k_[i] -= y_m_[i] + scratch_[i];
  momentum_system_.q = state.q;
  assembler_.assemble(momentum_system_, t, assembly::ConstraintLevel::Velocity, 1.0, &kMassOnly);
  update_adjoint_solver();
  assembly::SystemVectorView(*adjoint_rhs_, n).assign(y_k_, 1.0, nullptr, 1.0);
  adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, n).extract(&scratch_, &lambda);
}

void Hamiltonian::add_momentum_transposed(const assembly::State& state, double t, const std::vector<double>& p_bar,
                                          std::vector<double>& q_bar, std::vector<double>& v_bar,
                                          assembly::LocalGradient& gradient) {
  forces_.add_discrete_momenta_transposed(state.q, state.v, t, 0.0, zero_n_, p_bar, q_bar, v_bar);  // T_v
  forces_.add_discrete_momenta_parameter_gradient(state.q, state.v, t, 0.0, zero_n_, p_bar, gradient);
  assembler_.adjoint_products(state, t, p_bar, {}, true, y_k_, y_d_, y_m_);  // d(C_q^T sigma)/dq^T p_bar
  for (std::size_t i = 0; i < coordinate_count_; ++i) q_bar[i] += y_k_[i];
  assembler_.add_parameter_gradient(state, t, adjoint_vector(&p_bar, nullptr), assembly::ConstraintLevel::Velocity,
                                    true, gradient);
}

void Hamiltonian::rate_adjoint(const assembly::State& state, double t, const std::vector<double>& xi,
                               std::vector<double>& q_bar, std::vector<double>& v_bar, std::vector<double>& sigma_bar,
                               assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const std::size_t n = coordinate_count_;
  forces_.add_force_transposed(state.q, state.v, t, xi, q_bar, v_bar);  // Q = T_q + f
  forces_.add_force_parameter_gradient(state.q, state.v, t, xi, gradient);
  // D' sigma by polarization (hamiltonian.hpp): xi . D' sigma = sigma . [c_acc(v + s xi) - c_acc(v - s xi)]/(4 s).
  const double xi_norm = max_norm(xi);
  if (xi_norm == 0.0) return;
  const double v_norm = max_norm(state.v);
  const double s = (v_norm > 0.0 ? v_norm : 1.0) / xi_norm;
  polar_.q = state.q;
  std::fill(polar_.a.begin(), polar_.a.end(), 0.0);
  std::fill(polar_.lambda.begin(), polar_.lambda.end(), 0.0);
  for (const double sign : {1.0, -1.0}) {
    for (std::size_t i = 0; i < n; ++i) polar_.v[i] = state.v[i] + sign * s * xi[i];
    const double factor = sign / (4.0 * s);
    assembler_.assemble(polar_, t, ConstraintLevel::Acceleration, 1.0, nullptr);
    {
      const assembly::ConstSystemVectorView residual(assembler_.residual(), n);
      for (std::size_t k = 0; k < multiplier_count_; ++k) sigma_bar[k] += factor * residual.multipliers()[k];
    }
    for (std::size_t k = 0; k < multiplier_count_; ++k) mu_c_[k] = factor * state.lambda[k];
    assembler_.add_constraint_level_transposed(polar_, t, ConstraintLevel::Acceleration, mu_c_, q_bar, v_bar);
    assembler_.add_parameter_gradient(polar_, t, adjoint_vector(nullptr, &mu_c_), ConstraintLevel::Acceleration, true,
                                      gradient);
  }
}

// The transpose of the linearised step n (x_{n-1} -> x_n, hamiltonian.hpp) in reverse order of the forward step.
// On entry (q_bar, v_bar) = dJ/d(q_n, v_n) (the objective's partials plus what steps n + 1, ... carried); on exit the
// carry holds what step n gives dJ/d(q_{n-1}, v_{n-1}) (CarriedStateIntegrator::adjoint_step around it).
void Hamiltonian::recompute_step(const assembly::State& previous, double t, double h) {
  StepStatistics statistics;
  advance(previous, t, h, recomputed_, statistics);
}

void Hamiltonian::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const std::size_t size = coordinate_count_;
  const double h = t_next - t;
  Stages& s = recomputed_;
  assembly::State& p = s.projected;

  // (6a) at q_{n+1}: v_{n+1} from (q_{n+1}, p~) (sigma_{n+1} is dropped: its adjoint is zero).
  p.lambda = s.sigma_next;
  momentum_system_adjoint(p, t_next, v_bar_, nullptr, p_tilde_bar_, q_bar_, gradient);
  // Projection q~ -> q_{n+1}.
  p.lambda = s.nu;
  position_projection_adjoint(p, s.q_tilde, t_next, q_bar_, q_tilde_bar_, gradient);
  // q~ = q_n + h/2 (v_n + v*), p~ = p_n + h/2 (F_n + F*).
  for (std::size_t i = 0; i < size; ++i) {
    carry_q_[i] = q_tilde_bar_[i];
    carry_v_[i] = 0.5 * h * q_tilde_bar_[i];
    p0_bar_[i] = p_tilde_bar_[i];
    f0_bar_[i] = 0.5 * h * p_tilde_bar_[i];
    stage_q_bar_[i] = 0.0;
    stage_v_bar_[i] = 0.5 * h * q_tilde_bar_[i];
    f_stage_bar_[i] = 0.5 * h * p_tilde_bar_[i];
  }
  std::fill(stage_sigma_bar_.begin(), stage_sigma_bar_.end(), 0.0);
  // F* = Q(q*, v*) + D'(q*, v*) sigma*, then (6a) at q*: (v*, sigma*) from (q*, p*).
  rate_adjoint(s.stage, t_next, f_stage_bar_, stage_q_bar_, stage_v_bar_, stage_sigma_bar_, gradient);
  momentum_system_adjoint(s.stage, t_next, stage_v_bar_, &stage_sigma_bar_, stage_p_bar_, stage_q_bar_, gradient);
  // q* = q_n + h v_n, p* = p_n + h F_n.
  for (std::size_t i = 0; i < size; ++i) {
    carry_q_[i] += stage_q_bar_[i];
    carry_v_[i] += h * stage_q_bar_[i];
    p0_bar_[i] += stage_p_bar_[i];
    f0_bar_[i] += h * stage_p_bar_[i];
  }
  // F_n = Q(q_n, v_n, t_n) and p_n = T_v(q_n, v_n).
  forces_.add_force_transposed(previous_.q, previous_.v, t, f0_bar_, carry_q_, carry_v_);
  forces_.add_force_parameter_gradient(previous_.q, previous_.v, t, f0_bar_, gradient);
  forces_.add_discrete_momenta_transposed(previous_.q, previous_.v, t, 0.0, zero_n_, p0_bar_, carry_q_, carry_v_);
  forces_.add_discrete_momenta_parameter_gradient(previous_.q, previous_.v, t, 0.0, zero_n_, p0_bar_, gradient);
}

}  // namespace flexadj::integrators
