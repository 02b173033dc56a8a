#pragma once
// The continuous adjoint of Nachbagauer et al. 2015 (sec. 3): the adjoint DAE of the index-3 equations of
// motion, eqs. (24)-(26), integrated backwards with BDF-k on a constant step, eqs. (46), (49)-(51), from the
// consistent terminal conditions, eqs. (37)-(39), and the gradient integral of eq. (52) by the trapezoidal
// rule. The step is the forward grid's if that is constant, else the adjoint's own (the forward states
// interpolated, forward_interpolation.hpp). An implicit final time adds the terminal terms of Bestle and
// Eberhard 1992, eqs. (43)-(51); a free final time gets dJ/dt1 = F + dS/dt at t1. It approximates the gradient
// of the continuous objective to the integration error (docs/adjoint.md, "The continuous adjoint"); the discrete
// adjoint gives the exact gradient of the discrete one.
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/objectives/objective.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

struct ContinuousAdjointOptions {
  int bdf_order = 2;  // k of BDF-k, 1..4; the first steps use orders 1, 2, ... up to k
  // The adjoint's own constant steps over [t_0, t_N], the forward states interpolated at its times; 0: the
  // forward grid if its steps are constant, else as many steps as the forward run took.
  long long adjoint_steps = 0;
};

// The trajectory must hold every step of the forward run of `integrator` (generalized-alpha or HHT: the
// projection of the initial state and the solver kind are taken from it; memory, HDF5 written with every = 1, or
// checkpoints); it is read once, backwards. InputError if bdf_order is outside 1..4 or adjoint_steps < 0.
Gradient continuous_adjoint_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                     storage::Trajectory& trajectory, const objectives::Objective& objective,
                                     const model::ParameterSpace& parameters, const ContinuousAdjointOptions& options = {});

}  // namespace flexadj::adjoint
