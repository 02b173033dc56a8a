// GradientProblem::hessian_vector (gradient_problem.hpp): H v by the second-order adjoint
// (adjoint/second_order_adjoint.hpp), the design scalars mapped onto parameters, initial values and control values
// as DesignSpace::gradient maps them back (the map is linear: the Hessian in the design scalars is a block of the
// Hessian in those).
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "flexadj/adjoint/second_order_adjoint.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/integrators/registry.hpp"

namespace flexadj {

// The direction of the design scalars v in the layout of an adjoint::Gradient.
adjoint::Gradient GradientProblem::direction_of(const std::vector<double>& v) const {
  const problem::DesignSpace& design = design_;
  const model::Model& model = *problem_.model;
  adjoint::Gradient e;
  e.parameters.assign(static_cast<std::size_t>(design.parameters().size()), 0.0);
  e.initial_coordinates.assign(model.initial_coordinates().size(), 0.0);
  e.initial_velocities.assign(model.initial_velocities().size(), 0.0);
  for (const auto& [name, signal] : model.controls()) e.controls[name].assign(signal->size(), 0.0);
  using Kind = problem::DesignSpace::Kind;
  for (const auto& entry : design.entries()) {
    const double* values = v.data() + entry.offset;
    switch (entry.kind) {
      case Kind::Parameter: e.parameters[entry.parameter] = values[0]; break;
      case Kind::InitialPosition: e.initial_coordinates[entry.coordinate] = values[0]; break;
      case Kind::InitialVelocity: e.initial_velocities[entry.coordinate] = values[0]; break;
      case Kind::Control:
        for (int k = 0; k < entry.size; ++k) e.controls.at(entry.control)[k] = values[k];
        break;
      case Kind::FinalTime: throw std::logic_error("hessian_vector: a free final time");
    }
  }
  return e;
}

// A checkpoint of the products holds a state and its tangent: under a memory limit half as many as the gradient's
// (storage::CheckpointedTrajectory needs one at least); else as many, and the gradient's schedule.
std::size_t GradientProblem::tangent_checkpoints() {
  if (adjoint_.storage != "checkpoints" || adjoint_.memory_limit <= 0.0) return 0;
  return std::max<std::size_t>(1, checkpoint_slots() / 2);
}

void GradientProblem::check_second_order() const {
  const std::string& file = problem_.model->source_file;
  const std::string what = "'flexadj " + command_ + "' needs the second-order adjoint, ";
  const integrators::IntegratorKind& kind = integrators::integrator_kind(problem_.integrator);
  if (!kind.can.second_order_adjoint)
    throw InputError(file, kind.joint_coordinates() ? "integrator.coordinates" : "integrator.type",
                     what + "which the " + kind.title + " (type " + kind.type +
                         (kind.joint_coordinates() ? ", coordinates " + kind.coordinates : std::string()) +
                         ") does not have yet; use type " +
                         integrators::types_with([](const auto& k) { return k.can.second_order_adjoint; }, "or") +
                         " with coordinates absolute");
  if (adjoint_.mode != "discrete")
    throw InputError(file, "--adjoint", what + "the derivative of the discrete adjoint (got --adjoint " +
                                            adjoint_.mode + ")");
  if (problem_.integrator.end_condition || problem_.integrator.fixed_steps > 0)
    throw InputError(file, problem_.integrator.end_condition ? "integrator.end_condition" : "design_variables",
                     what + "which does not treat an implicit or free final time yet");
}

HessianVectorEvaluation GradientProblem::hessian_vector(const std::vector<double>& v) {
  check_second_order();
  if (!recorded_) throw std::logic_error("GradientProblem::hessian_vector() without a complete forward run");
  if (v.size() != static_cast<std::size_t>(design_.size()))
    throw std::invalid_argument("GradientProblem::hessian_vector: " + std::to_string(v.size()) +
                                " values for " + std::to_string(design_.size()) + " design scalars");
  const auto start = std::chrono::steady_clock::now();
  const objectives::Objective objective(problem_.objective_terms);
  const adjoint::HessianVectorProduct result =
      adjoint::second_order_adjoint(*assembler_, *integrator_, *trajectory_, objective, design_.parameters(),
                                    direction_of(v), tangent_checkpoints());
  HessianVectorEvaluation e;
  e.objective = result.gradient.objective;
  e.gradient = design_.gradient(result.gradient);
  e.product = design_.gradient(result.product);
  comm_->barrier();
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return e;
}

}  // namespace flexadj
