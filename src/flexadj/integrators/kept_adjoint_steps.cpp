#include "flexadj/integrators/kept_adjoint_steps.hpp"

#include <Teuchos_CommHelpers.hpp>

namespace flexadj::integrators {

void KeptAdjointSteps::begin(const storage::Trajectory* trajectory, std::size_t byte_budget, RCP<const Comm> comm) {
  transient_ = {};
  steps_.clear();
  statistics_ = {};
  trajectory_ = trajectory;
  budget_ = byte_budget;
  comm_ = std::move(comm);
  full_ = budget_ == 0;
}

KeptAdjointStep* KeptAdjointSteps::find(const storage::Trajectory& trajectory, std::size_t n) {
  if (&trajectory != trajectory_) return nullptr;
  const auto found = steps_.find(n);
  if (found == steps_.end()) return nullptr;
  ++statistics_.reused;
  return &found->second;
}

bool KeptAdjointSteps::wants(const storage::Trajectory& trajectory, std::size_t n) const {
  return &trajectory == trajectory_ && !full_ && statistics_.refusal.empty() && steps_.count(n) == 0;
}

KeptAdjointStep* KeptAdjointSteps::keep(std::size_t n, KeptAdjointStep step) {
  const double local = static_cast<double>(statistics_.bytes + step.bytes());
  double largest = local;
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MAX, local, Teuchos::outArg(largest));
  if (largest > static_cast<double>(budget_)) {
    full_ = true;
    transient_ = std::move(step);
    return &transient_;
  }
  statistics_.bytes += step.bytes();
  ++statistics_.kept;
  return &(steps_[n] = std::move(step));
}

void KeptAdjointSteps::refuse(const std::string& reason) {
  if (statistics_.refusal.empty()) statistics_.refusal = reason;
}

}  // namespace flexadj::integrators
