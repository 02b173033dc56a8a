// Checkpointed trajectories (storage/checkpointed_trajectory.hpp): the gradient with s checkpoints equals the
// gradient with every step in memory bit for bit (the recomputation repeats the forward run exactly), for every
// integrator with a discrete adjoint and for the continuous adjoint, at any rank count; the backward sweep
// recomputes exactly Griewank's optimum p(N + 1, s) - N steps. With a disk tier (HDF5 checkpoint files every m
// steps) the gradient is the same bit for bit and the sweep recomputes the two-level closed form.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "flexadj/adjoint/continuous_adjoint.hpp"
#include "flexadj/adjoint/sweep_checkpoints.hpp"
#include "flexadj/storage/binomial_schedule.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

struct SweepResult {
  adjoint::Gradient gradient;
  storage::CheckpointStatistics statistics;
};

// The gradient over a memory trajectory (slots = 0) or a checkpointed one with `slots` checkpoints (and a disk
// checkpoint every disk_interval steps).
SweepResult gradient(const problem::Problem& problem, std::size_t slots, int bdf_order = 0,
                     std::size_t disk_interval = 0) {
  const objectives::Objective objective = rigid_chain_objective();
  assembly::Assembler assembler(*problem.model, world());
  linalg::LinearSolverOptions options;
  // The default: the gathered KLU is bit-reproducible on several ranks, MUMPS only to round-off
  // (docs/performance.md, "Reproducibility"), and this test compares bits.
  options.kind = "auto";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  storage::TrajectoryOptions storage_options;
  storage_options.storage = slots > 0 ? "checkpoints" : "memory";
  storage_options.checkpoints = slots;
  storage_options.disk_interval = disk_interval;
  storage_options.folder = "checkpointed_trajectory_test";
  storage_options.run = "test run";
  const auto trajectory = storage::make_trajectory(storage_options, assembler, *integrator);
  auto state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  integrators::record_forward_run(assembler, *integrator, state, *trajectory);
  const model::ParameterSpace space(*problem.model);
  SweepResult run;
  run.gradient = bdf_order > 0 ? adjoint::continuous_adjoint_gradient(assembler, *integrator, *trajectory, objective,
                                                                      space, {bdf_order})
                               : adjoint::discrete_adjoint_gradient(assembler, *integrator, *trajectory, objective, space);
  if (const auto* checkpointed = dynamic_cast<const storage::CheckpointedTrajectory*>(trajectory.get()))
    run.statistics = checkpointed->statistics();
  return run;
}

void expect_identical(const adjoint::Gradient& a, const adjoint::Gradient& b) {
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.initial_coordinates, b.initial_coordinates);
  EXPECT_EQ(a.initial_velocities, b.initial_velocities);
}

void check_scheme(const std::string& scheme, long long steps) {
  auto problem = rigid_chain(6, 0.2, steps);
  problem.integrator.scheme = scheme;
  problem.integrator.newton_tolerance = 1e-12;
  const SweepResult memory = gradient(problem, 0);
  for (std::size_t slots : {1, 3, 7}) {
    const SweepResult checkpointed = gradient(problem, slots);
    SCOPED_TRACE(scheme + ", " + std::to_string(slots) + " slots");
    expect_identical(memory.gradient, checkpointed.gradient);
    const std::uint64_t optimum = storage::optimal_forward_steps(steps + 1, slots) - steps;
    EXPECT_EQ(checkpointed.statistics.recomputed_steps, optimum);
    if (world()->getRank() == 0)
      std::printf("%s, %lld steps, %zu slots: %llu steps recomputed (optimum %llu), %llu stores, %llu restores\n",
                  scheme.c_str(), steps, slots, static_cast<unsigned long long>(checkpointed.statistics.recomputed_steps),
                  static_cast<unsigned long long>(optimum),
                  static_cast<unsigned long long>(checkpointed.statistics.stores),
                  static_cast<unsigned long long>(checkpointed.statistics.restores));
  }
  // Enough slots for every state: nothing recomputed.
  EXPECT_EQ(gradient(problem, steps + 1).statistics.recomputed_steps, 0u);
  // A real gradient, not zeros compared with zeros.
  EXPECT_GT(std::abs(memory.gradient.parameters[model::ParameterSpace(*problem.model).find("link3.mass")]), 1e-6);
}

TEST(CheckpointedTrajectory, GeneralizedAlphaGradientIsBitIdentical) { check_scheme("generalized_alpha", 40); }
TEST(CheckpointedTrajectory, HhtGradientIsBitIdentical) { check_scheme("hht", 40); }
TEST(CheckpointedTrajectory, VariationalGradientIsBitIdentical) { check_scheme("variational", 40); }
TEST(CheckpointedTrajectory, StateSpaceGradientIsBitIdentical) { check_scheme("state_space", 40); }
TEST(CheckpointedTrajectory, HamiltonianGradientIsBitIdentical) { check_scheme("hamiltonian", 40); }

TEST(CheckpointedTrajectory, ContinuousAdjointIsBitIdentical) {
  auto problem = rigid_chain(6, 0.2, 60);
  problem.integrator.newton_tolerance = 1e-12;
  const SweepResult memory = gradient(problem, 0, 2);
  const SweepResult checkpointed = gradient(problem, 4, 2);
  expect_identical(memory.gradient, checkpointed.gradient);
  // The BDF start-up reads the last three steps first: a few steps more than the discrete sweep's optimum.
  EXPECT_GE(checkpointed.statistics.recomputed_steps, storage::optimal_forward_steps(61, 4) - 60);
  EXPECT_LE(checkpointed.statistics.recomputed_steps, storage::optimal_forward_steps(61, 4) - 60 + 3 * 60);
}

void check_disk_tier(const std::string& scheme, long long steps) {
  auto problem = rigid_chain(6, 0.2, steps);
  problem.integrator.scheme = scheme;
  problem.integrator.newton_tolerance = 1e-12;
  const SweepResult memory = gradient(problem, 0);
  struct Case {
    std::size_t slots, interval;
  };
  for (const Case c : {Case{3, 5}, Case{2, 7}, Case{4, 4}, Case{5, 40}, Case{1, 3}}) {
    SCOPED_TRACE(scheme + ", " + std::to_string(c.slots) + " slots, disk every " + std::to_string(c.interval));
    const SweepResult two_level = gradient(problem, c.slots, 0, c.interval);
    expect_identical(memory.gradient, two_level.gradient);
    const auto schedule = storage::binomial_schedule(steps, c.slots, c.interval);
    EXPECT_EQ(two_level.statistics.recomputed_steps, schedule.recomputed_steps);
    EXPECT_EQ(two_level.statistics.recomputed_steps, storage::two_level_recomputed_steps(steps, c.slots, c.interval));
    EXPECT_EQ(two_level.statistics.disk_writes, schedule.disk_writes);
    // The sweep's reads, and at most one more: step 0, asked for at the start of the sweep.
    EXPECT_GE(two_level.statistics.disk_reads, schedule.disk_reads);
    EXPECT_LE(two_level.statistics.disk_reads, schedule.disk_reads + 1);
  }
  // The files are removed with the trajectory (by rank 0, the last step first: wait for it).
  world()->barrier();
  EXPECT_FALSE(std::filesystem::exists("checkpointed_trajectory_test/checkpoint_0.h5"));
}

TEST(CheckpointedTrajectory, DiskTierGeneralizedAlphaIsBitIdentical) { check_disk_tier("generalized_alpha", 40); }
TEST(CheckpointedTrajectory, DiskTierVariationalIsBitIdentical) { check_disk_tier("variational", 40); }
TEST(CheckpointedTrajectory, DiskTierStateSpaceIsBitIdentical) { check_disk_tier("state_space", 40); }
TEST(CheckpointedTrajectory, DiskTierHamiltonianIsBitIdentical) { check_disk_tier("hamiltonian", 40); }

TEST(CheckpointedTrajectory, DiskTierContinuousAdjointIsBitIdentical) {
  auto problem = rigid_chain(6, 0.2, 60);
  problem.integrator.newton_tolerance = 1e-12;
  expect_identical(gradient(problem, 0, 2).gradient, gradient(problem, 3, 2, 8).gradient);
}

// A trajectory that stops the sweep (as a kill would) when it is asked for step `stop_at`.
class InterruptedTrajectory final : public storage::Trajectory {
 public:
  InterruptedTrajectory(storage::Trajectory& inner, std::size_t stop_at) : inner_(inner), stop_at_(stop_at) {}
  void begin_recording() override { inner_.begin_recording(); }
  void record(long long n, double t, const assembly::State& state) override { inner_.record(n, t, state); }
  void end_recording() override { inner_.end_recording(); }
  const std::vector<double>& step_times() const override { return inner_.step_times(); }
  const assembly::State& step(std::size_t n) override {
    if (n == stop_at_) throw std::runtime_error("interrupted");
    return inner_.step(n);
  }

 private:
  storage::Trajectory& inner_;
  std::size_t stop_at_;
};

// A sweep interrupted after its restart file of step 16 and resumed by a new integrator and trajectory (as
// `flexadj gradient --restart` in a new process) gives the gradient of an uninterrupted sweep bit for bit. With a
// disk interval of 10 the sweep saves after steps 32 and 16: once per interval, at multiples of
// TimeIntegrator::kFreshAdjointPivotsEvery, where the sweep's pivot search starts afresh.
void check_sweep_resumes(const std::string& scheme) {
  auto problem = rigid_chain(6, 0.2, 40);
  problem.integrator.scheme = scheme;
  problem.integrator.newton_tolerance = 1e-12;
  const SweepResult memory = gradient(problem, 0);
  const objectives::Objective objective = rigid_chain_objective();
  const model::ParameterSpace space(*problem.model);
  linalg::LinearSolverOptions options;
  // The default: the gathered KLU is bit-reproducible on several ranks, MUMPS only to round-off
  // (docs/performance.md, "Reproducibility"), and this test compares bits.
  options.kind = "auto";
  const storage::DiskCheckpoints disk{10, "sweep_resume_" + scheme, "sweep test"};
  assembly::Assembler assembler(*problem.model, world());
  auto initial = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), initial);
  try {
    const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
    storage::CheckpointedTrajectory trajectory(assembler, *integrator, 3, disk);
    auto state = initial;
    integrators::record_forward_run(assembler, *integrator, state, trajectory);
    InterruptedTrajectory interrupted(trajectory, 13);
    adjoint::SweepCheckpoints sweep(assembler, disk);
    adjoint::discrete_adjoint_gradient(assembler, *integrator, interrupted, objective, space, {&sweep, false});
    ADD_FAILURE() << "the sweep was not interrupted";
  } catch (const std::runtime_error& e) {
    ASSERT_STREQ(e.what(), "interrupted");
  }
  // The files of the interrupted run are there: the sweep's after step 16, the forward run's every 10 steps.
  EXPECT_TRUE(std::filesystem::exists(disk.adjoint_path(16)));
  EXPECT_FALSE(std::filesystem::exists(disk.adjoint_path(32)));  // superseded
  EXPECT_TRUE(std::filesystem::exists(disk.path(40)));
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  storage::CheckpointedTrajectory trajectory(assembler, *integrator, 3, disk);
  auto state = initial;
  integrators::resume_recorded_run(*integrator, state, trajectory);
  adjoint::SweepCheckpoints sweep(assembler, disk);
  ASSERT_EQ(sweep.latest(), std::optional<std::size_t>(16));
  const auto resumed =
      adjoint::discrete_adjoint_gradient(assembler, *integrator, trajectory, objective, space, {&sweep, true});
  expect_identical(memory.gradient, resumed);
  EXPECT_FALSE(std::filesystem::exists(disk.adjoint_path(16)));  // the completed sweep removed its file
}

TEST(CheckpointedTrajectory, GeneralizedAlphaSweepResumesBitIdentical) { check_sweep_resumes("generalized_alpha"); }
TEST(CheckpointedTrajectory, VariationalSweepResumesBitIdentical) { check_sweep_resumes("variational"); }
TEST(CheckpointedTrajectory, StateSpaceSweepResumesBitIdentical) { check_sweep_resumes("state_space"); }
TEST(CheckpointedTrajectory, HamiltonianSweepResumesBitIdentical) { check_sweep_resumes("hamiltonian"); }

}  // namespace
}  // namespace flexadj::testing
