// The Assembler's batches of force elements (assembler.hpp, ForceGroup; model/force_batch.hpp): consecutive
// elements that share a batch kernel grouped once, their local states gathered lane by lane, and each lane's
// entries added in the elements' order, so that the sums are those of the element-by-element loop.
#include <algorithm>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/model/force_batch.hpp"

namespace flexadj::assembly {

void Assembler::group_force_elements() {
  constexpr int L = model::kBatchLanes;
  const auto& elements = model_.force_elements();
  std::size_t largest = 0;
  for (std::size_t k = 0; k < forces_.size();) {
    const model::ForceElement& element = *elements[forces_[k].index];
    const auto* kernel = dynamic_cast<const model::BatchedForceElement*>(&element);
    ForceGroup group{static_cast<int>(k), 1, nullptr};
    if (kernel != nullptr && kernel->batches_with(element)) {
      while (group.count < L && k + group.count < forces_.size() &&
             kernel->batches_with(*elements[forces_[k + group.count].index]))
        ++group.count;
      // A batch of one costs more than the element's own path.
      if (group.count > 1) {
        group.kernel = kernel;
        largest = std::max<std::size_t>(largest, forces_[k].rows.size());
      }
    }
    force_groups_.push_back(group);
    k += group.count;
  }
  for (auto* work : {&batch_q_, &batch_v_, &batch_a_, &batch_r_}) work->resize(largest * L);
  batch_jacobian_.resize(3 * largest * largest * L);  // the adjoint's three Jacobians
  batch_elements_.resize(L);
}

model::ForceBatch Assembler::load_batch(const ForceGroup& group, const GhostedViews& views, double t) {
  constexpr int L = model::kBatchLanes;
  const LocalComponent* components = forces_.data() + group.first;
  const int n = static_cast<int>(components[0].rows.size());
  for (int l = 0; l < L; ++l) {
    const LocalComponent& c = components[std::min(l, group.count - 1)];
    batch_elements_[l] = model_.force_elements()[c.index].get();
    for (int i = 0; i < n; ++i) {
      batch_q_[i * L + l] = views.q[c.state_entries[i]];
      batch_v_[i * L + l] = views.v[c.state_entries[i]];
      batch_a_[i * L + l] = views.a[c.state_entries[i]];
    }
  }
  return {batch_elements_.data(), group.count, batch_q_.data(), batch_v_.data(), batch_a_.data(), t};
}

void Assembler::add_force_batch(const ForceGroup& group, double t, double scale,
                                const model::JacobianCoefficients& coefficients, const GhostedViews& views,
                                double* residual, double* values) {
  constexpr int L = model::kBatchLanes;
  const LocalComponent* components = forces_.data() + group.first;
  const int n = static_cast<int>(components[0].rows.size());
  group.kernel->batch_residual_jacobian(load_batch(group, views, t), coefficients, batch_r_.data(),
                                        batch_jacobian_.data());
  // Lane by lane, in the elements' order: the sums of the element-by-element assembly.
  const double* jacobian = batch_jacobian_.data();
  for (int l = 0; l < group.count; ++l) {
    const LocalComponent& c = components[l];
    const double element_scale = batch_elements_[l]->applied_load() ? scale * load_factor_ : scale;
    add_runs(values, c.value_runs, n, transposed_, [&](int e) { return element_scale * jacobian[e * L + l]; });
    for (int i = 0; i < n; ++i) residual[c.rows[i]] += element_scale * batch_r_[i * L + l];
  }
}

}  // namespace flexadj::assembly
