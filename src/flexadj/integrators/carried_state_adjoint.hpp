#pragma once
// The backward sweep of the one-step integrators whose step n maps (q, v) of step n - 1 to (q, v) of step n and
// reads nothing else (state_space.hpp, hamiltonian.hpp): their adjoint variables are dJ/d(q_n, v_n) carried from the
// steps after n, which is all of the adjoint data (checkpoints, restarts and the spacetime adjoint need nothing
// else), and adjoint_step(n) recomputes step n from the trajectory's state n - 1 with the forward matrices (the
// forward run's own code: the same stages and multipliers bit for bit) before transposing it.
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {

class CarriedStateIntegrator : public TimeIntegrator {
 public:
  void save_adjoint_data(std::vector<double>& data) const override;
  void load_adjoint_data(const std::vector<double>& data) override;
  void save_adjoint_variables(std::vector<double>& x) const override { save_adjoint_data(x); }
  void load_adjoint_variables(const std::vector<double>& x) override { load_adjoint_data(x); }
  // adjoint_step(n) reads step n - 1 itself: nothing but the adjoint variables to set (zero).
  void seek_adjoint(storage::Trajectory& trajectory, std::size_t n) override;
  // (q_bar_, v_bar_) = (dJ_dq, dJ_dv) + carry; at n = 0 the adjoint of the initial projection (on exit dJ_dq, dJ_dv
  // are the derivatives with respect to the given initial state); else previous_ = step n - 1,
  // recompute_step(previous_, t_{n-1}, h_n) with the forward matrices, then transpose_step(), which sets the carry.
  void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, assembly::LocalGradient& gradient) final;
  // a_n is the consistent acceleration of (q_n, v_n) (solve_consistent_accelerations after each step): dJ/da_n passes
  // to dJ/d(q_n, v_n) through its adjoint (add_consistent_accelerations_adjoint, one more factorization of
  // [M C_q^T; C_q 0] at q_n), then adjoint_step().
  void adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                       std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                       const std::vector<double>& dJ_da, assembly::LocalGradient& gradient) final;

 protected:
  using TimeIntegrator::TimeIntegrator;
  // Sizes the sweep's vectors (begin_adjoint(), after begin_adjoint_solver()).
  void begin_carried_adjoint();
  // The adjoint solver (begin_adjoint_solver's kind) that factorizes [M C_q^T; C_q 0]^T.
  virtual int consistent_accelerations_solver() const { return 0; }
  // Step n again from previous_ (forward assembly).
  virtual void recompute_step(const assembly::State& previous, double t, double h) = 0;
  // The transpose of the recomputed step from t to t_next: from (q_bar_, v_bar_) = dJ/d(q_n, v_n) to
  // (carry_q_, carry_v_) = what step n gives dJ/d(q_{n-1}, v_{n-1}); parameter and control terms into `gradient`.
  virtual void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) = 0;

  assembly::State previous_;  // step n - 1
  std::vector<double> carry_q_, carry_v_, q_bar_, v_bar_, mu_a_, mu_acc_;
  // The pivots of the transposed step's factorizations: Reuse, except where TimeIntegrator::fresh_adjoint_pivots_at(n)
  // (set by adjoint_step(n) before transpose_step()).
  linalg::Pivots step_pivots_ = linalg::Pivots::Fresh;
};

}  // namespace flexadj::integrators
