// The element loops of the midpoint variational integrator (variational.hpp; Marsden and West 2001, sec. 3.2 and
// 3.5): the step's residual and Newton matrix, the Legendre transform, and the transposed products and parameter
// terms of the discrete momenta for its discrete adjoint (Schubert et al. 2024, eqs. (10)-(13)).
#include "flexadj/integrators/variational_assembly.hpp"

#include <Tpetra_FECrsMatrix.hpp>

#include "flexadj/functions/control_signal.hpp"

namespace flexadj::integrators {

VariationalAssembly::VariationalAssembly(assembly::Assembler& assembler) : assembler_(assembler) {
  std::size_t n = 1, m = 1;
  for (const auto& c : assembler.forces_) n = std::max(n, c.rows.size());
  for (const auto& c : assembler.constraints_) {
    n = std::max(n, c.rows.size());
    m = std::max(m, c.multiplier_rows.size());
  }
    q_mid_.resize(n);
  v_mid_.resize(n);
  minus_.resize(n);
  plus_.resize(n);
  plus_jacobian_.resize(n * n);
  mu_plus_local_.resize(n);
  control_mu_.resize(n);
  zero_acceleration_.resize(n);
  previous_jacobian_.resize(m * n);
  owned_momentum_mu_ = rcp(new MultiVector(assembler.coordinate_map_, 2));
  ghosted_momentum_mu_ = rcp(new MultiVector(assembler.ghosted_coordinate_map_, 2));
  std::size_t parameters = 1;
  for (const auto& element : assembler.model().force_elements())
    parameters = std::max(parameters, element->parameters().size());
  q_mid_dot_.resize(n);
  v_mid_dot_.resize(n);
  p_dot_.resize(parameters);
  parameter_scratch_.resize(parameters);
  owned_tangents_ = rcp(new MultiVector(assembler.coordinate_map_, 2));
  ghosted_tangents_ = rcp(new MultiVector(assembler.ghosted_coordinate_map_, 2));
}

void VariationalAssembly::assemble_step(const std::vector<double>& previous_q,
                                          const std::vector<double>& previous_momentum,
                                          const std::vector<double>& next_q, const std::vector<double>& scaled_impulse,
                                          double t, double h, bool with_matrix, std::vector<double>* momentum,
                                          const std::vector<double>* plus_multiplier,
                                          std::vector<double>* plus_product) {
  assembly::Assembler& a = assembler_;
  const bool with_product = with_matrix && plus_multiplier && plus_product;
  if (with_product) import_multipliers(*plus_multiplier, *plus_multiplier);
  // Ghosted columns: q = q_{n+1}, v = q_n.
  a.import_columns(next_q.data(), previous_q.data(), nullptr);
  a.ghosted_residual_->putScalar(0.0);
  if (momentum || with_product) a.ghosted_work_->putScalar(0.0);
  // The ghosted matrix's values at LocalComponent::value_runs and value_offsets (Assembler::begin_matrix_values()).
  double* values = with_matrix ? a.begin_matrix_values() : nullptr;
  {
    auto residual = a.ghosted_residual_->getDataNonConst(0);
    Teuchos::ArrayRCP<double> momentum_sum, product_sum;
    Teuchos::ArrayRCP<const double> ghosted_mu;
    if (momentum) momentum_sum = a.ghosted_work_->getDataNonConst(0);
    if (with_product) {
      product_sum = a.ghosted_work_->getDataNonConst(1);
      ghosted_mu = ghosted_momentum_mu_->getData(1);
    }
    const assembly::Assembler::GhostedViews views = a.ghosted_views();
    // The owned coordinates are the first rows of the ghosted system map.
    for (std::size_t i = 0; i < previous_momentum.size(); ++i) residual[i] -= h * previous_momentum[i];
    for (const auto& c : a.forces_) {
      const auto& element = *a.model_.force_elements()[c.index];
      const int n = static_cast<int>(c.rows.size());
      a.load(c, views);
      for (int i = 0; i < n; ++i) {
        q_mid_[i] = 0.5 * (a.q_[i] + a.v_[i]);
        v_mid_[i] = (a.q_[i] - a.v_[i]) / h;
      }
      element.discrete_momenta(q_mid_.data(), v_mid_.data(), t + 0.5 * h, h, minus_.data(), plus_.data(),
                               with_matrix ? a.jacobian_.data() : nullptr,
                               with_product ? plus_jacobian_.data() : nullptr);
      for (int i = 0; i < n; ++i) residual[c.rows[i]] -= h * minus_[i];
      if (momentum)
        for (int i = 0; i < n; ++i) momentum_sum[c.state_entries[i]] += plus_[i];
      if (!with_matrix) continue;
      if (with_product)
        for (int i = 0; i < n; ++i) {
          const double mu = ghosted_mu[c.state_entries[i]];
          for (int j = 0; j < n; ++j) product_sum[c.state_entries[j]] += plus_jacobian_[i * n + j] * mu;
        }
      const double* jacobian = a.jacobian_.data();
      assembly::add_runs(values, c.value_runs, n, a.transposed_, [&](int e) { return -h * jacobian[e]; });
    }
    for (const auto& c : a.constraints_) {
      const auto& constraint = *a.model_.constraints()[c.index];
      const int n = static_cast<int>(c.rows.size()), m = constraint.equation_count();
      a.load(c, views);
      constraint.jacobian(a.v_.data(), t, a.c_.data(), previous_jacobian_.data());  // C_q(q_n, t_n)
      constraint.jacobian(a.q_.data(), t + h, a.c_.data(), a.jacobian_.data());       // C, C_q at q_{n+1}, t_{n+1}
      const double* impulse = scaled_impulse.data() + c.first_multiplier;
      for (int k = 0; k < m; ++k) residual[c.multiplier_rows[k]] += a.c_[k];
      for (int i = 0; i < n; ++i) {
        double force = 0.0;
        for (int k = 0; k < m; ++k) force += previous_jacobian_[k * n + i] * impulse[k];
        residual[c.rows[i]] += force;
      }
      if (!with_matrix) continue;
      // Transposed: C_q(q_{n+1})^T in the coordinate rows, C_q(q_n) in the multiplier rows.
      const double* upper = a.transposed_ ? a.jacobian_.data() : previous_jacobian_.data();
      const double* lower = a.transposed_ ? previous_jacobian_.data() : a.jacobian_.data();
      // Offsets: coordinate row i, its n coordinate and m multiplier columns; then multiplier row k, n columns.
      const std::size_t* offset = c.value_offsets.data();
      for (int i = 0; i < n; ++i, offset += n + m)
        for (int k = 0; k < m; ++k) values[offset[n + k]] += upper[k * n + i];
      for (int k = 0; k < m; ++k)
        for (int j = 0; j < n; ++j) values[*offset++] += lower[k * n + j];
    }
  }
  a.system_transfer_->to_owned(*a.ghosted_residual_, *a.residual_);
  if (with_matrix) a.end_matrix_values();
  if (!momentum && !with_product) return;
  // Column 0: p_hat, column 1: the product at q_{n+1}.
  a.coordinate_transfer_->to_owned(*a.ghosted_work_, *a.owned_work_);
  if (momentum) {
    const auto sum = a.owned_work_->getData(0);
    for (std::size_t i = 0; i < momentum->size(); ++i) (*momentum)[i] = sum[i];
  }
  if (with_product) {
    const auto sum = a.owned_work_->getData(1);
    for (std::size_t i = 0; i < plus_product->size(); ++i) (*plus_product)[i] += sum[i];
  }
}

void VariationalAssembly::midpoint_force(const std::vector<double>& previous_q, const std::vector<double>& next_q,
                                         double t, double h, std::vector<double>& force) {
  assembly::Assembler& a = assembler_;
  a.import_columns(next_q.data(), previous_q.data(), nullptr);  // q = q_{n+1}, v = q_n, as assemble_step()
  a.ghosted_work_->putScalar(0.0);
  {
    auto sum = a.ghosted_work_->getDataNonConst(0);
    const assembly::Assembler::GhostedViews views = a.ghosted_views();
    for (const auto& c : a.forces_) {
      a.load(c, views);
      const int n = static_cast<int>(c.rows.size());
      for (int i = 0; i < n; ++i) {
        q_mid_[i] = 0.5 * (a.q_[i] + a.v_[i]);
        v_mid_[i] = (a.q_[i] - a.v_[i]) / h;
      }
      // With the factor 1 in place of h: (minus + plus)/2 = (T_q + f)/2.
      a.model_.force_elements()[c.index]->discrete_momenta(q_mid_.data(), v_mid_.data(), t + 0.5 * h, 1.0,
                                                         minus_.data(), plus_.data(), nullptr, nullptr);
      for (int i = 0; i < n; ++i) sum[c.state_entries[i]] += 0.5 * (minus_[i] + plus_[i]);
    }
  }
  a.export_first_work_column(force);
}

void VariationalAssembly::momentum(const assembly::State& state, double t, std::vector<double>& p) {
  state_sum(state, t, 0.0, p);  // h = 0: plus = T_v
}

void VariationalAssembly::force(const assembly::State& state, double t, std::vector<double>& f) {
  state_sum(state, t, 1.0, f);  // h = 1: minus + plus = T_q + f
}

void VariationalAssembly::state_sum(const assembly::State& state, double t, double h, std::vector<double>& out) {
  assembly::Assembler& a = assembler_;
  a.import_state(state, true, false);
  a.ghosted_work_->putScalar(0.0);
  {
    auto sum = a.ghosted_work_->getDataNonConst(0);
    const assembly::Assembler::GhostedViews views = a.ghosted_views();
    for (const auto& c : a.forces_) {
      a.load(c, views);
      a.model_.force_elements()[c.index]->discrete_momenta(a.q_.data(), a.v_.data(), t, h, minus_.data(), plus_.data(),
                                                         nullptr, nullptr);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i)
        sum[c.state_entries[i]] += h > 0.0 ? minus_[i] + plus_[i] : plus_[i];
    }
  }
  a.export_first_work_column(out);
}

void VariationalAssembly::import_multipliers(const std::vector<double>& mu_minus, const std::vector<double>& mu_plus) {
  {
    auto minus_column = owned_momentum_mu_->getDataNonConst(0);
    auto plus_column = owned_momentum_mu_->getDataNonConst(1);
    for (std::size_t i = 0; i < assembler_.dofs_.owned_coordinates().size(); ++i) {
      minus_column[i] = mu_minus[i];
      plus_column[i] = mu_plus[i];
    }
  }
  assembler_.coordinate_transfer_->to_ghosted(*owned_momentum_mu_, *ghosted_momentum_mu_);
}

template <class Visit>
void VariationalAssembly::visit_discrete_momenta(const std::vector<double>& first, const std::vector<double>& second, double h,
                                       const std::vector<double>& mu_minus, const std::vector<double>& mu_plus,
                                       const Visit& visit) {
  assembly::Assembler& a = assembler_;
  a.import_columns(first.data(), second.data(), nullptr);
  import_multipliers(mu_minus, mu_plus);
  const auto ghosted_minus = ghosted_momentum_mu_->getData(0), ghosted_plus = ghosted_momentum_mu_->getData(1);
  const assembly::Assembler::GhostedViews views = a.ghosted_views();
  for (const auto& c : a.forces_) {
    a.load(c, views);
    const int n = static_cast<int>(c.rows.size());
    for (int i = 0; i < n; ++i) {
      // h > 0: q_ = q_n, v_ = q_{n+1}; h = 0: q_ = q, v_ = v.
      q_mid_[i] = h > 0.0 ? 0.5 * (a.q_[i] + a.v_[i]) : a.q_[i];
      v_mid_[i] = h > 0.0 ? (a.v_[i] - a.q_[i]) / h : a.v_[i];
      a.mu_local_[i] = ghosted_minus[c.state_entries[i]];
      mu_plus_local_[i] = ghosted_plus[c.state_entries[i]];
    }
    visit(c, a.mu_local_.data(), mu_plus_local_.data());
  }
}

void VariationalAssembly::add_discrete_momenta_transposed(const std::vector<double>& first, const std::vector<double>& second,
                                                double t, double h, const std::vector<double>& mu_minus,
                                                const std::vector<double>& mu_plus, std::vector<double>& out_first,
                                                std::vector<double>& out_second) {
  transposed_sums(first, second, h, h, t + 0.5 * h, mu_minus, mu_plus, out_first, out_second);
}

void VariationalAssembly::add_discrete_momenta_transposed_at_end(const std::vector<double>& first,
                                                                  const std::vector<double>& second, double t,
                                                                  double h, const std::vector<double>& mu_minus,
                                                                  const std::vector<double>& mu_plus, bool at_second,
                                                                  std::vector<double>& out) {
  assembly::Assembler& a = assembler_;
  a.ghosted_work_->putScalar(0.0);
  {
    auto sum = a.ghosted_work_->getDataNonConst(0);
    visit_discrete_momenta(first, second, h, mu_minus, mu_plus,
                           [&](const assembly::Assembler::LocalComponent& c, const double* local_minus,
                               const double* local_plus) {
                             const int n = static_cast<int>(c.rows.size());
                             for (int i = 0; i < n; ++i) a.out_q_local_[i] = 0.0;
                             a.model_.force_elements()[c.index]->add_discrete_momenta_transposed_product_at_end(
                                 q_mid_.data(), v_mid_.data(), t + 0.5 * h, h, local_minus, local_plus, at_second,
                                 a.out_q_local_.data());
                             for (int i = 0; i < n; ++i) sum[c.state_entries[i]] += a.out_q_local_[i];
                           });
  }
  a.coordinate_transfer_->to_owned(*a.ghosted_work_, *a.owned_work_);
  const auto owned_sum = a.owned_work_->getData(0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += owned_sum[i];
}

void VariationalAssembly::add_force_transposed(const std::vector<double>& q, const std::vector<double>& v, double t,
                                               const std::vector<double>& mu, std::vector<double>& out_q,
                                               std::vector<double>& out_v) {
  transposed_sums(q, v, 0.0, 1.0, t, mu, mu, out_q, out_v);
}

void VariationalAssembly::transposed_sums(const std::vector<double>& first, const std::vector<double>& second,
                                          double h, double element_h, double t_element,
                                          const std::vector<double>& mu_minus, const std::vector<double>& mu_plus,
                                          std::vector<double>& out_first, std::vector<double>& out_second) {
  assembly::Assembler& a = assembler_;
  a.ghosted_work_->putScalar(0.0);
  {
    auto sum_first = a.ghosted_work_->getDataNonConst(0);
    auto sum_second = a.ghosted_work_->getDataNonConst(1);
    visit_discrete_momenta(first, second, h, mu_minus, mu_plus,
                           [&](const assembly::Assembler::LocalComponent& c, const double* local_minus, const double* local_plus) {
                             const int n = static_cast<int>(c.rows.size());
                             for (int i = 0; i < n; ++i) a.out_q_local_[i] = a.out_v_local_[i] = 0.0;
                             a.model_.force_elements()[c.index]->add_discrete_momenta_transposed_products(
                                 q_mid_.data(), v_mid_.data(), t_element, element_h, local_minus, local_plus,
                                 a.out_q_local_.data(), a.out_v_local_.data());
                             // d/dq_n = 1/2 d/dq_mid - 1/h d/dv_mid, d/dq_{n+1} = 1/2 d/dq_mid + 1/h d/dv_mid.
                             for (int i = 0; i < n; ++i) {
                               const double dq = a.out_q_local_[i], dv = a.out_v_local_[i];
                               sum_first[c.state_entries[i]] += h > 0.0 ? 0.5 * dq - dv / h : dq;
                               sum_second[c.state_entries[i]] += h > 0.0 ? 0.5 * dq + dv / h : dv;
                             }
                           });
  }
  a.coordinate_transfer_->to_owned(*a.ghosted_work_, *a.owned_work_);
  const auto first_sum = a.owned_work_->getData(0), second_sum = a.owned_work_->getData(1);
  for (std::size_t i = 0; i < out_first.size(); ++i) {
    out_first[i] += first_sum[i];
    out_second[i] += second_sum[i];
  }
}

void VariationalAssembly::add_discrete_momenta_parameter_gradient(const std::vector<double>& first,
                                                        const std::vector<double>& second, double t, double h,
                                                        const std::vector<double>& mu_minus,
                                                        const std::vector<double>& mu_plus,
                                                        assembly::LocalGradient& gradient) {
  parameter_terms(first, second, h, h, t + 0.5 * h, mu_minus, mu_plus, gradient);
}

void VariationalAssembly::add_force_parameter_gradient(const std::vector<double>& q, const std::vector<double>& v,
                                                       double t, const std::vector<double>& mu,
                                                       assembly::LocalGradient& gradient) {
  parameter_terms(q, v, 0.0, 1.0, t, mu, mu, gradient);
}

void VariationalAssembly::parameter_terms(const std::vector<double>& first, const std::vector<double>& second, double h,
                                          double element_h, double t_element, const std::vector<double>& mu_minus,
                                          const std::vector<double>& mu_plus, assembly::LocalGradient& gradient) {
  assembly::Assembler& a = assembler_;
  const double t_mid = t_element;
  visit_discrete_momenta(
      first, second, h, mu_minus, mu_plus,
      [&](const assembly::Assembler::LocalComponent& c, const double* local_minus, const double* local_plus) {
        const auto& element = *a.model_.force_elements()[c.index];
        if (gradient.force_offsets[c.index] >= 0)
          element.add_discrete_momenta_parameter_gradient(q_mid_.data(), v_mid_.data(), t_mid, element_h, local_minus,
                                                          local_plus, gradient.parameters.data() + gradient.force_offsets[c.index]);
        const functions::ControlSignal* signal = element.control();
        if (!signal || element_h <= 0.0) return;
        // minus and plus hold -(h/2) times the applied residual: mu . d/du = -(h/2) (mu_minus + mu_plus) . dr/du.
        const int n = static_cast<int>(c.rows.size());
        for (int i = 0; i < n; ++i) {
          control_mu_[i] = local_minus[i] + local_plus[i];
          zero_acceleration_[i] = 0.0;
        }
        const double sensitivity =
            -0.5 * element_h * element.control_sensitivity(q_mid_.data(), v_mid_.data(), zero_acceleration_.data(), t_mid, control_mu_.data());
        const auto w = signal->weights(t_mid);
        auto& values = gradient.controls.at(signal->name());
        values[w.k0] += w.w0 * sensitivity;
        values[w.k1] += w.w1 * sensitivity;
      });
}


}  // namespace flexadj::integrators
