#pragma once
// The last step of a run with an implicit final time (end_condition.hpp): the step from t_{N-1} that overshoots the
// condition is taken again with the size h_last in (0, h] at which H(t_{N-1} + h_last, y_N(h_last)) = 0, found by
// the Illinois variant of regula falsi on h_last (Dowell and Jarratt 1971), each try a forward step of the
// integrator from step N - 1. So y_N is the integrator's own step and the discrete adjoint differentiates it
// (docs/adjoint.md, "Implicit final time").
#include <vector>

#include "flexadj/integrators/end_condition.hpp"
#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {

// `previous` is the state at t and `restart` the integrator's restart data there (save_restart_data); `state` holds
// the overshooting step's result at t + h, where H is h_residual (previous_residual at t; the two have opposite
// signs). Returns h_last, with `state` the step's result at t + h_last: |H| at round-off, or the bracket of h_last
// narrowed to a few units of round-off of t + h. SolverError naming the condition if that fails. Collective.
double locate_end(const assembly::Assembler& assembler, TimeIntegrator& integrator, const EndCondition& condition,
                  const assembly::State& previous, const std::vector<double>& restart, double t, double h,
                  double previous_residual, double h_residual, assembly::State& state, long long step_index);

}  // namespace flexadj::integrators
