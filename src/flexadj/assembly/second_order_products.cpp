// The Assembler's pieces of the tangent-linear model and the second-order adjoint (assembler.hpp; docs/adjoint.md,
// "Second-order adjoint"): the residual's derivative along a direction of state, parameters and controls, and the
// derivative of the adjoint products K^T mu, D^T mu, M^T mu, mu . dR/dp, mu . dR/du along it, element by element
// (ForceElement::residual_tangent, add_second_order_products; Constraint::constraint_tangent,
// add_second_order_products: nested Sacado forward AD).
#include "flexadj/assembly/assembler.hpp"

#include <Tpetra_FECrsMatrix.hpp>

#include <algorithm>
#include <stdexcept>

#include "flexadj/functions/control_signal.hpp"

namespace flexadj::assembly {
void Assembler::import_tangent(const State& tangent) {
  if (!owned_tangent_) {
    owned_tangent_ = rcp(new MultiVector(coordinate_map_, 3));
    ghosted_tangent_ = rcp(new MultiVector(ghosted_coordinate_map_, 3));
    q_dot_.resize(q_.size());
    v_dot_.resize(q_.size());
    a_dot_.resize(q_.size());
    std::size_t parameters = 0;
    for (const auto& element : model_.force_elements()) parameters = std::max(parameters, element->parameters().size());
    p_dot_.resize(std::max(parameters, std::size_t(1)));
    c_tangent_.resize(c_.size());
  }
  {
    auto q = owned_tangent_->getDataNonConst(0), v = owned_tangent_->getDataNonConst(1),
         a = owned_tangent_->getDataNonConst(2);
    for (std::size_t i = 0; i < dofs_.owned_coordinates().size(); ++i) {
      q[i] = tangent.q[i];
      v[i] = tangent.v[i];
      a[i] = tangent.a[i];
    }
  }
  coordinate_transfer_->to_ghosted(*owned_tangent_, *ghosted_tangent_);
}

void Assembler::load_state_tangent(const LocalComponent& c) {
  const auto q = ghosted_tangent_->getData(0), v = ghosted_tangent_->getData(1), a = ghosted_tangent_->getData(2);
  for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
    q_dot_[i] = q[c.state_entries[i]];
    v_dot_[i] = v[c.state_entries[i]];
    a_dot_[i] = a[c.state_entries[i]];
  }
}

void Assembler::load_tangent(const LocalComponent& c, const LocalGradient& direction, int offset,
                             int parameter_count) {
  load_state_tangent(c);
  for (int k = 0; k < parameter_count; ++k) p_dot_[k] = offset >= 0 ? direction.parameters[offset + k] : 0.0;
}

// u_dot(t) = w0 u_dot_k0 + w1 u_dot_k1: the signal is linear in its values (functions/control_signal.hpp).
double Assembler::control_tangent(const model::ForceElement& element, const LocalGradient& direction,
                                  double t) const {
  const functions::ControlSignal* signal = element.control();
  if (!signal) return 0.0;
  const auto w = signal->weights(t);
  const std::vector<double>& values = direction.controls.at(signal->name());
  return w.w0 * values[w.k0] + w.w1 * values[w.k1];
}

void Assembler::tangent_residual(const State& state, const State& tangent, double t, const LocalGradient& direction,
                                 std::vector<double>& r_dot, std::vector<double>& c_dot) {
  import_state(state, true, true);
  import_tangent(tangent);
  ghosted_residual_->putScalar(0.0);
  {
    auto residual = ghosted_residual_->getDataNonConst(0);
    const GhostedViews views = ghosted_views();
    for (const auto& c : forces_) {
      const auto& element = *model_.force_elements()[c.index];
      load(c, views);
      load_tangent(c, direction, direction.force_offsets[c.index], static_cast<int>(element.parameters().size()));
      element.residual_tangent(q_.data(), v_.data(), a_.data(), t, q_dot_.data(), v_dot_.data(), a_dot_.data(),
                               p_dot_.data(), control_tangent(element, direction, t), r_.data());
      for (std::size_t i = 0; i < c.rows.size(); ++i) residual[c.rows[i]] += r_[i];
    }
    for (const auto& c : constraints_) {
      const auto& constraint = *model_.constraints()[c.index];
      load(c, views);
      load_tangent(c, direction, -1, 0);
      const double *lambda = state.lambda.data() + c.first_multiplier,
                   *lambda_dot = tangent.lambda.data() + c.first_multiplier;
      if (constraint.velocity_level())
        static_cast<const model::VelocityConstraint&>(constraint)
            .velocity_constraint_tangent(q_.data(), v_.data(), t, lambda, q_dot_.data(), v_dot_.data(), lambda_dot,
                                         constraint_p_dot(&direction, c.index), c_tangent_.data(), r_.data());
      else
        constraint.constraint_tangent(q_.data(), t, lambda, q_dot_.data(), lambda_dot,
                                      constraint_p_dot(&direction, c.index), c_tangent_.data(), r_.data());
      for (std::size_t i = 0; i < c.rows.size(); ++i) residual[c.rows[i]] += r_[i];
      for (int k = 0; k < constraint.equation_count(); ++k) residual[c.multiplier_rows[k]] += c_tangent_[k];
    }
  }
  system_transfer_->to_owned(*ghosted_residual_, *residual_);
  const auto values = residual_->getData(0);
  const std::size_t n = dofs_.owned_coordinates().size();
  for (std::size_t i = 0; i < n; ++i) r_dot[i] = values[i];
  for (std::size_t k = 0; k < c_dot.size(); ++k) c_dot[k] = values[n + k];
}

void Assembler::second_order_products(const State& state, const State& tangent, double t,
                                      const LocalGradient& direction, const std::vector<double>& mu_r,
                                      const std::vector<double>& mu_c, std::vector<double>& out_q,
                                      std::vector<double>& out_v, std::vector<double>& out_a,
                                      std::vector<double>& m_dot, LocalGradient& gradient) {
  import_state(state, true, true);
  import_tangent(tangent);
  import_products_mu(mu_r);
  {
    const auto mu = ghosted_mu_->getData(0);
    auto sum_q = ghosted_work_->getDataNonConst(0), sum_v = ghosted_work_->getDataNonConst(1),
         sum_a = ghosted_work_->getDataNonConst(2);
    const GhostedViews views = ghosted_views();
    double *local_mu = mu_local_.data(), *local_q = out_q_local_.data(), *local_v = out_v_local_.data(),
           *local_a = out_a_local_.data();
    for (const auto& c : forces_) {
      const auto& element = *model_.force_elements()[c.index];
      const int offset = gradient.force_offsets[c.index];
      load(c, views);
      load_tangent(c, direction, direction.force_offsets[c.index], static_cast<int>(element.parameters().size()));
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
        local_mu[i] = mu[c.state_entries[i]];
        local_q[i] = local_v[i] = local_a[i] = 0.0;
      }
      // A component without wanted parameters adds into a scratch row (its mask is empty: nothing is added).
      double* parameters = offset >= 0 ? gradient.parameters.data() + offset : nullptr;
      const double du = element.add_second_order_products(
          q_.data(), v_.data(), a_.data(), t, q_dot_.data(), v_dot_.data(), a_dot_.data(), p_dot_.data(),
          control_tangent(element, direction, t), local_mu, local_q, local_v, local_a,
          parameters ? parameters : p_dot_.data(), offset >= 0 ? gradient.force_masks[c.index] : 0u);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
        sum_q[c.state_entries[i]] += local_q[i];
        sum_v[c.state_entries[i]] += local_v[i];
        sum_a[c.state_entries[i]] += local_a[i];
      }
      if (const functions::ControlSignal* signal = element.control()) {
        const auto w = signal->weights(t);
        auto& values = gradient.controls.at(signal->name());
        values[w.k0] += w.w0 * du;
        values[w.k1] += w.w1 * du;
      }
    }
  }
  add_constraint_second_order_products(state, tangent, t, ConstraintLevel::Position, false, mu_c, m_dot, &direction);
  export_products(out_q, out_v, out_a);
}

void Assembler::constraint_second_order_products(const State& state, const State& tangent, double t,
                                                 ConstraintLevel level, const std::vector<double>& mu_r,
                                                 const std::vector<double>& mu_c, std::vector<double>& out_q,
                                                 std::vector<double>& m_dot, const LocalGradient* direction) {
  import_state(state, true, true);
  import_tangent(tangent);
  import_products_mu(mu_r);
  add_constraint_second_order_products(state, tangent, t, level, true, mu_c, m_dot, direction);
  export_first_work_column(out_q);
}

void Assembler::add_constraint_second_order_products(const State& state, const State& tangent, double t,
                                                     ConstraintLevel level, bool projection,
                                                     const std::vector<double>& mu_c, std::vector<double>& m_dot,
                                                     const LocalGradient* direction) {
  const auto mu = ghosted_mu_->getData(0);
  auto sum_q = ghosted_work_->getDataNonConst(0), sum_v = ghosted_work_->getDataNonConst(1);
  const GhostedViews views = ghosted_views();
  double *local_mu = mu_local_.data(), *local_q = out_q_local_.data(), *local_v = out_v_local_.data();
  for (const auto& c : constraints_) {
    const auto& constraint = *model_.constraints()[c.index];
    // A non-holonomic constraint's rows in a position projection are the identity (add_velocity_constraint).
    if (constraint.velocity_level() && projection && level == ConstraintLevel::Position) {
      std::fill_n(m_dot.data() + c.first_multiplier, constraint.equation_count(), 0.0);
      continue;
    }
    load(c, views);
    load_state_tangent(c);
    for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
      local_mu[i] = mu[c.state_entries[i]];
      local_q[i] = local_v[i] = 0.0;
    }
    const double* multiplier_mu = mu_c.empty() ? zero_multipliers_.data() : mu_c.data() + c.first_multiplier;
    const double *lambda = state.lambda.data() + c.first_multiplier,
                 *lambda_dot = tangent.lambda.data() + c.first_multiplier;
    if (constraint.velocity_level())
      static_cast<const model::VelocityConstraint&>(constraint)
          .add_velocity_second_order_products(q_.data(), v_.data(), t, lambda, q_dot_.data(), v_dot_.data(),
                                              lambda_dot, constraint_p_dot(direction, c.index), local_mu,
                                              multiplier_mu, static_cast<int>(level), local_q, local_v,
                                              m_dot.data() + c.first_multiplier);
    else
      constraint.add_second_order_products(q_.data(), t, lambda, q_dot_.data(), lambda_dot,
                                           constraint_p_dot(direction, c.index), local_mu, multiplier_mu, local_q,
                                           m_dot.data() + c.first_multiplier);
    for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
      sum_q[c.state_entries[i]] += local_q[i];
      sum_v[c.state_entries[i]] += local_v[i];
    }
  }
}

void Assembler::constraint_level_tangent(const State& state, const State& tangent, double t, ConstraintLevel level,
                                         std::vector<double>& c_dot, const LocalGradient* direction) {
  import_state(state, true, true);
  import_tangent(tangent);
  const GhostedViews views = ghosted_views();
  for (const auto& c : constraints_) {
    load(c, views);
    load_state_tangent(c);
    model_.constraints()[c.index]->level_tangent(q_.data(), v_.data(), a_.data(), t, q_dot_.data(), v_dot_.data(),
                                                 a_dot_.data(), constraint_p_dot(direction, c.index),
                                                 static_cast<int>(level), c_dot.data() + c.first_multiplier);
  }
}

void Assembler::add_constraint_level_transposed_tangent(const State& state, const State& tangent, double t,
                                                        ConstraintLevel level, const std::vector<double>& mu_c,
                                                        std::vector<double>& out_q, std::vector<double>& out_v,
                                                        const LocalGradient* direction) {
  import_state(state, true, true);
  import_tangent(tangent);
  ghosted_work_->putScalar(0.0);
  {
    auto sum_q = ghosted_work_->getDataNonConst(0), sum_v = ghosted_work_->getDataNonConst(1);
    const GhostedViews views = ghosted_views();
    double *local_q = out_q_local_.data(), *local_v = out_v_local_.data();
    for (const auto& c : constraints_) {
      load(c, views);
      load_state_tangent(c);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) local_q[i] = local_v[i] = 0.0;
      model_.constraints()[c.index]->add_level_transposed_tangent(
          q_.data(), v_.data(), a_.data(), t, q_dot_.data(), v_dot_.data(), a_dot_.data(),
          constraint_p_dot(direction, c.index), static_cast<int>(level), mu_c.data() + c.first_multiplier, local_q,
          local_v);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
        sum_q[c.state_entries[i]] += local_q[i];
        sum_v[c.state_entries[i]] += local_v[i];
      }
    }
  }
  add_first_two_work_columns(out_q, out_v);
}

// Per constraint with wanted parameters: the kernel's add_parameter_second_order with its mu_r, lambda, lambda_dot
// and the owned mu_c (a rank evaluates the constraints whose multipliers it owns).
void Assembler::add_constraint_parameter_second_order(const State& state, const State& tangent, double t,
                                                      const LocalGradient& direction, const std::vector<double>& mu_r,
                                                      const std::vector<double>& mu_c, ConstraintLevel level,
                                                      LocalGradient& gradient) {
  import_state(state, true, true);
  import_tangent(tangent);
  import_products_mu(mu_r);
  const auto mu = ghosted_mu_->getData(0);
  const GhostedViews views = ghosted_views();
  double* local_mu = mu_local_.data();
  for (const auto& c : constraints_) {
    const int offset = gradient.constraint_offsets[c.index];
    if (offset < 0) continue;
    const auto& constraint = *model_.constraints()[c.index];
    load(c, views);
    load_state_tangent(c);
    for (std::size_t i = 0; i < c.state_entries.size(); ++i) local_mu[i] = mu[c.state_entries[i]];
    const double* multiplier_mu = mu_c.empty() ? zero_multipliers_.data() : mu_c.data() + c.first_multiplier;
    constraint.add_parameter_second_order(q_.data(), v_.data(), a_.data(), t, state.lambda.data() + c.first_multiplier,
                                          q_dot_.data(), v_dot_.data(), a_dot_.data(),
                                          tangent.lambda.data() + c.first_multiplier,
                                          constraint_p_dot(&direction, c.index), local_mu, multiplier_mu,
                                          static_cast<int>(level), gradient.parameters.data() + offset,
                                          gradient.constraint_masks[c.index]);
  }
}

void Assembler::constraint_parameter_tangent(const State& state, double t, const LocalGradient& direction,
                                             std::vector<double>& r_dot, std::vector<double>& c_dot,
                                             const State* along_q) {
  import_state(state, true, true);
  if (along_q) import_tangent(*along_q);
  ghosted_work_->putScalar(0.0);
  std::fill(c_dot.begin(), c_dot.end(), 0.0);
  {
    auto sum_q = ghosted_work_->getDataNonConst(0);
    const GhostedViews views = ghosted_views();
    if (q_dot_.size() < q_.size()) q_dot_.resize(q_.size());
    if (v_dot_.size() < q_.size()) v_dot_.resize(q_.size());
    std::fill(v_dot_.begin(), v_dot_.end(), 0.0);
    const auto q_tangent = along_q ? ghosted_tangent_->getData(0) : Teuchos::ArrayRCP<const double>();
    for (const auto& c : constraints_) {
      const double* p_dot = constraint_p_dot(&direction, c.index);
      if (!p_dot && !along_q) continue;
      load(c, views);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) q_dot_[i] = along_q ? q_tangent[c.state_entries[i]] : 0.0;
      const auto& constraint = *model_.constraints()[c.index];
      const double* lambda = state.lambda.data() + c.first_multiplier;
      if (constraint.velocity_level())  // its forces' part alone: it has no position level
        static_cast<const model::VelocityConstraint&>(constraint)
            .velocity_constraint_tangent(q_.data(), v_.data(), t, lambda, q_dot_.data(), v_dot_.data(),
                                         zero_multipliers_.data(), p_dot, c_dot_.data(), r_.data());
      else
        constraint.constraint_tangent(q_.data(), t, lambda, q_dot_.data(), zero_multipliers_.data(), p_dot,
                                      c_dot.data() + c.first_multiplier, r_.data());
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) sum_q[c.state_entries[i]] += r_[i];
    }
  }
  export_first_work_column(r_dot);
}

}  // namespace flexadj::assembly
