#pragma once
// The integrator kinds flexadj has, each with its name in the model file (integrator.type and .coordinates), its
// factory and what it can do. The model reader, the gradient problem and `--help` ask this registry; nothing else
// compares integrator names. Adding an integrator is its file pair and one line in registry.cpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flexadj/integrators/integrator_settings.hpp"
#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {

// Which continuous adjoint (`--adjoint continuous`) a kind has.
enum class ContinuousAdjoint {
  None,           // none (the variational integrators: use the discrete adjoint)
  Dae,            // the adjoint DAE of Nachbagauer et al. 2015 by BDF, on its own steps if asked (adjoint/continuous_adjoint.hpp)
  StateSpaceOde,  // the adjoint ODE of Held and Seifried's QR state-space form (adjoint/state_space_continuous_adjoint.hpp)
  JointSpaceOde,  // the joint-coordinate adjoint ODE of Maciag et al. 2022 (adjoint/joint_space_continuous_adjoint.hpp)
};

struct IntegratorCapabilities {
  // Adjoints: the discrete adjoint always, the spacetime adjoint (all steps as one system) always.
  ContinuousAdjoint continuous_adjoint = ContinuousAdjoint::None;
  // Beside it, the redundant-coordinate adjoint of the constrained Hamiltonian equations of Maciag et al. 2022
  // (`--continuous-form hamiltonian`; adjoint/hamiltonian_continuous_adjoint.hpp).
  bool hamiltonian_continuous_adjoint = false;
  // Trajectory storages for the backward sweep: memory, hdf5 and checkpoints for every kind.
  bool multiple_ranks = true;       // runs distributed over MPI ranks (else one rank: the joint-coordinate forms)
  bool final_time = true;           // an implicit or free final time differentiated by the discrete adjoint
  bool non_holonomic = false;       // velocity-level constraints (knife_edge)
  bool error_controlled_steps = false;  // integrator.step_control (a local error estimate)
  // The second-order adjoint (TimeIntegrator::tangent_step, second_order_adjoint_step): Hessian-vector products of
  // J (`flexadj hessian`; GradientProblem::check_second_order says what it covers so far).
  bool second_order_adjoint = false;
  bool trapezoidal_lagrangians = false;  // elements with their own trapezoidal discrete Lagrangian (dual-quaternion beam)
  // integrator.spectral_radius: the smallest allowed (up to 1); why a kind without numerical damping has none.
  bool spectral_radius = false;
  double min_spectral_radius = 0.0;
  std::string no_spectral_radius_reason;
};

using IntegratorFactory = std::function<std::unique_ptr<TimeIntegrator>(
    assembly::Assembler&, const IntegratorSettings&, const linalg::LinearSolverOptions&)>;

struct IntegratorKind {
  std::string type;         // integrator.type
  std::string coordinates;  // integrator.coordinates: absolute | joint | joint_midpoint
  std::string title;        // for reports, e.g. "midpoint variational integrator (RATTLE)"
  IntegratorFactory make;
  IntegratorCapabilities can;

  bool joint_coordinates() const { return coordinates != "absolute"; }
  // The kind's continuous adjoint takes the steps of the forward run only (no --adjoint-steps), and differentiates
  // no implicit or free final time.
  bool continuous_adjoint_on_forward_grid() const {
    return can.continuous_adjoint == ContinuousAdjoint::StateSpaceOde ||
           can.continuous_adjoint == ContinuousAdjoint::JointSpaceOde;
  }
};

// All kinds, in the order of the model-format documentation.
const std::vector<IntegratorKind>& integrator_kinds();
// The values of integrator.type and integrator.coordinates, each once, in registry order.
std::vector<std::string> integrator_types();
std::vector<std::string> integrator_coordinates();
// The kind of a type and coordinates; nullptr if there is none.
const IntegratorKind* find_integrator_kind(const std::string& type, const std::string& coordinates);
// Some kind of this type takes joint coordinates.
bool takes_joint_coordinates(const std::string& type);
// The coordinates value of settings (absolute, joint or joint_midpoint), and the settings of one.
std::string coordinates_of(const IntegratorSettings& settings);
void set_coordinates(IntegratorSettings& settings, const std::string& coordinates);
// The kind of the settings; std::invalid_argument if there is none (the reader refuses such settings).
const IntegratorKind& integrator_kind(const IntegratorSettings& settings);
// The types of which some kind has `capability`, in alphabetical order, e.g. "generalized_alpha or hht" (for
// messages).
std::string types_with(const std::function<bool(const IntegratorKind&)>& capability, const std::string& conjunction);

}  // namespace flexadj::integrators
