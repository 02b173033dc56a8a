#include "flexadj/adjoint/gradient.hpp"

#include <Teuchos_CommHelpers.hpp>

namespace flexadj::adjoint {
namespace {

// Sum over ranks of a vector in global numbering filled from owned entries.
std::vector<double> to_global(const std::vector<double>& owned, const std::vector<long long>& ids, long long size,
                              const Comm& comm) {
  std::vector<double> local(size, 0.0), global(size, 0.0);
  for (std::size_t i = 0; i < ids.size(); ++i) local[ids[i]] = owned[i];
  Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(size), local.data(), global.data());
  return global;
}

}  // namespace

assembly::LocalGradient make_local_gradient(const model::Model& model, const model::ParameterSpace& space) {
  return assembly::LocalGradient(model, space.gradient_force_offsets(), space.gradient_constraint_offsets(),
                                 space.gradient_force_masks(), space.gradient_constraint_masks(),
                                 static_cast<std::size_t>(space.size()));
}

Gradient reduce_gradient(const assembly::Assembler& assembler, const objectives::Objective& objective,
                         const std::vector<double>& times, double objective_value,
                         const assembly::LocalGradient& local, const std::vector<double>& dJ_dq,
                         const std::vector<double>& dJ_dv) {
  const Comm& comm = *assembler.comm();
  const auto& dofs = assembler.dofs();
  Gradient gradient;
  gradient.objective = objective_value;
  gradient.parameters.assign(local.parameters.size(), 0.0);
  if (!local.parameters.empty())
    Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(local.parameters.size()), local.parameters.data(),
                       gradient.parameters.data());
  for (const auto& [name, values] : local.controls) {
    auto& total = gradient.controls[name];
    total.assign(values.size(), 0.0);
    if (!values.empty())
      Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, static_cast<int>(values.size()), values.data(), total.data());
  }
  objective.add_control_gradient(assembler.model(), times, gradient.controls);
  gradient.initial_coordinates = to_global(dJ_dq, dofs.owned_coordinates(), dofs.coordinate_count(), comm);
  gradient.initial_velocities = to_global(dJ_dv, dofs.owned_coordinates(), dofs.coordinate_count(), comm);
  return gradient;
}

}  // namespace flexadj::adjoint
