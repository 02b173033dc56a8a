#include "flexadj/integrators/carried_state_adjoint.hpp"

#include <algorithm>
#include <stdexcept>

#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

void CarriedStateIntegrator::begin_carried_adjoint() {
  previous_ = assembler_.make_state();
  for (auto* v : {&carry_q_, &carry_v_, &q_bar_, &v_bar_, &mu_a_}) v->assign(coordinate_count_, 0.0);
  mu_acc_.assign(multiplier_count_, 0.0);
}

void CarriedStateIntegrator::save_adjoint_data(std::vector<double>& data) const {
  data = carry_q_;
  data.insert(data.end(), carry_v_.begin(), carry_v_.end());
}

void CarriedStateIntegrator::load_adjoint_data(const std::vector<double>& data) {
  const std::size_t n = coordinate_count_;
  if (data.size() != 2 * n) throw std::invalid_argument("load_adjoint_data: wrong length");
  carry_q_.assign(data.begin(), data.begin() + long(n));
  carry_v_.assign(data.begin() + long(n), data.end());
}

void CarriedStateIntegrator::seek_adjoint(storage::Trajectory&, std::size_t) {
  std::fill(carry_q_.begin(), carry_q_.end(), 0.0);
  std::fill(carry_v_.begin(), carry_v_.end(), 0.0);
}

void CarriedStateIntegrator::adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                          std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                          assembly::LocalGradient& gradient) {
  const std::vector<double>& times = trajectory.step_times();
  for (std::size_t i = 0; i < coordinate_count_; ++i) {
    q_bar_[i] = dJ_dq[i] + carry_q_[i];
    v_bar_[i] = dJ_dv[i] + carry_v_[i];
  }
  if (n == 0) {
    dJ_dq = q_bar_;
    dJ_dv = v_bar_;
    add_initial_projection_adjoint(*adjoint_solver_, state, times[0], dJ_dq, dJ_dv, gradient);
    return;
  }
  const double t = times[n - 1], t_next = times[n];
  previous_ = trajectory.step(n - 1);
  {
    const assembly::ScopedTransposedAssembly forward(assembler_, false);
    recompute_step(previous_, t, t_next - t);
  }
  step_pivots_ = fresh_adjoint_pivots_at(n) ? linalg::Pivots::Fresh : linalg::Pivots::Reuse;
  transpose_step(t, t_next, gradient);
}

void CarriedStateIntegrator::adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n,
                                                             const assembly::State& state, std::vector<double>& dJ_dq,
                                                             std::vector<double>& dJ_dv,
                                                             const std::vector<double>& dJ_da,
                                                             assembly::LocalGradient& gradient) {
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, trajectory.step_times()[n], assembly::ConstraintLevel::Acceleration, 1.0, &mass_only);
  use_adjoint_solver(consistent_accelerations_solver());
  update_adjoint_solver();
  add_consistent_accelerations_adjoint(state, trajectory.step_times()[n], dJ_da, mu_a_, mu_acc_, dJ_dq, dJ_dv,
                                       gradient);
  adjoint_step(trajectory, n, state, dJ_dq, dJ_dv, gradient);
}

}  // namespace flexadj::integrators
