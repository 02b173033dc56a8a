#pragma once
// The gradient problem of a model file, shared by `flexadj gradient`, `check` and `optimize`, the tests and the
// benchmarks: the objective J of the model's `objective` section and its adjoint gradient with respect to the
// scalars of the model's design variables (problem::DesignSpace): the discrete adjoint (exact for the discrete J),
// the spacetime adjoint (the same equations solved all at once) or the continuous adjoint the integrator's kind
// has (integrators/registry.hpp; Nachbagauer et al. 2015 by BDF-k, accurate to the integration error). The forward
// states wait for the backward sweep in memory, in an HDF5 file or as checkpoints (AdjointSettings). Assembler
// (with its matrix graph) and integrator (with its linear solver) are built once and reused by every evaluation.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flexadj/adjoint/discrete_adjoint.hpp"
#include "flexadj/adjoint/hamiltonian_continuous_adjoint.hpp"
#include "flexadj/adjoint/spacetime_adjoint.hpp"
#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/gradient/adjoint_settings.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/objectives/constraint_set.hpp"
#include "flexadj/storage/binomial_schedule.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "flexadj/storage/folder_lock.hpp"
#include "flexadj/problem/design_space.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj {

struct GradientEvaluation {
  double objective = 0.0;
  std::vector<double> gradient;  // dJ/d(design scalars); empty for a forward run only
  // The adjoint's whole result: dJ/dp of every parameter of design().parameters() (those it wants), dJ/d of every
  // initial value and control value, dJ/d(end_time); empty for a forward run only.
  adjoint::Gradient sensitivities;
  double forward_seconds = 0.0, adjoint_seconds = 0.0;
  // forward(): the constraint values c (objectives::ConstraintSet's order); empty without constraints.
  std::vector<double> constraints;
};

// H v at the design values of the last forward run, with J and the gradient of the same sweep.
struct HessianVectorEvaluation {
  double objective = 0.0;
  std::vector<double> gradient, product;  // dJ/d(design scalars), H v
  double seconds = 0.0;                   // tangent and both backward sweeps
};

class GradientProblem {
 public:
  // InputError (exit code 2) if the model has no objective. The backward sweep solves with the linear solver
  // of the model's integrator settings (direct or iterative), as the forward run. `command` names the program's
  // command in messages.
  GradientProblem(problem::Problem problem, RCP<const Comm> comm, const std::string& command);
  // The model file's trajectory section applies until set_adjoint() says otherwise.

  const problem::Problem& problem() const { return problem_; }
  const RCP<const Comm>& comm() const { return comm_; }
  const model::Model& model() const { return *problem_.model; }
  const problem::DesignSpace& design() const { return design_; }
  std::vector<double> values() const { return design_.values(problem_); }
  // Also the integrator's end time, for a free final time (design variable integrator.end_time).
  void set_values(const std::vector<double>& values) {
    design_.set_values(problem_, values);
    if (integrator_) integrator_->set_end_time(problem_.integrator.end_time);
  }

  // InputError (exit code 2) for an unknown mode or storage, or a BDF order outside 1..4.
  void set_adjoint(const AdjointSettings& settings);
  const AdjointSettings& adjoint_settings() const { return adjoint_; }
  // Progress lines of the forward run and the backward sweep on rank 0's stderr (off by default).
  void set_progress(bool progress) { progress_ = progress; }

  // Builds the assembler (with its matrix graph) and the integrator (with its linear solver), once; else the first
  // forward() does, within its time (collective).
  void prepare();
  // J, and with with_gradient dJ/d(design scalars), at the current values (collective).
  GradientEvaluation evaluate(bool with_gradient);
  // The two halves of evaluate(true): forward() runs the model at the current values and keeps the
  // trajectory; adjoint() sweeps backward over the trajectory of the last forward() (the values must not
  // have changed in between). Collective.
  GradientEvaluation forward();
  GradientEvaluation adjoint();
  // The constraints of the model file's `constraints` section (nullptr: none); their values at the last forward().
  const objectives::ConstraintSet* constraints() const { return constraints_.get(); }
  // J_c^T lambda in the design scalars (as `gradient`, with `objective` = lambda . c) at the values of the last
  // forward(): one discrete adjoint sweep of the objective sum_i lambda_i c_i (objectives::ConstraintSet::weighted),
  // whatever the number of constraint values. InputError (exit code 2) for an adjoint other than the discrete one.
  // Collective.
  GradientEvaluation constraint_adjoint(const std::vector<double>& lambda);
  // The product H v of the Hessian of the discrete J in the design scalars with v (design().size() values) at the
  // values of the last forward(), exact (the second-order adjoint, adjoint/second_order_adjoint.hpp;
  // hessian_vector.cpp), with the trajectory's storage (the tangents kept alike, adjoint/tangent_trajectory.hpp). check_second_order() (also called by hessian_vector()) throws InputError (exit code 2)
  // naming the command where it is not available: an integrator without the registry's capability
  // second_order_adjoint, with joints an initial value or a joint's
  // parameter among the design variables, momentum sensors, a free or implicit final time,
  // error-controlled steps. Collective.
  HessianVectorEvaluation hessian_vector(const std::vector<double>& v);
  void check_second_order() const;
  // The first term on an acceleration ("objective[2]", "constraints[0]"), empty if none.
  std::string acceleration_term() const;
  // The Gauss-Newton product G v = J_r^T J_r v of a least-squares J = 1/2 |r|^2 (Objective::least_squares_refusal)
  // at the values of the last forward(): one tangent-linear sweep along v and one first-order adjoint sweep of the
  // linearised residual (adjoint/gauss_newton.hpp; gauss_newton.cpp); equal to H v where r is linear in the design.
  // check_gauss_newton() (also called by gauss_newton_vector()) throws InputError (exit code 2) naming the command
  // where it is not available: where check_second_order() refuses, and for a term that is not a weighted square.
  // Collective.
  std::vector<double> gauss_newton_vector(const std::vector<double>& v);
  void check_gauss_newton() const;
  // With error-controlled steps (integrator.step_control): the following forward runs take the step times of the
  // last forward() again instead of choosing their own, so that J is the same discrete function of the design
  // whose derivative the discrete adjoint computes (`flexadj check`'s differences). No effect with fixed steps.
  void hold_steps();
  // Writes the trajectory of the last forward() as HDF5 (and XDMF) like `flexadj simulate` (collective).
  void write_trajectory(const std::string& path, bool xdmf);
  // Calls observer(n, t, state of this rank) for every step n = 0, 1, ... of the last forward(), in order; a
  // checkpointed trajectory runs the model again (collective).
  void replay_trajectory(const integrators::StepObserver& observer);
  // The assembler of the forward runs (ownership and numbering of the coordinates); built by prepare().
  const assembly::Assembler& assembler() const { return *assembler_; }
  // The integrator of the forward runs (its linear solver, for reports); built by prepare().
  const integrators::TimeIntegrator& integrator() const { return *integrator_; }

  // The checkpoints a sweep with storage "checkpoints" keeps: the given number, or as many as fit in the memory
  // limit (InputError if not one fits), or storage::default_checkpoints. Collective (builds the assembler).
  std::size_t checkpoint_slots();
  // The disk tier of storage "checkpoints": a disk checkpoint every disk_interval() steps (0: memory only), in
  // checkpoint_folder(). With a folder and no number of disk checkpoints, the interval is the number of slots.
  std::size_t disk_interval();
  const std::string& checkpoint_folder() const { return adjoint_.folder; }
  // The schedule of storage "checkpoints" (slots, disk interval, recomputed steps; with `actions` its actions too,
  // up to storage::kMaxListedSteps steps); nullptr for another storage. Collective (checkpoint_slots()).
  std::unique_ptr<storage::BinomialSchedule> checkpoint_schedule(bool actions);
  // The identity of a run (core/run_identity.hpp), written into disk checkpoints, sweep restart files and
  // optimisation restart files: the program version, the CRC-32 of each section of the model file as read (--set
  // overrides applied; objective, integrator, design variables, bodies, ...; not title, output and trajectory, nor
  // the optimisation's stopping rules), of all component parameters, initial values and control values (design
  // values count), of the time grid; the rank count, disk interval, linear solver and adjoint. A file of any
  // other run is refused, naming the first item that differs.
  std::string run_identity();
  // What the last forward() resumed from with AdjointSettings::restart (one line; empty: nothing to resume).
  const std::string& restart_note() const { return restart_note_; }
  // Checkpoint slots, recomputed steps, stores and restores of the last adjoint() with storage "checkpoints".
  const storage::CheckpointStatistics* checkpoint_statistics() const;
  // Slabs, groups, GMRES iterations and residuals of the last adjoint() with mode "spacetime" (else nullptr).
  const adjoint::SpacetimeStatistics* spacetime_statistics() const {
    return adjoint_.mode == "spacetime" && spacetime_statistics_.slabs > 0 ? &spacetime_statistics_ : nullptr;
  }
  // The adjoint's constraint violation along the last sweep of the Hamiltonian continuous adjoint with
  // AdjointSettings::adjoint_constraint_history (else empty).
  const adjoint::AdjointConstraintHistory& adjoint_constraint_history() const { return adjoint_constraint_history_; }

  // Sets the weight and the target of the objective's final_square term `term` for the following forward runs and
  // sweeps (the modified end-momentum target of Schubert et al. 2024, Remark 1); run_identity() keeps the model
  // file's. std::logic_error for another kind of term.
  void set_final_square(std::size_t term, double weight, double target);
  // J as a formula, e.g. "mass.x(t_end) + 2/2 (v(load.x)(t_end) - 5)^2", for the report.
  std::string describe_objective() const;
  // The adjoint of set_adjoint() in one line, e.g. "discrete (exact gradient of the discrete J)", for the report.
  std::string describe_adjoint() const;
  // The step times t_0 .. t_N of the last forward() (collective reads of a file trajectory are not needed).
  const std::vector<double>& step_times() const;
  // Called after the discrete adjoint's step of each step n = N, ..., 0 (adjoint::SweepOptions::after_step), e.g. to
  // read the step's adjoint variables in convergence studies.
  void set_sweep_observer(std::function<void(std::size_t, const integrators::TimeIntegrator&)> observer) {
    sweep_observer_ = std::move(observer);
  }

 private:
  // The checkpoints of the products' states and tangents (0: the gradient's number; hessian_vector.cpp).
  std::size_t tangent_checkpoints();
  // The direction of the design scalars v in the layout of an adjoint::Gradient (hessian_vector.cpp).
  adjoint::Gradient direction_of(const std::vector<double>& v) const;
  void announce_restart() const;  // the restart note on rank 0's stderr, with progress lines
  // The backward sweep of `objective` over the last forward run; restart files only for the model's objective.
  GradientEvaluation sweep(const objectives::Objective& objective, bool model_objective);
  problem::Problem problem_;
  RCP<const Comm> comm_;
  std::string command_;  // the program's command, for messages
  problem::DesignSpace design_;
  std::unique_ptr<objectives::ConstraintSet> constraints_;
  AdjointSettings adjoint_;
  std::unique_ptr<assembly::Assembler> assembler_;
  std::unique_ptr<integrators::TimeIntegrator> integrator_;  // of the settings' kind (integrators/registry.hpp)
  std::unique_ptr<storage::FolderLock> folder_lock_;  // the disk checkpoints' folder, while this run uses it
  std::unique_ptr<storage::Trajectory> trajectory_;  // of the last forward(), memory or HDF5 (adjoint settings)
  bool recorded_ = false;                            // the last forward() completed
  bool progress_ = false;
  bool restart_pending_ = false;   // set_adjoint() asked for a restart that no forward() has made yet
  bool resumed_sweep_ = false;     // the last forward() found the sweep of an earlier process on disk
  bool resumed_forward_ = false;   // the last forward() continued an earlier process's forward run
  std::string restart_note_;
  adjoint::SpacetimeStatistics spacetime_statistics_;
  adjoint::AdjointConstraintHistory adjoint_constraint_history_;
  std::function<void(std::size_t, const integrators::TimeIntegrator&)> sweep_observer_;
};

}  // namespace flexadj
