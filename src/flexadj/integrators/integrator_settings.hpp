#pragma once
// The `integrator` section of a model file (docs/model-format.md): which time discretisation, over which
// interval, with which step and Newton settings. Read by io/, given to make_time_integrator().
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace flexadj::integrators {

class EndCondition;  // end_condition.hpp

struct IntegratorSettings {
  std::string scheme = "generalized_alpha";  // generalized_alpha (Chung-Hulbert) | hht (alpha_m = 0) | variational
                                             // | state_space | hamiltonian
  // hamiltonian and variational only: joint coordinates instead of absolute ones (joint_hamiltonian.hpp: the
  // joint-space equations; null_space_variational.hpp: the null-space form with nodal reparametrization).
  bool joint_coordinates = false;
  // variational with joint coordinates: the midpoint rule in the joint coordinates themselves (coordinates:
  // joint_midpoint; joint_midpoint_variational.hpp) instead of the null-space form.
  bool joint_midpoint = false;
  double start_time = 0.0;
  double end_time = 1.0;
  double step_size = 1e-3;
  double spectral_radius = 0.9;  // rho_infinity of generalized-alpha; 1 = no numerical damping
  int max_newton_iterations = 25;
  double newton_tolerance = 1e-10;     // on the scaled residual and the relative increment
  std::string linear_solver = "auto";  // auto | direct | klu_gathered | iterative (linalg/linear_solver.hpp)
  // iterative, several ranks: interface_schur | schwarz (linalg/linear_solver.hpp), and the levels of overlap of
  // the Schwarz preconditioner (0: block Jacobi).
  std::string preconditioner = "interface_schur";
  int schwarz_overlap = 2;
  std::string partition = "blocks";    // blocks | graph: which rank owns which body (assembly/body_partition.hpp)
  // An implicit final time (end_condition.hpp): the run stops where the condition is met; end_time bounds it.
  std::shared_ptr<const EndCondition> end_condition;
  // A free final time (design variable integrator.end_time): this many steps of (end_time - start_time)/steps
  // whatever end_time is; 0: the count follows from step_size.
  long long fixed_steps = 0;
  // Error-controlled step sizes (generalized_alpha and hht; integrators/simulation.cpp): each step's local error
  // estimate (TimeIntegrator::local_error) at most 1 in the norm max_i e_i / (absolute_tolerance + tolerance |q|_inf);
  // step_size is the first step. tolerance 0: fixed steps.
  struct StepControl {
    double tolerance = 0.0;
    double absolute_tolerance = 0.0;  // 0: tolerance
    double min_step = 0.0;            // a step below this fails the run (exit 3); 0: 1e-12 (end_time - start_time)
    double max_step = 0.0;            // 0: end_time - start_time
    bool enabled() const { return tolerance > 0.0; }
  } step_control;
  // The step times t_0 .. t_N of an earlier run, taken again instead of step_size or step_control: a run with step
  // control whose steps are held fixed (the differences of `flexadj check` differentiate the same discrete J as its
  // discrete adjoint, which holds the chosen steps fixed; docs/adjoint.md, "Error-controlled steps").
  std::shared_ptr<const std::vector<double>> replayed_times;
  bool adaptive() const { return step_control.enabled() && !replayed_times; }
  // Steps from start_time to end_time; the last one ends at or up to a step past end_time. With step control an
  // estimate from the first step (for progress lines and reservations only).
  long long step_count() const {
    if (replayed_times) return static_cast<long long>(replayed_times->size()) - 1;
    return fixed_steps > 0 ? fixed_steps : std::llround(std::ceil((end_time - start_time) / step_size - 1e-9));
  }
};

// flexadj static: Newton with load stepping (applied loads scaled by k/load_steps, k = 1..load_steps).
struct StaticSettings {
  int load_steps = 10;
  int max_newton_iterations = 50;
  double newton_tolerance = 1e-10;  // on the increment relative to 1 + |q|_inf and the constraint residual
  double time = 0.0;                // time at which the loads are evaluated
};

}  // namespace flexadj::integrators
