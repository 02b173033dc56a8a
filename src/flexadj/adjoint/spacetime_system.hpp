#pragma once
// The spacetime (all-at-once) discrete adjoint system (docs/adjoint.md, "The spacetime adjoint"). The adjoint
// variables X_n that adjoint_step(n) passes to step n - 1 (TimeIntegrator::save_adjoint_variables) satisfy
//   X_n - Phi_n X_{n+1} = G_n,   n = N, ..., 1,   X_{N+1} = 0,
// block upper bidiagonal in time, where X_{n+1} -> Phi_n X_{n+1} + G_n is adjoint_step(n) itself with the
// objective's partials of step n (G_n) or zeros (Phi_n): the integrators' formulas, no second copy. The steps
// 1 .. N are cut into P slabs of contiguous steps; the ranks into G time groups (G divides the rank count and P),
// each with its own assembler and integrator on its ranks and the forward states of its slabs in memory (passed on
// from the trajectory, or recomputed by the group from a disk checkpoint: slab_states.hpp); group g
// owns slabs g P/G .. (g + 1) P/G - 1 and, with them, their blocks of every vector (time-major, then the group's
// space layout). Every operation below is a sweep over each slab (the groups in parallel) after the exchange of
// one block with the next group.
#include <memory>
#include <vector>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/adjoint/slab_states.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// Slab j holds steps first .. last of 1 .. N (sizes differ by at most one).
struct Slab {
  std::size_t first, last;
};
std::vector<Slab> make_slabs(std::size_t steps, std::size_t slabs);
// The time groups for `slabs` slabs on `ranks` ranks: the largest divisor of `ranks` that divides `slabs`.
std::size_t default_time_groups(int ranks, std::size_t slabs);

// Every k-th state of a trajectory as a trajectory of its own (the coarse grid of the two-level preconditioner):
// adjoint_step() reads the step sizes from step_times(), so coarse steps need nothing else.
class CoarseTrajectory final : public storage::Trajectory {
 public:
  CoarseTrajectory(storage::Trajectory& fine, std::vector<std::size_t> steps);
  void begin_recording() override {}
  void record(long long, double, const assembly::State&) override {}
  const std::vector<double>& step_times() const override { return times_; }
  const assembly::State& step(std::size_t m) override { return fine_.step(steps_.at(m)); }

 private:
  storage::Trajectory& fine_;
  std::vector<std::size_t> steps_;
  std::vector<double> times_;
};

class SpacetimeSystem {
 public:
  // The trajectory holds the last forward run of `integrator` on `assembler`'s ranks; `groups` divides the rank
  // count and `slabs` (<= N). With one group the given assembler and integrator do the sweeps. Collective.
  SpacetimeSystem(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                  storage::Trajectory& trajectory, const objectives::Objective& objective,
                  const model::ParameterSpace& parameters, std::size_t slabs, std::size_t groups);
  ~SpacetimeSystem();

  RCP<const Map> map() const { return map_; }
  std::size_t slab_count() const { return slabs_.size(); }
  std::size_t group_count() const { return groups_; }
  std::size_t step_count() const { return steps_; }
  std::size_t adjoint_steps_taken() const { return steps_taken_; }  // adjoint_step() calls of this rank's group
  // Whether the groups recomputed their states from disk checkpoints (slab_states.hpp), and this group's part.
  bool recomputed() const { return recomputed_; }
  const SlabRecomputation& recomputation() const { return recomputation_; }
  // Per group g: its disk checkpoint and recomputed steps (the same on every rank). Collective.
  std::vector<SlabRecomputation> recomputation_by_group() const;

  // From now on each group's adjoint steps keep their factorizations and element Jacobians, at most `byte_budget`
  // bytes per rank (integrators/kept_adjoint_steps.hpp): a repeated product costs the triangular solves and the
  // kept products. The system's destruction frees them. Collective.
  void keep_steps(std::size_t byte_budget);
  const integrators::KeptAdjointStatistics& kept_steps() const { return integrator_->kept_adjoint_statistics(); }

  // y = A x: y_n = x_n - Phi_n x_{n+1}.
  void apply(const double* x, double* y);
  // y_n = Phi_n x_{n+1} (the coupling of A alone: spacetime_matrix.hpp assembles it).
  void transfer(const double* x, double* y);
  // This rank's blocks: steps first_step() .. last_step() of width block_width(); its group and the group's ranks.
  std::size_t first_step() const { return first_step_; }
  std::size_t last_step() const { return last_step_; }
  std::size_t block_width() const { return width_; }
  std::size_t group() const { return group_; }
  RCP<const Comm> group_comm() const { return group_comm_; }
  // z = M^-1 r, block Jacobi in time: each slab solved exactly with nothing coming from the next slab,
  // z_n = r_n + Phi_n z_{n+1} (z = 0 above the slab).
  void slab_solve(const double* r, double* z);
  // z = M^-1 r with a coarse-in-time correction (two-level MGRIT with F-relaxation; docs/adjoint.md): the slab
  // solves give w; the slabs' first blocks then follow c_j = T_j c_{j+1} + w_first(j) from the last slab down,
  // with T_j (the slab's product of Phi_n) replaced by adjoint steps of the same integrator at `coarsening` times
  // the step over every coarsening-th state (a sequential pass through the groups); last, the slab solves again
  // with c_{j+1} coming in. Exact if the coarse steps were.
  // fcf: FCF-relaxation, the coarse pass on the residual after one exact transfer of each slab (two slab sweeps
  // more per application).
  void two_level_solve(const double* r, double* z, std::size_t coarsening, bool fcf = false);
  // b_n = G_n.
  void right_hand_side(double* b);
  // The gradient at the solution x: each slab swept once more from its incoming block x_{last+1} with the
  // objective's partials (exactly the sequential sweep from there), then step 0; the sums reduced over all ranks.
  // `interface_defect`: max over slabs of |x_first - X_first(swept)| / max |X| (the residual that matters).
  Gradient gradient(const double* x, double& interface_defect);

 private:
  enum class Sweep { Apply, Transfer, SlabSolve, RightHandSide, Gradient };
  void sweep(Sweep kind, const double* in, double* out, assembly::LocalGradient& gradient, double* defect);
  // X_{last step of this group + 1} from the next group (zeros after the last); `local` is this rank's part.
  void exchange(const double* local);
  void load_states(storage::Trajectory& source, integrators::TimeIntegrator& source_integrator);
  void recompute_states(storage::CheckpointedTrajectory& source, integrators::TimeIntegrator& source_integrator);
  // With more than one group: group 0's integrator (every group's with every_group) initialized from the given
  // initial state of the source integrator at t0. Collective.
  void initialize_groups(integrators::TimeIntegrator& source_integrator, double t0, bool every_group);
  std::size_t index(std::size_t step) const { return (step - first_step_) * width_; }
  // The coarse propagator of slab j applied to `incoming` (X_{last+1}); the result replaces it. coarsening 1:
  // the slab's exact transfer T_j.
  void coarse_sweep(std::size_t j, std::size_t coarsening, std::vector<double>& incoming);
  // The next group's value of a quantity of its first slab (zeros after the last group), given this group's.
  std::vector<double> from_next_group(const std::vector<double>& first_slab_value);

  assembly::Assembler& full_assembler_;
  const objectives::Objective& objective_;
  const model::ParameterSpace& parameters_;
  RCP<const Comm> group_comm_;
  MPI_Comm time_comm_ = MPI_COMM_NULL;  // the ranks with this rank's place in the other groups, by group
  std::size_t groups_ = 1, group_ = 0, steps_ = 0;
  std::unique_ptr<assembly::Assembler> own_assembler_;
  std::unique_ptr<integrators::TimeIntegrator> own_integrator_;
  assembly::Assembler* assembler_ = nullptr;
  integrators::TimeIntegrator* integrator_ = nullptr;
  std::unique_ptr<assembly::ScopedTransposedAssembly> transposed_;
  SlabTrajectory states_;
  std::vector<Slab> slabs_;
  std::size_t slab_begin_ = 0, slab_end_ = 0;  // this group's slabs
  std::size_t first_step_ = 0, last_step_ = 0, width_ = 0;
  RCP<const Map> map_;
  std::unique_ptr<assembly::LocalGradient> no_gradient_;  // wants no parameter (control sums are discarded)
  std::vector<std::vector<double>> slab_incoming_;  // the slab solves' X_{last+1} per slab of this group (empty: 0)
  std::vector<double> incoming_, zero_, carried_, dq_, dv_, zero_q_, zero_v_, objective_parts_;
  std::vector<double> da_;  // dJ/da_n of terms on accelerations (empty if the objective has none)
  std::size_t steps_taken_ = 0;
  bool recomputed_ = false;
  SlabRecomputation recomputation_;
};

}  // namespace flexadj::adjoint
