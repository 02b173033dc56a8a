#include "flexadj/adjoint/initial_state_gradient.hpp"

#include "flexadj/core/error.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::adjoint {

double trapezoidal_weight(const std::vector<double>& times, std::size_t step) {
  const std::size_t last = times.size() - 1;
  const double after = step < last ? times[step + 1] - times[step] : 0.0;
  const double before = step > 0 ? times[step] - times[step - 1] : 0.0;
  return 0.5 * (after + before);
}

std::size_t forward_grid_last_step(const model::Model& model, const integrators::TimeIntegrator& integrator,
                                   const std::vector<double>& times, const std::string& key,
                                   const std::string& adjoint) {
  if (integrator.settings().end_condition || integrator.settings().fixed_steps > 0)
    throw InputError(model.source_file, key,
                     adjoint + " does not differentiate an implicit or free final time (the discrete adjoint does)");
  if (times.size() < 2) throw InputError(model.source_file, "integrator", "the continuous adjoint needs at least one step");
  return times.size() - 1;
}

Gradient initial_state_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                const assembly::State& initial, const objectives::Objective& objective,
                                const std::vector<double>& times, const std::vector<double>& objective_parts,
                                assembly::LocalGradient& local, std::vector<double>& dJ_dq,
                                std::vector<double>& dJ_dv) {
  const assembly::ScopedTransposedAssembly transposed(assembler);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler.assemble(initial, times[0], assembly::ConstraintLevel::Acceleration, 1.0, &mass_only);
  auto solver = linalg::make_linear_solver(assembler.matrix(), integrator.solver_options());
  integrator.add_initial_projection_adjoint(*solver, initial, times[0], dJ_dq, dJ_dv, local);
  const double objective_value = objective.total(assembler, times, objective_parts);
  return reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
}

}  // namespace flexadj::adjoint
