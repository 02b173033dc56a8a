#pragma once
// The continuous adjoint of Nachbagauer et al. 2015 (sec. 3): the adjoint DAE of the index-3 equations of
// motion, eqs. (24)-(26), integrated backwards with BDF-k on the forward grid, eqs. (46), (49)-(51), from the
// consistent terminal conditions, eqs. (37)-(39), and the gradient integral of eq. (52) by the trapezoidal
// rule. It approximates the gradient of the continuous objective to the integration error (docs/adjoint.md,
// "The continuous adjoint"); the discrete adjoint gives the exact gradient of the discrete one.
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/objectives/objective.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

struct ContinuousAdjointOptions {
  int bdf_order = 2;  // k of BDF-k, 1..4; the first steps use orders 1, 2, ... up to k
};

// The trajectory must hold every step of the forward run of `integrator` (generalized-alpha or HHT: the
// projection of the initial state and the solver kind are taken from it) on a constant step (memory, or HDF5
// written with every = 1). InputError if the steps are not constant or bdf_order is outside 1..4.
Gradient continuous_adjoint_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                     storage::Trajectory& trajectory, const objectives::Objective& objective,
                                     const model::ParameterSpace& parameters, const ContinuousAdjointOptions& options = {});

}  // namespace flexadj::adjoint
