// The Assembler's adjoint products (assembler.hpp): transposed products K^T mu, D^T mu, M^T mu element by element,
// the transposed derivatives of the velocity- and acceleration-level constraints, and the parameter and control
// partials mu . dR/dp, mu . dR/du. Used by the integrators' adjoint steps and the continuous adjoint.
#include "flexadj/assembly/assembler.hpp"
#include "flexadj/model/force_batch.hpp"

#include <Tpetra_FECrsMatrix.hpp>

#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/functions/control_signal.hpp"

namespace flexadj::assembly {

void Assembler::apply_transposed(const Vector& x, Vector& y) const { matrix_->apply(x, y, Teuchos::TRANS); }

void Assembler::add_parameter_gradient(const State& state, double t, const Vector& mu, ConstraintLevel level,
                                       bool constraints_only, LocalGradient& gradient) {
  const std::vector<int>& force_offsets = gradient.force_offsets;
  const std::vector<int>& constraint_offsets = gradient.constraint_offsets;
  import_state(state, true, true);
  const std::size_t owned = dofs_.owned_coordinates().size();
  {
    const auto values = mu.getData(0);
    auto work = owned_work_->getDataNonConst(0);
    for (std::size_t i = 0; i < owned; ++i) work[i] = values[i];
  }
  coordinate_transfer_->to_ghosted(*owned_work_, *ghosted_work_);
  const auto mu_ghosted = ghosted_work_->getData(0);
  const ConstSystemVectorView mu_blocks(mu, owned);
  const GhostedViews views = ghosted_views();
  double* mu_r = mu_local_.data();
  double* mu_c = mu_multipliers_.data();
  auto load_with_mu = [&](const LocalComponent& c) {
    load(c, views);
    for (std::size_t i = 0; i < c.state_entries.size(); ++i) mu_r[i] = mu_ghosted[c.state_entries[i]];
  };
  for (const auto& c : forces_) {
    if (constraints_only) break;
    if (force_offsets[c.index] < 0 && !model_.force_elements()[c.index]->control()) continue;
    load_with_mu(c);
    const auto& element = *model_.force_elements()[c.index];
    if (force_offsets[c.index] >= 0)
      element.add_parameter_gradient(q_.data(), v_.data(), a_.data(), t, mu_r,
                                     gradient.parameters.data() + force_offsets[c.index], gradient.force_masks[c.index]);
    if (const functions::ControlSignal* signal = element.control()) {
      const double sensitivity = element.control_sensitivity(q_.data(), v_.data(), a_.data(), t, mu_r);
      const auto w = signal->weights(t);
      auto& values = gradient.controls.at(signal->name());
      values[w.k0] += w.w0 * sensitivity;
      values[w.k1] += w.w1 * sensitivity;
    }
  }
  for (const auto& c : constraints_) {
    if (constraint_offsets[c.index] < 0) continue;
    const auto& constraint = *model_.constraints()[c.index];
    // The position projection does not see non-holonomic constraints (assemble()).
    if (constraint.velocity_level() && constraints_only && level == ConstraintLevel::Position) continue;
    load_with_mu(c);
    for (int k = 0; k < constraint.equation_count(); ++k) mu_c[k] = mu_blocks.multipliers()[c.first_multiplier + k];
    constraint.add_parameter_gradient(q_.data(), v_.data(), a_.data(), t, state.lambda.data() + c.first_multiplier,
                                      mu_r, mu_c, static_cast<int>(level),
                                      gradient.parameters.data() + constraint_offsets[c.index],
                                      gradient.constraint_masks[c.index]);
  }
}

void Assembler::add_constraint_level_transposed(const State& state, double t, ConstraintLevel level,
                                                const std::vector<double>& mu_c, std::vector<double>& out_q,
                                                std::vector<double>& out_v) {
  import_state(state, true, true);
  ghosted_work_->putScalar(0.0);
  {
    auto sum_q = ghosted_work_->getDataNonConst(0);
    auto sum_v = ghosted_work_->getDataNonConst(1);
    const GhostedViews views = ghosted_views();
    for (const auto& c : constraints_) {
      const auto& constraint = *model_.constraints()[c.index];
      const int n = static_cast<int>(c.rows.size()), m = constraint.equation_count();
      load(c, views);
      constraint.level_jacobians(q_.data(), v_.data(), a_.data(), t, static_cast<int>(level), d_dq_.data(),
                                 d_dv_.data());
      for (int i = 0; i < n; ++i)
        for (int e = 0; e < m; ++e) {
          sum_q[c.state_entries[i]] += d_dq_[e * n + i] * mu_c[c.first_multiplier + e];
          sum_v[c.state_entries[i]] += d_dv_[e * n + i] * mu_c[c.first_multiplier + e];
        }
    }
  }
  add_first_two_work_columns(out_q, out_v);
}

void Assembler::import_products_mu(const std::vector<double>& mu_r) {
  {
    auto values = owned_mu_->getDataNonConst(0);
    for (std::size_t i = 0; i < mu_r.size(); ++i) values[i] = mu_r[i];
  }
  coordinate_transfer_->to_ghosted(*owned_mu_, *ghosted_mu_);
  ghosted_work_->putScalar(0.0);
}

void Assembler::export_products(std::vector<double>& out_q, std::vector<double>& out_v, std::vector<double>& out_a) {
  coordinate_transfer_->to_owned(*ghosted_work_, *owned_work_);
  const auto q_sum = owned_work_->getData(0), v_sum = owned_work_->getData(1), a_sum = owned_work_->getData(2);
  for (std::size_t i = 0; i < out_q.size(); ++i) {
    out_q[i] = q_sum[i];
    out_v[i] = v_sum[i];
    out_a[i] = a_sum[i];
  }
}

void Assembler::adjoint_products(const State& state, double t, const std::vector<double>& mu_r,
                                 const std::vector<double>& mu_c, bool constraints_only, std::vector<double>& out_q,
                                 std::vector<double>& out_v, std::vector<double>& out_a) {
  import_state(state, true, true);
  import_products_mu(mu_r);
  {
    const auto mu = ghosted_mu_->getData(0);
    auto sum_q = ghosted_work_->getDataNonConst(0);
    auto sum_v = ghosted_work_->getDataNonConst(1);
    auto sum_a = ghosted_work_->getDataNonConst(2);
    const GhostedViews views = ghosted_views();
    double *local_mu = mu_local_.data(), *local_q = out_q_local_.data(), *local_v = out_v_local_.data(),
           *local_a = out_a_local_.data();
    auto load_with_mu = [&](const LocalComponent& c) {
      load(c, views);
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
        local_mu[i] = mu[c.state_entries[i]];
        local_q[i] = local_v[i] = local_a[i] = 0.0;
      }
    };
    auto scatter = [&](const LocalComponent& c) {
      for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
        sum_q[c.state_entries[i]] += local_q[i];
        sum_v[c.state_entries[i]] += local_v[i];
        sum_a[c.state_entries[i]] += local_a[i];
      }
    };
    for (const auto& c : forces_) {
      if (constraints_only) break;
      load_with_mu(c);
      model_.force_elements()[c.index]->add_transposed_products(q_.data(), v_.data(), a_.data(), t, local_mu, local_q,
                                                                local_v, local_a);
      scatter(c);
    }
    for (const auto& c : constraints_) {
      load_with_mu(c);
      const double* multiplier_mu = mu_c.empty() ? zero_multipliers_.data() : mu_c.data() + c.first_multiplier;
      const auto& constraint = *model_.constraints()[c.index];
      const double* lambda = state.lambda.data() + c.first_multiplier;
      if (constraint.velocity_level())
        static_cast<const model::VelocityConstraint&>(constraint)
            .add_velocity_transposed_products(q_.data(), v_.data(), t, lambda, local_mu, multiplier_mu, local_q,
                                              local_v);
      else
        constraint.add_transposed_products(q_.data(), t, lambda, local_mu, multiplier_mu, local_q);
      scatter(c);
    }
  }
  export_products(out_q, out_v, out_a);
}

void Assembler::assemble_adjoint_matrix(const State& state, double t, double scale,
                                        const model::JacobianCoefficients& coefficients) {
  if (kept_offsets_.empty()) {
    std::size_t size = 0;
    for (const auto& c : forces_) {
      kept_offsets_.push_back(size);
      size += 3 * c.rows.size() * c.rows.size();
    }
    for (const auto& c : constraints_) {
      kept_offsets_.push_back(size);
      const std::size_t rows = model_.constraints()[c.index]->velocity_level() ? 2 * c.multiplier_rows.size()
                                                                               : c.multiplier_rows.size();
      size += (c.rows.size() + rows) * c.rows.size();
    }
    kept_jacobians_.assign(size, 0.0);
  }
  import_state(state, true, true);
  double* values = begin_matrix_values();
  const GhostedViews views = ghosted_views();
  std::size_t k = 0;
  constexpr int L = model::kBatchLanes;
  for (const ForceGroup& group : force_groups_) {
    if (group.kernel != nullptr) {
      // The lanes' Jacobians from one batched call, moved into their kept blocks.
      const int n = static_cast<int>(forces_[group.first].rows.size()), n2 = n * n;
      double* batch_dq = batch_jacobian_.data();
      group.kernel->batch_residual_jacobians(load_batch(group, views, t), batch_r_.data(), batch_dq,
                                             batch_dq + n2 * L, batch_dq + 2 * n2 * L);
      for (int l = 0; l < group.count; ++l) {
        double* kept = kept_jacobians_.data() + kept_offsets_[group.first + l];
        for (int e = 0; e < 3 * n2; ++e) kept[e] = batch_dq[e * L + l];
      }
    }
    for (int f = group.first; f < group.first + group.count; ++f) {
      const LocalComponent& c = forces_[f];
      const auto& element = *model_.force_elements()[c.index];
      const int n = static_cast<int>(c.rows.size());
      const double element_scale = element.applied_load() ? scale * load_factor_ : scale;
      double* dr_dq = kept_jacobians_.data() + kept_offsets_[k++];
      double *dr_dv = dr_dq + n * n, *dr_da = dr_dv + n * n;
      if (group.kernel == nullptr) {
        load(c, views);
        element.residual_jacobians(q_.data(), v_.data(), a_.data(), t, r_.data(), dr_dq, dr_dv, dr_da);
      }
      // The same entries as assemble(): the combined matrix c_q dr/dq + c_v dr/dv + c_a dr/da, scaled.
      add_runs(values, c.value_runs, n, transposed_, [&](int e) {
        return element_scale * (coefficients.q * dr_dq[e] + coefficients.v * dr_dv[e] + coefficients.a * dr_da[e]);
      });
    }
  }
  for (const auto& c : constraints_) {
    const auto& constraint = *model_.constraints()[c.index];
    const int n = static_cast<int>(c.rows.size()), m = constraint.equation_count();
    double* Cq = kept_jacobians_.data() + kept_offsets_[k++];
    double* H = Cq + m * n;
    load(c, views);
    if (constraint.velocity_level()) {
      // Kept: g_q, A, H = d(A^T lambda)/dq; the entries of assemble() at Position level (add_velocity_constraint).
      double *g_q = Cq, *A = Cq + m * n;
      H = A + m * n;
      static_cast<const model::VelocityConstraint&>(constraint)
          .velocity_jacobians(q_.data(), v_.data(), state.lambda.data() + c.first_multiplier, t, c_.data(), g_q, A, H);
      auto row = [&](int e, int j) { return coefficients.q * g_q[e * n + j] + coefficients.v * A[e * n + j]; };
      const std::size_t* offset = c.value_offsets.data();
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
          values[*offset++] += scale * coefficients.q * (transposed_ ? H[j * n + i] : H[i * n + j]);
        for (int e = 0; e < m; ++e) values[*offset++] += transposed_ ? row(e, i) : A[e * n + i];
      }
      for (int e = 0; e < m; ++e)
        for (int j = 0; j < n; ++j) values[*offset++] += transposed_ ? A[e * n + j] : row(e, j);
      continue;
    }
    constraint.jacobian_and_hessian(q_.data(), state.lambda.data() + c.first_multiplier, t, c_.data(), Cq, H);
    // [H C_q^T; C_q 0] is symmetric: the same entries transposed or not (assemble()).
    const std::size_t* offset = c.value_offsets.data();
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) values[*offset++] += scale * coefficients.q * H[i * n + j];
      for (int e = 0; e < m; ++e) values[*offset++] += Cq[e * n + i];
    }
    for (int e = 0; e < m; ++e)
      for (int j = 0; j < n; ++j) values[*offset++] += Cq[e * n + j];
  }
  end_matrix_values();
}

void Assembler::kept_adjoint_products(const std::vector<double>& mu_r, const std::vector<double>& mu_c,
                                      std::vector<double>& out_q, std::vector<double>& out_v,
                                      std::vector<double>& out_a, const std::vector<double>* jacobians) {
  const std::vector<double>& kept = jacobians ? *jacobians : kept_jacobians_;
  if (kept.size() != kept_jacobians_.size())
    throw std::logic_error("Assembler::kept_adjoint_products: the Jacobians are not of this assembler");
  import_products_mu(mu_r);
  {
    const auto mu = ghosted_mu_->getData(0);
    auto sum_q = ghosted_work_->getDataNonConst(0);
    auto sum_v = ghosted_work_->getDataNonConst(1);
    auto sum_a = ghosted_work_->getDataNonConst(2);
    std::size_t k = 0;
    // out_q += (dr/dq)^T mu, out_v += (dr/dv)^T mu, out_a += (dr/da)^T mu.
    for (const auto& c : forces_) {
      const int n = static_cast<int>(c.rows.size());
      const double* dr_dq = kept.data() + kept_offsets_[k++];
      const double *dr_dv = dr_dq + n * n, *dr_da = dr_dv + n * n;
      for (int i = 0; i < n; ++i) {
        const double mu_i = mu[c.state_entries[i]];
        for (int j = 0; j < n; ++j) {
          sum_q[c.state_entries[j]] += dr_dq[i * n + j] * mu_i;
          sum_v[c.state_entries[j]] += dr_dv[i * n + j] * mu_i;
          sum_a[c.state_entries[j]] += dr_da[i * n + j] * mu_i;
        }
      }
    }
    // out_q += H mu_r + C_q^T mu_c (H symmetric); non-holonomic: out_q += H^T mu_r + g_q^T mu_c, out_v += A^T mu_c.
    for (const auto& c : constraints_) {
      const int n = static_cast<int>(c.rows.size()), m = static_cast<int>(c.multiplier_rows.size());
      const double* Cq = kept.data() + kept_offsets_[k++];
      const double* H = Cq + m * n;
      if (model_.constraints()[c.index]->velocity_level()) {
        const double *g_q = Cq, *A = Cq + m * n, *H_velocity = A + m * n;
        for (int j = 0; j < n; ++j) {
          double product_q = 0.0, product_v = 0.0;
          for (int i = 0; i < n; ++i) product_q += H_velocity[i * n + j] * mu[c.state_entries[i]];
          if (!mu_c.empty())
            for (int e = 0; e < m; ++e) {
              product_q += g_q[e * n + j] * mu_c[c.first_multiplier + e];
              product_v += A[e * n + j] * mu_c[c.first_multiplier + e];
            }
          sum_q[c.state_entries[j]] += product_q;
          sum_v[c.state_entries[j]] += product_v;
        }
        continue;
      }
      for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int j = 0; j < n; ++j) sum += H[i * n + j] * mu[c.state_entries[j]];
        if (!mu_c.empty())
          for (int e = 0; e < m; ++e) sum += Cq[e * n + i] * mu_c[c.first_multiplier + e];
        sum_q[c.state_entries[i]] += sum;
      }
    }
  }
  export_products(out_q, out_v, out_a);
}

}  // namespace flexadj::assembly
