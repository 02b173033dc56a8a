#pragma once
// The result of an adjoint sweep and the reduction of the rank-local sums into it, shared by the discrete and the
// continuous adjoint.
#include <map>
#include <string>
#include <vector>

#include "flexadj/model/parameter_space.hpp"
#include "flexadj/assembly/assembler.hpp"
#include "flexadj/objectives/objective.hpp"

namespace flexadj::adjoint {

struct Gradient {
  double objective = 0.0;
  std::vector<double> parameters;           // dJ/dp in model::ParameterSpace order
  std::vector<double> initial_coordinates;  // dJ/d(given q(t_0)), global numbering
  std::vector<double> initial_velocities;   // dJ/d(given v(t_0)), global numbering
  std::map<std::string, std::vector<double>> controls;  // dJ/du_k for every value u_k of each control signal
  double final_time = 0.0;  // dJ/d(end_time) of a free final time (IntegratorSettings::fixed_steps > 0), else 0
};

// Zero rank-local sums for the parameters of `space` (only the wanted components evaluated) and every control.
assembly::LocalGradient make_local_gradient(const model::Model& model, const model::ParameterSpace& space);

// Sums `local` over the ranks, gathers the initial-state derivatives into global numbering, and adds the
// control-effort terms of the objective. Collective.
Gradient reduce_gradient(const assembly::Assembler& assembler, const objectives::Objective& objective,
                         const std::vector<double>& times, double objective_value,
                         const assembly::LocalGradient& local, const std::vector<double>& dJ_dq,
                         const std::vector<double>& dJ_dv);

}  // namespace flexadj::adjoint
