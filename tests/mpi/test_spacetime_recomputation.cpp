// The spacetime adjoint over disk checkpoints (adjoint/slab_states.hpp): each time group recomputes its slabs'
// states from the disk checkpoint at or below its first slab. The gradient equals the sequential sweep's to 1e-10
// and, in one group (the forward run's ranks and integrator), the spacetime gradient from a memory trajectory bit
// for bit; each group takes exactly the steps from its checkpoint to one beyond its last slab, and the
// checkpointed trajectory itself is never swept (no step recomputed or file read through it). Both integrators,
// P = 2 and 4, a disk interval that divides the slab starts (10) and one that does not (7), one group or one per
// rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/adjoint/spacetime_adjoint.hpp"
#include "flexadj/adjoint/spacetime_system.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "gradient_support.hpp"
#include "models.hpp"
#include "spacetime_models.hpp"

namespace flexadj::testing {
namespace {

// The largest relative difference over every kind of design variable.
double gradient_difference(const adjoint::Gradient& a, const adjoint::Gradient& b) {
  double worst = std::max({relative_difference(a.parameters, b.parameters),
                           relative_difference(a.initial_coordinates, b.initial_coordinates),
                           relative_difference(a.initial_velocities, b.initial_velocities)});
  EXPECT_EQ(a.controls.size(), b.controls.size());
  for (const auto& [name, values] : b.controls)
    worst = std::max(worst, relative_difference(a.controls.at(name), values));
  return worst;
}

bool bit_equal(const adjoint::Gradient& a, const adjoint::Gradient& b) {
  return a.objective == b.objective && a.parameters == b.parameters && a.controls == b.controls &&
         a.initial_coordinates == b.initial_coordinates && a.initial_velocities == b.initial_velocities;
}

void check(const std::string& scheme, std::size_t interval) {
  const auto problem = cart_pendulum(scheme, 0.2);
  const model::Model& model = *problem.model;
  const objectives::Objective objective = cart_objective();
  assembly::Assembler assembler(model, world());
  linalg::LinearSolverOptions solver_options;
  // The default: the gathered KLU is bit-reproducible on several ranks, MUMPS only to round-off
  // (docs/performance.md, "Reproducibility"), and this test compares bits.
  solver_options.kind = "auto";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, solver_options);
  const model::ParameterSpace space(model);

  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  storage::MemoryTrajectory memory;
  integrators::record_forward_run(assembler, *integrator, state, memory);
  const adjoint::Gradient sequential = adjoint::discrete_adjoint_gradient(assembler, *integrator, memory, objective,
                                                                          space);
  const std::size_t steps = memory.step_count() - 1;
  ASSERT_EQ(steps, 40u);
  std::vector<adjoint::SpacetimeOptions> options;
  for (std::size_t slabs : {2, 4})
    for (std::size_t groups : {std::size_t(1), std::size_t(0)}) {  // one group; one group per rank
      if (groups == 0 && world()->getSize() == 1) continue;
      adjoint::SpacetimeOptions option;
      option.slabs = slabs;
      option.groups = groups;
      options.push_back(option);
    }
  std::vector<adjoint::Gradient> from_memory;
  for (const auto& option : options)
    from_memory.push_back(
        adjoint::spacetime_adjoint_gradient(assembler, *integrator, memory, objective, space, option));

  const storage::DiskCheckpoints disk{interval,
                                      "spacetime_recomputation_np" + std::to_string(world()->getSize()) + "_" + scheme,
                                      "spacetime recomputation test"};
  storage::CheckpointedTrajectory checkpointed(assembler, *integrator, 3, disk);
  state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  integrators::record_forward_run(assembler, *integrator, state, checkpointed);
  for (std::size_t k = 0; k < options.size(); ++k) {
    adjoint::SpacetimeStatistics s;
    const adjoint::Gradient gradient = adjoint::spacetime_adjoint_gradient(assembler, *integrator, checkpointed,
                                                                           objective, space, options[k], &s);
    const std::string what = scheme + ", disk interval " + std::to_string(interval) + ", " +
                             std::to_string(s.slabs) + " slabs in " + std::to_string(s.groups) + " groups";
    ASSERT_TRUE(s.recomputed) << what;
    ASSERT_EQ(s.group_recomputed_steps.size(), s.groups) << what;
    // Group g: from floor((first - 1) / m) m to min(last + 1, N), its slabs' first and last steps.
    const auto slabs = adjoint::make_slabs(steps, s.slabs);
    std::string counts;
    for (std::size_t g = 0; g < s.groups; ++g) {
      const std::size_t first = slabs[g * s.slabs / s.groups].first;
      const std::size_t last = slabs[(g + 1) * s.slabs / s.groups - 1].last;
      const std::size_t checkpoint = (first - 1) / interval * interval;
      EXPECT_EQ(s.group_checkpoints[g], checkpoint) << what << ", group " << g;
      EXPECT_EQ(s.group_recomputed_steps[g], std::min(last + 1, steps) - checkpoint) << what << ", group " << g;
      counts += " " + std::to_string(s.group_recomputed_steps[g]) + " (from " + std::to_string(checkpoint) + ")";
    }
    const double to_sequential = gradient_difference(gradient, sequential);
    const double to_memory = gradient_difference(gradient, from_memory[k]);
    EXPECT_LT(to_sequential, 1e-10) << what;
    EXPECT_NEAR(gradient.objective, sequential.objective, 1e-12 * std::abs(sequential.objective)) << what;
    if (s.groups == 1) EXPECT_TRUE(bit_equal(gradient, from_memory[k])) << what << ": " << to_memory;
    else EXPECT_LT(to_memory, 1e-10) << what;
    if (world()->getRank() == 0)
      std::printf("%s: steps recomputed per group%s; differs from the sequential sweep by %.2e, from the memory "
                  "trajectory's spacetime gradient by %.2e%s\n",
                  what.c_str(), counts.c_str(), to_sequential, to_memory,
                  bit_equal(gradient, from_memory[k]) ? " (bit for bit equal)" : "");
  }
  // The checkpointed trajectory itself was not swept: its files were read by the groups only.
  EXPECT_EQ(checkpointed.statistics().recomputed_steps, 0u);
  EXPECT_EQ(checkpointed.statistics().disk_reads, 0u);
}

// Files every 10 steps: the groups start at their slabs (P = 2, 4 at np 2: steps 0 and 20).
TEST(SpacetimeRecomputation, GeneralizedAlphaFromCheckpointsAtTheSlabs) { check("generalized_alpha", 10); }

// Files every 7 steps: a group starts at the file below its slabs (step 14 for 20).
TEST(SpacetimeRecomputation, VariationalFromCheckpointsBelowTheSlabs) { check("variational", 7); }

}  // namespace
}  // namespace flexadj::testing

namespace flexadj::testing {
namespace {

// The gradient command's disk interval for the spacetime adjoint: the least divisor of the groups' first steps
// not below the interval otherwise chosen, or that interval if none.
TEST(SpacetimeRecomputation, DiskIntervalDividesTheGroupsFirstSteps) {
  EXPECT_EQ(adjoint::group_first_steps(300, 8, 2), (std::vector<std::size_t>{0, 152}));
  EXPECT_EQ(adjoint::slab_compatible_interval(300, 8, 2, 31), 38u);    // 152 = 4 x 38
  EXPECT_EQ(adjoint::slab_compatible_interval(300, 6, 2, 301), 301u);  // 150 < 301: the file below
  EXPECT_EQ(adjoint::slab_compatible_interval(40, 4, 2, 7), 10u);      // first steps 0, 20
  EXPECT_EQ(adjoint::slab_compatible_interval(40, 4, 4, 7), 10u);      // 0, 10, 20, 30
  EXPECT_EQ(adjoint::slab_compatible_interval(40, 4, 1, 7), 7u);       // one group: step 0
  EXPECT_EQ(adjoint::slab_compatible_interval(40, 4, 2, 0), 0u);       // no disk tier
}

}  // namespace
}  // namespace flexadj::testing
