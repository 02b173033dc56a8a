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
// Newton iterates on (q, beta h^2 lambda) with the scaled matrix of assembler.hpp. The discrete adjoint step
// (adjoint_step; docs/adjoint.md) solves with the transpose of the same matrix at the converged state.
#include <string>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {

// The Newton matrix of a step of size h: row scale s = beta h^2 and the coefficients (c_q, c_v, c_a) =
// (1, dv/dq, da/dq) of the Newmark relations, for the Newton iteration and the adjoint step alike.
struct StepJacobian {
  double scale;
  model::JacobianCoefficients coefficients;
};

struct GeneralizedAlphaCoefficients {
  double alpha_m, alpha_f, beta, gamma;
  static GeneralizedAlphaCoefficients from_spectral_radius(double rho_infinity);
  static GeneralizedAlphaCoefficients hht(double rho_infinity);
};

class GeneralizedAlpha final : public TimeIntegrator {
 public:
  // The coefficients of Chung and Hulbert (generalized_alpha) or of Hilber, Hughes and Taylor (hht) for the
  // settings' spectral radius (integrators/registry.cpp makes both).
  enum class Variant { ChungHulbert, Hht };
  GeneralizedAlpha(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                   const linalg::LinearSolverOptions& solver_options, Variant variant = Variant::ChungHulbert);

  // The given q and v projected onto the constraints (TimeIntegrator::project_initial_state), then the
  // accelerations and multipliers from M a + C_q^T lambda = Q, C_acc = 0; aux = a.
  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;
  // The local error of the position update, e = |beta - gamma/2 + 1/12| h^2 |aux_{n+1} - aux_n| (see the .cpp).
  double local_error(const assembly::State& before, const assembly::State& after, double h) const override;

  void begin_adjoint(storage::Trajectory& trajectory) override;
  void save_adjoint_data(std::vector<double>& data) const override;
  void load_adjoint_data(const std::vector<double>& data) override;
  void save_adjoint_variables(std::vector<double>& x) const override { save_adjoint_data(x); }
  void load_adjoint_variables(const std::vector<double>& x) override { load_adjoint_data(x); }
  void seek_adjoint(storage::Trajectory& trajectory, std::size_t n) override;
  bool can_keep_adjoint_steps() const override { return true; }
  void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, assembly::LocalGradient& gradient) override;
  // a_n is part of the discrete state: dJ/da_n enters the step's partial g_a (docs/adjoint.md).
  void adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                       std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                       const std::vector<double>& dJ_da, assembly::LocalGradient& gradient) override;

  // The second-order adjoint (generalized_alpha_second_order.cpp; docs/adjoint.md, "Second-order adjoint").
  void tangent_initialize(const assembly::State& state, double t0, const assembly::LocalGradient& direction,
                          assembly::State& tangent) override;
  void tangent_step(const assembly::State& previous, const assembly::State& state, double t, double h,
                    const assembly::LocalGradient& direction, assembly::State& tangent) override;
  void begin_second_order_adjoint() override;
  void second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                 const assembly::State& tangent, const assembly::State& previous_tangent,
                                 const assembly::LocalGradient& direction,
                                 std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                 assembly::LocalGradient& gradient_dot) override;
  void second_order_adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n,
                                                    const assembly::State& state, const assembly::State& tangent,
                                                    const assembly::State& previous_tangent,
                                                    const assembly::LocalGradient& direction,
                                                    std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                                    const std::vector<double>& dJ_da_dot,
                                                    assembly::LocalGradient& gradient_dot) override;

  // mu_q . dE3/dh + mu_v . dE4/dh of the Newmark relations of step n (docs/adjoint.md, "Implicit final time").
  // Reads aux of steps n and n - 1 from the trajectory: a memory trajectory (an HDF5 one does not keep aux).
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

  const GeneralizedAlphaCoefficients& coefficients() const { return coefficients_; }
  StepJacobian step_jacobian(double h) const;

 private:
  // The partials of J (dJ_dq, dJ_dv, and dJ_da unless nullptr: none) and of the next step's Newmark relations
  // (multipliers mu_*_next, step h_next) with respect to this step's q, v, a and aux: the adjoint step's right-hand
  // sides, and the second-order adjoint's with the multipliers' tangents.
  void newmark_partials(double h_next, const std::vector<double>& dJ_dq, const std::vector<double>& dJ_dv,
                        const std::vector<double>* dJ_da, const std::vector<double>& mu_q_next,
                        const std::vector<double>& mu_v_next, const std::vector<double>& mu_aux_next,
                        std::vector<double>& g_q, std::vector<double>& g_v, std::vector<double>& g_a,
                        std::vector<double>& g_aux) const;
  // adjoint_step() with dJ/da_n (nullptr: none).
  void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, const std::vector<double>* dJ_da,
                    assembly::LocalGradient& gradient);
  // second_order_adjoint_step() with d/de of dJ/da_n (nullptr: none).
  void second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                 const assembly::State& tangent, const assembly::LocalGradient& direction,
                                 std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                 const std::vector<double>* dJ_da_dot, assembly::LocalGradient& gradient_dot);
  Variant variant_;
  GeneralizedAlphaCoefficients coefficients_;
  std::vector<double> previous_a_, previous_aux_, last_increment_;
  // Adjoint variables of the step after the current one (zero past the last step), and work vectors.
  std::vector<double> mu_q_next_, mu_v_next_, mu_aux_next_, g_q_, g_v_, g_a_, g_aux_, rhs_q_, mu_r_, mu_c_, y_k_, y_d_,
      y_m_, aux_n_;
  // The second-order adjoint's: d/de of the adjoint variables of the next step, and work vectors.
  std::vector<double> mu_q_dot_next_, mu_v_dot_next_, mu_aux_dot_next_, g_q_dot_, g_v_dot_, g_a_dot_, g_aux_dot_,
      z_k_, z_d_, z_m_, mu_r_dot_, mu_c_dot_, r_dot_, c_dot_, tangent_a_, tangent_aux_;
};

}  // namespace flexadj::integrators
