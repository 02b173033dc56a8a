#pragma once
// The two ends the continuous adjoints on the forward grid share (state_space_continuous_adjoint.cpp,
// joint_space_continuous_adjoint.cpp): the trapezoidal weights of the gradient integral, and the last step from
// dJ/d(q0, v0) of the consistent initial state to the gradient.
#include <string>
#include <vector>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::adjoint {

// Half the sizes of the steps before and after step `step` of `times`: its weight in the trapezoidal rule.
double trapezoidal_weight(const std::vector<double>& times, std::size_t step);

// The last step of a run that an adjoint on the forward grid can take: InputError (naming `key`, and the adjoint as
// `adjoint`) for an implicit or free final time, or a run without steps.
std::size_t forward_grid_last_step(const model::Model& model, const integrators::TimeIntegrator& integrator,
                                   const std::vector<double>& times, const std::string& key,
                                   const std::string& adjoint);

// dJ_dq, dJ_dv (with respect to the consistent initial state `initial`) through the adjoint of the integrator's
// projection of the given initial state, then reduce_gradient with J = objective.total(objective_parts).
// Collective.
Gradient initial_state_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                const assembly::State& initial, const objectives::Objective& objective,
                                const std::vector<double>& times, const std::vector<double>& objective_parts,
                                assembly::LocalGradient& local, std::vector<double>& dJ_dq,
                                std::vector<double>& dJ_dv);

}  // namespace flexadj::adjoint
