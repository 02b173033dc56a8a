#pragma once
// The tangent-linear states along a direction e (second_order_adjoint.hpp), served to the backward sweeps of the
// Hessian-vector and Gauss-Newton products in decreasing steps beside the forward states, whatever the forward
// trajectory's storage (storage/trajectory.hpp):
// - in memory or in an HDF5 file: the tangent sweep runs over the recorded states and records the tangents the same
//   way (in memory, or in a second HDF5 file beside the first, removed with this object);
// - checkpointed: the forward run is taken again with the tangent step after each step, and every checkpoint (memory
//   or disk) carries the tangent beside the state in its restart data, so that the backward sweep recomputes states
//   and tangents together on the gradient's schedule (the same slots and disk interval; each slot holds a state
//   and a tangent). Disk checkpoints go to the subfolder `tangents` of the gradient's folder.
// Every kind serves the same tangents bit for bit (the tangent step after a forward step factorizes afresh, and the
// next forward step does too).
#include <memory>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

class TangentTrajectory {
 public:
  virtual ~TangentTrajectory() = default;
  // The forward states for the backward sweep: the trajectory given, or the checkpoints of the run with tangents.
  virtual storage::Trajectory& states() = 0;
  // The tangent of step n; valid until the next call of states().step() or tangent(). Collective for HDF5.
  virtual const assembly::State& tangent(std::size_t n) = 0;
};

// The tangent-linear sweep along `direction` (the layout of a Gradient: parameters, initial_coordinates and
// initial_velocities in global numbering, controls) over `trajectory`, which holds every step of the last forward
// run of `integrator` (memory, HDF5 or checkpoints). `along` (made by make_local_gradient) becomes e in the sweep's
// layout: p_dot by component, u_dot by signal. `checkpoint_slots`: checkpoints of states and tangents (0: as many
// as the trajectory's checkpoints). Collective.
std::unique_ptr<TangentTrajectory> tangent_linear_sweep(assembly::Assembler& assembler,
                                                        integrators::TimeIntegrator& integrator,
                                                        storage::Trajectory& trajectory, const Gradient& direction,
                                                        assembly::LocalGradient& along,
                                                        std::size_t checkpoint_slots = 0);

}  // namespace flexadj::adjoint
