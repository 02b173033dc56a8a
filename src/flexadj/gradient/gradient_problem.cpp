#include "flexadj/gradient/gradient_problem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "flexadj/adjoint/continuous_adjoint.hpp"
#include "flexadj/adjoint/discrete_adjoint.hpp"
#include "flexadj/adjoint/spacetime_system.hpp"
#include "flexadj/adjoint/joint_space_continuous_adjoint.hpp"
#include "flexadj/adjoint/state_space_continuous_adjoint.hpp"
#include "flexadj/adjoint/sweep_checkpoints.hpp"
#include "flexadj/core/checksum.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/file_names.hpp"
#include "flexadj/integrators/registry.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/storage/folder_lock.hpp"
#include "flexadj/storage/trajectory.hpp"
#include "flexadj/objectives/objective_formula.hpp"

namespace flexadj {
namespace {

// The model, once it is known to define a gradient problem the adjoint can solve.
problem::Problem checked(problem::Problem problem, const std::string& command) {
  if (problem.objective_terms.empty())
    throw InputError(problem.model->source_file, "objective",
                     "missing; 'flexadj " + command +
                         "' needs an objective: a list of terms such as {type: final_value, coordinate: mass.x} "
                         "(docs/model-format.md, section objective)");
  return problem;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The first term of the objective or of the constraints on an acceleration, as "objective[2]" or "constraints[0]";
// empty if there is none.
std::string acceleration_term(const problem::Problem& problem) {
  for (std::size_t i = 0; i < problem.objective_terms.size(); ++i)
    if (problem.objective_terms[i].on_acceleration()) return "objective[" + std::to_string(i) + "]";
  for (const auto& constraint : problem.constraints)
    if (constraint.measured.on_acceleration()) return constraint.key;
  return {};
}

}  // namespace

std::string GradientProblem::acceleration_term() const { return flexadj::acceleration_term(problem_); }

GradientProblem::GradientProblem(problem::Problem problem, RCP<const Comm> comm, const std::string& command)
    : problem_(checked(std::move(problem), command)),
      comm_(std::move(comm)),
      command_(command),
      design_(problem::DesignSpace::of(problem_)) {
  if (!problem_.constraints.empty())
    constraints_ = std::make_unique<objectives::ConstraintSet>(problem_.constraints, problem_.integrator.step_count());
  set_adjoint(AdjointSettings{});
}

void GradientProblem::set_adjoint(const AdjointSettings& given) {
  // What the command line leaves open comes from the model file's trajectory section.
  AdjointSettings settings = given;
  const problem::TrajectorySettings& file = problem_.trajectory;
  if (settings.storage.empty()) settings.storage = file.storage;
  if (settings.trajectory_path.empty()) settings.trajectory_path = file.file;
  if (settings.checkpoints == 0 && settings.memory_limit == 0.0) {
    settings.checkpoints = file.checkpoints;
    settings.memory_limit = file.memory_limit;
  }
  if (settings.disk_checkpoints == 0) settings.disk_checkpoints = file.disk_checkpoints;
  if (settings.folder.empty()) settings.folder = file.folder;
  if (settings.mode != "discrete" && settings.mode != "continuous" && settings.mode != "spacetime")
    throw InputError("", "--adjoint", "expected discrete, continuous or spacetime, got '" + settings.mode + "'");
  const auto& solvers = adjoint::spacetime_solvers();
  if (std::find(solvers.begin(), solvers.end(), settings.spacetime_solver) == solvers.end()) {
    std::string accepted;
    for (std::size_t k = 0; k < solvers.size(); ++k)
      accepted += (k == 0 ? "" : k + 1 == solvers.size() ? " or " : ", ") + solvers[k];
    throw InputError("", "--spacetime-solver", "expected " + accepted + ", got '" + settings.spacetime_solver + "'");
  }
  // A relative residual of 1 or more is met before the first iteration: the gradient would be the initial guess's.
  if (!(settings.spacetime_tolerance > 0.0 && settings.spacetime_tolerance < 1.0)) {
    std::ostringstream given;
    given << settings.spacetime_tolerance;
    throw InputError("", "--spacetime-tolerance",
                     "expected a relative residual in (0, 1), such as 1e-10 (the default), got " + given.str());
  }
  if (!settings.spacetime_option.empty() && settings.mode != "spacetime")
    throw InputError("", settings.spacetime_option,
                     "is an option of the spacetime adjoint (--adjoint spacetime); this run's adjoint is " +
                         settings.mode + ", which would ignore it");
  if (settings.mode == "spacetime" && settings.restart)
    throw InputError("", "--restart", "the spacetime adjoint writes no restart files; use --adjoint discrete");
  if (settings.bdf_order < 1 || settings.bdf_order > 4)
    throw InputError("", "--bdf-order", "expected an integer from 1 to 4, got " + std::to_string(settings.bdf_order));
  if (settings.adjoint_steps < 0)
    throw InputError("", "--adjoint-steps", "expected a positive step count, got " +
                                                std::to_string(settings.adjoint_steps));
  const integrators::IntegratorKind& kind = integrators::integrator_kind(problem_.integrator);
  using integrators::ContinuousAdjoint;
  if (settings.adjoint_steps > 0 && (settings.mode != "continuous" || kind.continuous_adjoint_on_forward_grid()))
    throw InputError("", "--adjoint-steps",
                     "the adjoint's own steps are the continuous adjoint's (--adjoint continuous, not with "
                     "integrator type state_space or joint coordinates)");
  if (settings.storage != "memory" && settings.storage != "hdf5" && settings.storage != "checkpoints")
    throw InputError("", "--trajectory", "expected memory, hdf5 or checkpoints, got '" + settings.storage + "'");
  if (!settings.continuous_form.empty() && settings.continuous_form != "dae" &&
      settings.continuous_form != "hamiltonian" && settings.continuous_form != "hamiltonian_index1")
    throw InputError("", "--continuous-form",
                     "expected dae, hamiltonian or hamiltonian_index1, got '" + settings.continuous_form + "'");
  const bool hamiltonian_form =
      settings.continuous_form == "hamiltonian" || settings.continuous_form == "hamiltonian_index1";
  if (!settings.continuous_form.empty() && settings.mode != "continuous")
    throw InputError("", "--continuous-form",
                     "chooses the equations of the continuous adjoint (--adjoint continuous); this run's adjoint is " +
                         settings.mode);
  // Only the Hamiltonian integrator in absolute coordinates has two continuous adjoints to choose from.
  if (!settings.continuous_form.empty() && !kind.can.hamiltonian_continuous_adjoint)
    throw InputError(problem_.model->source_file, "integrator.type",
                     "--continuous-form chooses between the two continuous adjoints of the constrained Hamiltonian "
                     "equations in absolute coordinates (integrator: {type: hamiltonian}); this model's integrator "
                     "is the " + kind.title + ", whose continuous adjoint is the one --adjoint continuous runs");
  if (hamiltonian_form && settings.adjoint_steps > 0)
    throw InputError("", "--adjoint-steps",
                     "the Hamiltonian continuous adjoint (--continuous-form hamiltonian) runs on the forward grid");
  if (settings.adjoint_constraint_history && settings.mode == "continuous" && !hamiltonian_form &&
      kind.can.continuous_adjoint != ContinuousAdjoint::JointSpaceOde)
    throw InputError("", "--adjoint-violation",
                     "records the constraint violation of the adjoints of the constrained Hamiltonian equations "
                     "(--adjoint continuous with type hamiltonian: --continuous-form hamiltonian, or coordinates: "
                     "joint)");
  if (settings.adjoint_constraint_history && settings.mode != "continuous")
    throw InputError("", "--adjoint-violation",
                     "records the constraint violation of a continuous adjoint of the constrained Hamiltonian "
                     "equations (--adjoint continuous); this run's adjoint is " + settings.mode);
  if (settings.mode == "continuous" && kind.can.continuous_adjoint == ContinuousAdjoint::None)
    throw InputError(problem_.model->source_file, "integrator.type",
                     "the continuous adjoint (--adjoint continuous) is not available with the variational "
                     "integrator; use the discrete adjoint (the default)");
  // The parameter partials of a momentum sensor are added by the discrete and the spacetime sweep.
  if (settings.mode == "continuous" && objectives::Objective(problem_.objective_terms).depends_on_parameters())
    throw InputError(problem_.model->source_file, "objective",
                     "a momentum sensor (quantity: momentum or angular_momentum) is differentiated by the discrete "
                     "and the spacetime adjoint, not by --adjoint continuous");
  // Terms on accelerations: the discrete and the spacetime adjoint of generalized-alpha/HHT pass dJ/da_n to the step.
  if (settings.mode == "continuous" && !acceleration_term().empty())
    throw InputError(problem_.model->source_file, acceleration_term() + ".quantity",
                     "a term on accelerations is differentiated by the discrete and the spacetime adjoint, not by "
                     "--adjoint continuous (its adjoint DAE has no terms in dz/dt)");
  // The continuous adjoints' DAEs have position-level constraints only.
  if (settings.mode == "continuous")
    for (const auto& constraint : problem_.model->constraints())
      if (constraint->velocity_level())
        throw InputError(problem_.model->source_file, "--adjoint",
                         "the continuous adjoint (--adjoint continuous) does not treat non-holonomic constraints "
                         "(joint '" + constraint->name() + "', " + constraint->type() +
                         "); they need the discrete adjoint of generalized-alpha/HHT (--adjoint discrete or "
                         "spacetime)");
  // The state-space form's continuous adjoint is Held and Seifried's, on the dense QR path (serial, small).
  if (settings.mode == "continuous" && kind.can.continuous_adjoint == ContinuousAdjoint::StateSpaceOde)
    adjoint::check_dense_state_space(*problem_.model, comm_->getSize(), "--adjoint");
  // An implicit or free final time: its sensitivity is formed by the discrete sweep (adjoint/discrete_adjoint.cpp)
  // over recorded times and reads generalized-alpha's aux of the steps, which an HDF5 trajectory does not keep; a
  // checkpointed trajectory recomputes on the times of the settings. The continuous adjoint (Nachbagauer et al.'s,
  // with Bestle and Eberhard's terminal terms) differentiates them too; the spacetime adjoint and Held and
  // Seifried's state-space adjoint do not.
  const bool implicit_end = problem_.integrator.end_condition != nullptr, free_end = problem_.integrator.fixed_steps > 0;
  if ((implicit_end || free_end) && hamiltonian_form)
    throw InputError(problem_.model->source_file, implicit_end ? "integrator.end_condition" : "design_variables",
                     std::string("the Hamiltonian continuous adjoint (--continuous-form hamiltonian) does not "
                                 "differentiate ") + (implicit_end ? "an implicit" : "a free") +
                         " final time; use --adjoint discrete, or --continuous-form dae");
  const bool final_time_adjoint =
      settings.mode == "discrete" ||
      (settings.mode == "continuous" && !kind.continuous_adjoint_on_forward_grid() && !hamiltonian_form);
  if ((implicit_end || free_end) && (!final_time_adjoint || settings.storage != "memory"))
    throw InputError(problem_.model->source_file, implicit_end ? "integrator.end_condition" : "design_variables",
                     std::string(implicit_end ? "an implicit" : "a free") +
                         " final time is differentiated by the discrete adjoint and the continuous adjoint (not with "
                         "type state_space or joint coordinates) over a trajectory in memory only so far: use --adjoint discrete or "
                         "continuous and --trajectory memory (got --adjoint " + settings.mode +
                         ", --trajectory " + settings.storage + ")");
  // The continuous adjoint's dJ/dt1 = F(t1) + ... extends the run at fixed controls, not the stretched u^(tau).
  if (free_end && settings.mode == "continuous" && !problem_.model->normalized_control().empty())
    throw InputError(problem_.model->source_file, "design_variables",
                     "a free final time with control '" + problem_.model->normalized_control() +
                         "' on normalized time (time: normalized) is differentiated by the discrete adjoint only so "
                         "far: use --adjoint discrete");
  if ((implicit_end || free_end) && !kind.can.final_time)
    throw InputError(problem_.model->source_file, implicit_end ? "integrator.end_condition" : "design_variables",
                     std::string(implicit_end ? "an implicit" : "a free") +
                         " final time is not differentiated with the variational integrator in joint coordinates (the "
                         "null-space form of integrator.coordinates: joint, or joint_midpoint) yet; use coordinates "
                         "absolute (the RATTLE form)");
  if (implicit_end || free_end)
    for (const auto& element : problem_.model->force_elements())
      if (element->trapezoidal_in_time())
        throw InputError(problem_.model->source_file, implicit_end ? "integrator.end_condition" : "design_variables",
                         std::string(implicit_end ? "an implicit" : "a free") + " final time is not differentiated "
                         "with the dual-quaternion beam ('" + element->name() + "') yet");
  // Error-controlled steps: the discrete adjoint holds the chosen steps fixed (docs/adjoint.md), the continuous
  // adjoint takes its own constant steps over the interpolated forward states; the trajectory kinds that plan by
  // the step count, and the spacetime adjoint on the steps of the file, need fixed steps.
  if (problem_.integrator.step_control.enabled() &&
      (settings.mode == "spacetime" || settings.storage == "checkpoints"))
    throw InputError(problem_.model->source_file, "integrator.step_control",
                     "error-controlled steps are differentiated by the discrete and the continuous adjoint over a "
                     "trajectory in memory or an HDF5 file so far: use --adjoint discrete or continuous and "
                     "--trajectory memory or hdf5 (got --adjoint " + settings.mode + ", --trajectory " +
                         settings.storage + "), or fixed steps");
  adjoint_ = settings;
  trajectory_.reset();  // made anew, of the chosen kind, by the next forward()
  recorded_ = false;
  restart_pending_ = settings.restart;
  const std::string stem = file_stem(problem_.model->source_file);
  if (adjoint_.storage == "hdf5" && adjoint_.trajectory_path.empty())
    adjoint_.trajectory_path = (stem.empty() ? std::string("flexadj") : stem) + ".trajectory.h5";
  if (adjoint_.storage == "hdf5") refuse_symbolic_link(adjoint_.trajectory_path, "--trajectory-file");
  if (adjoint_.storage == "checkpoints" && adjoint_.disk_checkpoints > 0 && adjoint_.folder.empty())
    adjoint_.folder = (stem.empty() ? std::string("flexadj") : stem) + ".checkpoints";
  if (adjoint_.restart && (adjoint_.storage != "checkpoints" || adjoint_.folder.empty()))
    throw InputError("", "--restart",
                     "needs disk checkpoints to resume from: --disk-checkpoints D or --checkpoint-folder F (or "
                     "trajectory: {storage: checkpoints, disk_checkpoints: D} in the model file)");
}

std::size_t GradientProblem::disk_interval() {
  if (adjoint_.storage != "checkpoints" || adjoint_.folder.empty()) return 0;
  const long long steps = problem_.integrator.step_count();
  const std::size_t interval =
      adjoint_.disk_checkpoints > 0 ? storage::disk_interval_for(steps, adjoint_.disk_checkpoints) : checkpoint_slots();
  if (adjoint_.mode != "spacetime") return interval;
  // The spacetime adjoint's time groups recompute their slabs from the files (adjoint/slab_states.hpp): files at
  // their first steps if an interval of no more files allows it.
  const auto n = static_cast<std::size_t>(steps);
  const auto ranks = static_cast<std::size_t>(comm_->getSize());
  const std::size_t slabs =
      std::max<std::size_t>(1, std::min(adjoint_.time_slabs > 0 ? adjoint_.time_slabs : ranks, n));
  return adjoint::slab_compatible_interval(n, slabs, adjoint::default_time_groups(int(ranks), slabs), interval);
}

void GradientProblem::prepare() {
  if (assembler_) return;
  assembler_ = std::make_unique<assembly::Assembler>(
      *problem_.model, comm_, assembly::partition_from_name(problem_.integrator.partition));
  integrator_ = integrators::make_time_integrator(*assembler_, problem_.integrator,
                                                 integrators::linear_solver_options(problem_.integrator));
}

std::size_t GradientProblem::checkpoint_slots() {
  if (adjoint_.checkpoints > 0) return adjoint_.checkpoints;
  const long long steps = problem_.integrator.step_count();
  if (adjoint_.memory_limit <= 0.0) return storage::default_checkpoints(steps);
  prepare();
  // A checkpoint holds q, v, a, aux, lambda and the integrator's restart data (at most n values) of this rank.
  const auto& dofs = assembler_->dofs();
  const double local = 8.0 * (5.0 * double(dofs.owned_coordinates().size()) + double(dofs.owned_multipliers().size()));
  double largest = 0.0;
  Teuchos::reduceAll(*comm_, Teuchos::REDUCE_MAX, local, Teuchos::outArg(largest));
  // Two more states are in use beside the checkpoints (the one served and the sweep's copy).
  const double fitting = std::floor(adjoint_.memory_limit / std::max(largest, 1.0)) - 2.0;
  if (fitting < 1.0) {
    std::ostringstream message;
    message << "the memory limit (" << adjoint_.memory_limit / 1e6 << " MB) holds no checkpoint: one state takes "
            << largest / 1e6 << " MB per rank, and three are needed at least";
    throw InputError("", "--memory-limit", message.str());
  }
  return static_cast<std::size_t>(std::min(fitting, double(steps) + 1.0));
}

GradientEvaluation GradientProblem::forward() {
  GradientEvaluation e;
  comm_->barrier();
  const auto start = std::chrono::steady_clock::now();
  prepare();
  // Copies of a problem share the model: its normalized controls take this run's window.
  problem_.model->set_time_window(problem_.integrator.start_time, problem_.integrator.end_time);
  // The forward states for the backward sweep, where the option puts them (storage/trajectory.hpp).
  if (!trajectory_) {
    storage::TrajectoryOptions options;
    options.storage = adjoint_.storage;
    options.path = adjoint_.trajectory_path;
    if (adjoint_.storage == "checkpoints") {
      options.checkpoints = checkpoint_slots();
      options.disk_interval = disk_interval();
      options.folder = adjoint_.folder;
      options.run = run_identity();
    }
    trajectory_ = storage::make_trajectory(options, *assembler_, *integrator_);
  }
  assembly::State state = assembler_->make_state();
  assembler_->scatter_global(problem_.model->initial_coordinates(), problem_.model->initial_velocities(), state);
  recorded_ = false;
  resumed_sweep_ = resumed_forward_ = false;
  restart_note_.clear();
  auto* checkpointed = dynamic_cast<storage::CheckpointedTrajectory*>(trajectory_.get());
  const bool disk = checkpointed && checkpointed->disk().interval > 0;
  std::size_t resume_from = 0;
  // One run per folder: a second would remove and overwrite this one's files.
  if (disk && (!folder_lock_ || folder_lock_->folder() != checkpointed->disk().folder)) {
    folder_lock_.reset();
    folder_lock_ = std::make_unique<storage::FolderLock>(checkpointed->disk().folder, comm_);
  }
  if (disk && restart_pending_) {
    restart_pending_ = false;
    const storage::DiskCheckpoints& files = checkpointed->disk();
    const std::vector<long long> sweep = files.adjoint_steps(*comm_), states = files.state_steps(*comm_);
    const auto steps = static_cast<long long>(problem_.integrator.step_count());
    long long last_state = -1;
    for (long long n : states)
      if (n <= steps && n % static_cast<long long>(files.interval) == 0) last_state = std::max(last_state, n);
    if (!sweep.empty()) {
      integrators::resume_recorded_run(*integrator_, state, *checkpointed);
      resumed_sweep_ = recorded_ = true;
      restart_note_ = "resuming the backward sweep below step " + std::to_string(sweep.front()) + " (" +
                      files.adjoint_path(sweep.front()) + ")";
      announce_restart();
      e.objective = std::numeric_limits<double>::quiet_NaN();  // the sweep's, see evaluate()
      comm_->barrier();
      e.forward_seconds = seconds_since(start);
      return e;
    }
    if (last_state > 0) {  // step 0 is where any run starts
      resumed_forward_ = true;
      resume_from = static_cast<std::size_t>(last_state);
      restart_note_ = "resuming the forward run at step " + std::to_string(last_state) + " (" +
                      files.path(last_state) + ")";
    } else {
      restart_note_ = "nothing to resume in " + files.folder + ": starting from the beginning";
    }
    announce_restart();
  } else if (disk) {
    checkpointed->disk().remove_all(*comm_);  // a new run: what an earlier one left is not this run's
  }
  // J while the states pass (a checkpointed trajectory keeps only some of them): each step's part once the next
  // step's time is known (quadrature weights), as an end condition fixes the last time only at the end.
  const objectives::Objective objective(problem_.objective_terms);
  std::vector<double> times, parts;
  times.reserve(static_cast<std::size_t>(problem_.integrator.step_count()) + 1);
  parts.reserve(times.capacity());
  assembly::State held = assembler_->make_state();
  if (constraints_) constraints_->begin();
  const auto sum = [&](long long, double t, const assembly::State& s) {
    times.push_back(t);
    if (times.size() > 1) parts.push_back(objective.local_step_value(*assembler_, times, times.size() - 2, held));
    if (constraints_) constraints_->observe(*assembler_, times.size() - 1, s);
    held = s;
  };
  if (resumed_forward_)
    integrators::resume_forward_run(*assembler_, *integrator_, state, *checkpointed, resume_from, sum, progress_);
  else
    integrators::record_forward_run(*assembler_, *integrator_, state, *trajectory_, sum, progress_);
  recorded_ = true;
  // A resumed run saw only the steps after resume_from: J comes from the sweep (evaluate()).
  if (!resumed_forward_) parts.push_back(objective.local_step_value(*assembler_, times, times.size() - 1, held));
  e.objective = resumed_forward_ ? std::numeric_limits<double>::quiet_NaN() : objective.total(*assembler_, times, parts);
  // A resumed run did not see the first steps: no constraint values (optimisation does not resume forward runs).
  if (constraints_ && !resumed_forward_) {
    constraints_->finish(*assembler_, times, held);
    e.constraints = constraints_->values();
  }
  comm_->barrier();
  e.forward_seconds = seconds_since(start);
  return e;
}

void GradientProblem::announce_restart() const {
  if (progress_ && comm_->getRank() == 0) {
    std::fprintf(stderr, "restart  %s\n", restart_note_.c_str());
    std::fflush(stderr);
  }
}

void GradientProblem::hold_steps() {
  if (!problem_.integrator.step_control.enabled() || problem_.integrator.replayed_times) return;
  if (!recorded_) throw std::logic_error("GradientProblem::hold_steps() without a complete forward run");
  problem_.integrator.replayed_times = std::make_shared<const std::vector<double>>(trajectory_->step_times());
  integrator_->set_replayed_times(problem_.integrator.replayed_times);
}

GradientEvaluation GradientProblem::adjoint() {
  return sweep(objectives::Objective(problem_.objective_terms), true);
}

GradientEvaluation GradientProblem::constraint_adjoint(const std::vector<double>& lambda) {
  if (!constraints_) throw std::logic_error("GradientProblem::constraint_adjoint() without constraints");
  // The path constraints' step sums exist on the discrete trajectory only (objectives::ObjectiveTerm::StepSum).
  if (adjoint_.mode != "discrete")
    throw InputError(problem_.model->source_file, "constraints",
                     "constraint gradients need the discrete adjoint (--adjoint discrete), not '" + adjoint_.mode +
                         "'");
  return sweep(constraints_->weighted(lambda), false);
}

GradientEvaluation GradientProblem::sweep(const objectives::Objective& objective, bool model_objective) {
  if (!recorded_) throw std::logic_error("GradientProblem::adjoint() without a complete forward run");
  GradientEvaluation e;
  const auto start = std::chrono::steady_clock::now();
  // With disk checkpoints the discrete sweep leaves restart files behind it (adjoint/sweep_checkpoints.hpp).
  const auto* checkpointed = dynamic_cast<const storage::CheckpointedTrajectory*>(trajectory_.get());
  std::unique_ptr<adjoint::SweepCheckpoints> sweep_files;
  if (model_objective && checkpointed && checkpointed->disk().interval > 0)
    sweep_files = std::make_unique<adjoint::SweepCheckpoints>(*assembler_, checkpointed->disk());
  adjoint::Gradient gradient;
  using integrators::ContinuousAdjoint;
  const ContinuousAdjoint continuous = integrators::integrator_kind(problem_.integrator).can.continuous_adjoint;
  if (adjoint_.mode == "continuous" && adjoint_.continuous_form.rfind("hamiltonian", 0) == 0) {
    adjoint_constraint_history_ = {};
    gradient = adjoint::hamiltonian_continuous_adjoint_gradient(
        *assembler_, dynamic_cast<integrators::Hamiltonian&>(*integrator_), *trajectory_, objective,
        design_.parameters(),
        adjoint_.continuous_form == "hamiltonian_index1" ? adjoint::HamiltonianAdjointForm::Index1
                                                         : adjoint::HamiltonianAdjointForm::Index2,
        adjoint_.adjoint_constraint_history ? &adjoint_constraint_history_ : nullptr);
  } else if (adjoint_.mode == "continuous" && continuous == ContinuousAdjoint::JointSpaceOde) {
    adjoint_constraint_history_ = {};
    gradient = adjoint::joint_space_continuous_adjoint_gradient(
        *assembler_, *integrator_, *trajectory_, objective, design_.parameters(),
        adjoint_.adjoint_constraint_history ? &adjoint_constraint_history_ : nullptr);
  } else if (adjoint_.mode == "continuous" && continuous == ContinuousAdjoint::StateSpaceOde) {
    gradient = adjoint::state_space_continuous_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective,
                                                                design_.parameters());
  } else if (adjoint_.mode == "continuous") {
    gradient = adjoint::continuous_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective,
                                                    design_.parameters(), {adjoint_.bdf_order, adjoint_.adjoint_steps});
  } else if (adjoint_.mode == "spacetime") {
    adjoint::SpacetimeOptions options;
    options.slabs = adjoint_.time_slabs;
    options.solver = adjoint_.spacetime_solver;
    options.tolerance = adjoint_.spacetime_tolerance;
    options.coarsening = adjoint_.spacetime_coarsening;
    options.max_iterations = adjoint_.spacetime_max_iterations;
    options.kept_step_memory = adjoint_.spacetime_memory;
    spacetime_statistics_ = {};  // of this solve alone, also if it fails
    gradient = adjoint::spacetime_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective,
                                                   design_.parameters(), options, &spacetime_statistics_);
  } else {
    gradient = adjoint::discrete_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective,
                                                  design_.parameters(),
                                                  {sweep_files.get(), model_objective && resumed_sweep_, progress_,
                                                   sweep_observer_});
  }
  e.objective = gradient.objective;
  e.gradient = design_.gradient(gradient);
  e.sensitivities = std::move(gradient);
  comm_->barrier();
  e.adjoint_seconds = seconds_since(start);
  return e;
}

void GradientProblem::replay_trajectory(const integrators::StepObserver& observer) {
  if (!recorded_) throw std::logic_error("GradientProblem::replay_trajectory() without a complete forward run");
  if (adjoint_.storage == "checkpoints") {  // most steps are not kept: run again
    assembly::State state = assembler_->make_state();
    assembler_->scatter_global(problem_.model->initial_coordinates(), problem_.model->initial_velocities(), state);
    integrators::SimulationOptions options;
    options.progress = false;
    options.track_energy = false;
    integrators::simulate(*assembler_, *integrator_, state, options, {observer});
  } else {
    const std::vector<double>& times = trajectory_->step_times();
    for (std::size_t n = 0; n < times.size(); ++n) observer(static_cast<long long>(n), times[n], trajectory_->step(n));
  }
}

void GradientProblem::write_trajectory(const std::string& path, bool xdmf) {
  if (!recorded_) throw std::logic_error("GradientProblem::write_trajectory() without a complete forward run");
  results::TrajectoryOutput output(*assembler_, integrators::describe_run(problem_.integrator), path, 1, xdmf);
  replay_trajectory([&](long long n, double t, const assembly::State& s) { output.observe(n, t, s); });
  output.finish();
}

const storage::CheckpointStatistics* GradientProblem::checkpoint_statistics() const {
  const auto* checkpointed = dynamic_cast<const storage::CheckpointedTrajectory*>(trajectory_.get());
  return checkpointed ? &checkpointed->statistics() : nullptr;
}

GradientEvaluation GradientProblem::evaluate(bool with_gradient) {
  GradientEvaluation e = forward();
  if (!with_gradient) return e;
  const GradientEvaluation backward = adjoint();
  if (resumed_sweep_ || resumed_forward_) e.objective = backward.objective;  // the forward run saw only a part
  e.gradient = backward.gradient;
  e.sensitivities = backward.sensitivities;
  e.adjoint_seconds = backward.adjoint_seconds;
  return e;
}

void GradientProblem::set_final_square(std::size_t term, double weight, double target) {
  objectives::ObjectiveTerm& t = problem_.objective_terms.at(term);
  if (t.kind != objectives::ObjectiveTerm::Kind::FinalSquare)
    throw std::logic_error("GradientProblem::set_final_square() on a term that is not final_square");
  t.weight = weight;
  t.target = target;
}

std::string GradientProblem::describe_objective() const {
  return objectives::objective_formula(problem_.objective_terms, *problem_.model);
}

std::unique_ptr<storage::BinomialSchedule> GradientProblem::checkpoint_schedule(bool actions) {
  if (adjoint_.storage != "checkpoints") return nullptr;
  const std::size_t slots = checkpoint_slots(), interval = disk_interval();
  return std::make_unique<storage::BinomialSchedule>(storage::plan_schedule(
      static_cast<std::uint64_t>(problem_.integrator.step_count()), slots, interval, actions));
}

std::string GradientProblem::describe_adjoint() const {
  const AdjointSettings& a = adjoint_;
  const auto continuous = integrators::integrator_kind(problem_.integrator).can.continuous_adjoint;
  std::ostringstream text;
  using integrators::ContinuousAdjoint;
  if (a.mode == "continuous" && a.continuous_form == "hamiltonian")
    text << "continuous (Maciag et al. 2022: redundant-coordinate adjoint of the constrained Hamiltonian "
            "equations, eqs. (21a)-(21c), Heun backwards); gradient of the continuous J to the integration error";
  else if (a.mode == "continuous" && a.continuous_form == "hamiltonian_index1")
    text << "continuous (Maciag et al. 2022: redundant-coordinate adjoint of the constrained Hamiltonian "
            "equations in the index-1 form of eqs. (22a)/(22b), Heun backwards); gradient of the continuous J to the "
            "integration error";
  else if (a.mode == "continuous" && continuous == ContinuousAdjoint::JointSpaceOde)
    text << "continuous (Maciag et al. 2022: joint-coordinate adjoint ODE, dense, Heun backwards); gradient of the "
            "continuous J to the integration error";
  else if (a.mode == "continuous" && continuous == ContinuousAdjoint::StateSpaceOde)
    text << "continuous (Held and Seifried: adjoint ODE of the QR state-space form, dense, Heun backwards); gradient "
            "of the continuous J to the integration error";
  else if (a.mode == "continuous")
    text << "continuous (Nachbagauer et al. 2015), BDF-" << a.bdf_order
         << (a.adjoint_steps > 0 ? " on " + std::to_string(a.adjoint_steps) + " steps of its own (forward states "
                                                                               "interpolated)" : std::string())
         << "; gradient of the continuous J to the integration error";
  else if (a.mode == "spacetime")
    text << "spacetime discrete (all steps as one system, " << a.spacetime_solver << ", tolerance "
         << a.spacetime_tolerance << "; the discrete J's gradient to that tolerance)";
  else
    text << "discrete (exact gradient of the discrete J)";
  return text.str();
}

const std::vector<double>& GradientProblem::step_times() const {
  if (!trajectory_) throw std::logic_error("GradientProblem::step_times() without a forward run");
  return trajectory_->step_times();
}

}  // namespace flexadj
