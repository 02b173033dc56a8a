// The element loops of the variational integrator's second-order adjoint (variational_second_order.cpp;
// docs/adjoint.md, "Second-order adjoint of the variational integrator"): the discrete momenta along a direction e,
// and the derivative along e of their transposed products and parameter terms with the multipliers held
// (ForceElement::discrete_momenta_tangent, add_discrete_momenta_second_order_products: nested Sacado forward AD),
// in the layout of variational_assembly.cpp.
#include "flexadj/integrators/variational_assembly.hpp"

#include "flexadj/functions/control_signal.hpp"

namespace flexadj::integrators {

void VariationalAssembly::import_tangents(const std::vector<double>& first_dot, const std::vector<double>& second_dot) {
  {
    auto first = owned_tangents_->getDataNonConst(0), second = owned_tangents_->getDataNonConst(1);
    for (std::size_t i = 0; i < first_dot.size(); ++i) {
      first[i] = first_dot[i];
      second[i] = second_dot[i];
    }
  }
  assembler_.coordinate_transfer_->to_ghosted(*owned_tangents_, *ghosted_tangents_);
}

template <class Visit>
void VariationalAssembly::visit_along(const std::vector<double>& first, const std::vector<double>& second,
                                      const std::vector<double>& first_dot, const std::vector<double>& second_dot,
                                      double h, const assembly::LocalGradient& direction, const Visit& visit) {
  assembly::Assembler& a = assembler_;
  a.import_columns(first.data(), second.data(), nullptr);
  import_tangents(first_dot, second_dot);
  const auto first_column = ghosted_tangents_->getData(0), second_column = ghosted_tangents_->getData(1);
  const assembly::Assembler::GhostedViews views = a.ghosted_views();
  for (const auto& c : a.forces_) {
    const auto& element = *a.model_.force_elements()[c.index];
    a.load(c, views);
    const int n = static_cast<int>(c.rows.size());
    // h > 0: the midpoint of the step (first, second) = (q_n, q_{n+1}); h = 0: the state (q, v) = (first, second).
    for (int i = 0; i < n; ++i) {
      const double first_dot_i = first_column[c.state_entries[i]], second_dot_i = second_column[c.state_entries[i]];
      q_mid_[i] = h > 0.0 ? 0.5 * (a.q_[i] + a.v_[i]) : a.q_[i];
      v_mid_[i] = h > 0.0 ? (a.v_[i] - a.q_[i]) / h : a.v_[i];
      q_mid_dot_[i] = h > 0.0 ? 0.5 * (first_dot_i + second_dot_i) : first_dot_i;
      v_mid_dot_[i] = h > 0.0 ? (second_dot_i - first_dot_i) / h : second_dot_i;
    }
    const int offset = direction.force_offsets[c.index];
    const int parameter_count = static_cast<int>(element.parameters().size());
    for (int k = 0; k < parameter_count; ++k) p_dot_[k] = offset >= 0 ? direction.parameters[offset + k] : 0.0;
    visit(c, element);
  }
}

void VariationalAssembly::discrete_momenta_tangent(const std::vector<double>& first, const std::vector<double>& second,
                                                   const std::vector<double>& first_dot,
                                                   const std::vector<double>& second_dot, double t, double h,
                                                   const assembly::LocalGradient& direction,
                                                   std::vector<double>& minus_dot, std::vector<double>& plus_dot) {
  assembly::Assembler& a = assembler_;
  const double t_element = h > 0.0 ? t + 0.5 * h : t;
  a.ghosted_work_->putScalar(0.0);
  {
    auto minus_sum = a.ghosted_work_->getDataNonConst(0), plus_sum = a.ghosted_work_->getDataNonConst(1);
    visit_along(first, second, first_dot, second_dot, h, direction,
                [&](const assembly::Assembler::LocalComponent& c, const model::ForceElement& element) {
                  element.discrete_momenta_tangent(q_mid_.data(), v_mid_.data(), t_element, h, q_mid_dot_.data(),
                                                   v_mid_dot_.data(), p_dot_.data(),
                                                   a.control_tangent(element, direction, t_element), minus_.data(),
                                                   plus_.data());
                  for (std::size_t i = 0; i < c.state_entries.size(); ++i) {
                    minus_sum[c.state_entries[i]] += minus_[i];
                    plus_sum[c.state_entries[i]] += plus_[i];
                  }
                });
  }
  export_two_work_columns(minus_dot, plus_dot, false);
}

void VariationalAssembly::add_discrete_momenta_second_order_products(
    const std::vector<double>& first, const std::vector<double>& second, const std::vector<double>& first_dot,
    const std::vector<double>& second_dot, double t, double h, const assembly::LocalGradient& direction,
    const std::vector<double>& mu_minus, const std::vector<double>& mu_plus, std::vector<double>& out_first,
    std::vector<double>& out_second, assembly::LocalGradient& gradient) {
  assembly::Assembler& a = assembler_;
  const double t_element = h > 0.0 ? t + 0.5 * h : t;
  import_multipliers(mu_minus, mu_plus);
  const auto ghosted_minus = ghosted_momentum_mu_->getData(0), ghosted_plus = ghosted_momentum_mu_->getData(1);
  a.ghosted_work_->putScalar(0.0);
  {
    auto sum_first = a.ghosted_work_->getDataNonConst(0), sum_second = a.ghosted_work_->getDataNonConst(1);
    visit_along(
        first, second, first_dot, second_dot, h, direction,
        [&](const assembly::Assembler::LocalComponent& c, const model::ForceElement& element) {
          const int n = static_cast<int>(c.rows.size());
          for (int i = 0; i < n; ++i) {
            a.mu_local_[i] = ghosted_minus[c.state_entries[i]];
            mu_plus_local_[i] = ghosted_plus[c.state_entries[i]];
            a.out_q_local_[i] = a.out_v_local_[i] = 0.0;
          }
          // A component without wanted parameters adds into a scratch row (its mask is empty: nothing is added).
          const int offset = gradient.force_offsets[c.index];
          double* parameters = offset >= 0 ? gradient.parameters.data() + offset : parameter_scratch_.data();
          const double du = element.add_discrete_momenta_second_order_products(
              q_mid_.data(), v_mid_.data(), t_element, h, q_mid_dot_.data(), v_mid_dot_.data(), p_dot_.data(),
              a.control_tangent(element, direction, t_element), a.mu_local_.data(), mu_plus_local_.data(),
              a.out_q_local_.data(), a.out_v_local_.data(), parameters, offset >= 0 ? gradient.force_masks[c.index] : 0u);
          // d/dq_n = 1/2 d/dq_mid - 1/h d/dv_mid, d/dq_{n+1} = 1/2 d/dq_mid + 1/h d/dv_mid (h = 0: d/dq, d/dv).
          for (int i = 0; i < n; ++i) {
            const double dq = a.out_q_local_[i], dv = a.out_v_local_[i];
            sum_first[c.state_entries[i]] += h > 0.0 ? 0.5 * dq - dv / h : dq;
            sum_second[c.state_entries[i]] += h > 0.0 ? 0.5 * dq + dv / h : dv;
          }
          const functions::ControlSignal* signal = element.control();
          if (!signal || h <= 0.0) return;
          const auto w = signal->weights(t_element);
          auto& values = gradient.controls.at(signal->name());
          values[w.k0] += w.w0 * du;
          values[w.k1] += w.w1 * du;
        });
  }
  export_two_work_columns(out_first, out_second, true);
}

void VariationalAssembly::export_two_work_columns(std::vector<double>& first, std::vector<double>& second, bool add) {
  assembly::Assembler& a = assembler_;
  a.coordinate_transfer_->to_owned(*a.ghosted_work_, *a.owned_work_);
  const auto first_sum = a.owned_work_->getData(0), second_sum = a.owned_work_->getData(1);
  for (std::size_t i = 0; i < first.size(); ++i) {
    first[i] = (add ? first[i] : 0.0) + first_sum[i];
    second[i] = (add ? second[i] : 0.0) + second_sum[i];
  }
}

}  // namespace flexadj::integrators
