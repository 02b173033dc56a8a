#pragma once
// Pieces shared by the discrete and the continuous adjoint: the adjoint of the projection of the given
// initial state onto the constraints (GeneralizedAlpha::initialize; docs/adjoint.md, "The initial state"),
// and the reduction of the rank-local sums into a Gradient.
#include <map>
#include <string>
#include <vector>

#include "flexadj/adjoint/parameter_space.hpp"
#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "flexadj/objectives/objective.hpp"

namespace flexadj::adjoint {

struct Gradient {
  double objective = 0.0;
  std::vector<double> parameters;           // dJ/dp in ParameterSpace order
  std::vector<double> initial_coordinates;  // dJ/d(given q(t_0)), global numbering
  std::vector<double> initial_velocities;   // dJ/d(given v(t_0)), global numbering
  std::map<std::string, std::vector<double>> controls;  // dJ/du_k for every value u_k of each control signal
};

// Rank-local sums of a backward sweep.
struct LocalGradient {
  std::vector<double> parameters;
  std::map<std::string, std::vector<double>> controls;
  LocalGradient(const model::Model& model, const ParameterSpace& space);
};

// On entry dJ_dq, dJ_dv are the derivatives with respect to the consistent initial state (q_0, v_0) on the
// owned coordinates; on exit those with respect to the given (q, v) of the model. The projections' parameter
// terms go into `local`. `solver` must be a transposed solver of assembler.matrix(). Collective.
void add_initial_projection_adjoint(assembly::Assembler& assembler, const integrators::InitialProjection& projection,
                                    linalg::LinearSolver& solver, const assembly::State& initial_state, double t0,
                                    const ParameterSpace& parameters, std::vector<double>& dJ_dq,
                                    std::vector<double>& dJ_dv, LocalGradient& local);

// Sums `local` over the ranks, gathers the initial-state derivatives into global numbering, and adds the
// control-effort terms of the objective. Collective.
Gradient reduce_gradient(const assembly::Assembler& assembler, const objectives::Objective& objective,
                         const std::vector<double>& times, double objective_value, const LocalGradient& local,
                         const std::vector<double>& dJ_dq, const std::vector<double>& dJ_dv);

}  // namespace flexadj::adjoint
