// Bodies partitioned over ranks by a graph partition (Zoltan2 with Scotch, assembly/body_partition.hpp): on a model
// whose body numbering jumps, it cuts a few couplings where contiguous blocks cut half of them, and the trajectory
// and the gradient are those of the one-rank run.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "flexadj/assembly/body_partition.hpp"
#include "gradient_support.hpp"

namespace flexadj::testing {
namespace {

// Two chains of point masses joined by springs, each pinned to ground by a rod at its first mass, their bodies listed
// odd links of both chains first, then the even ones, so that contiguous blocks split every spring.
problem::Problem shuffled_chains(const std::string& partition) {
  constexpr int kLinks = 24;
  std::ostringstream yaml;
  yaml << "dimension: 2\ngravity: [0, -9.81]\n"
       << "integrator: {type: generalized_alpha, end_time: 0.05, step_size: 0.001, linear_solver: direct, partition: "
       << partition << "}\nbodies:\n";
  for (int parity = 1; parity >= 0; --parity)
    for (int chain = 0; chain < 2; ++chain)
      for (int k = 1; k <= kLinks; ++k)
        if (k % 2 == parity)
          yaml << "  - {name: c" << chain << "m" << k << ", type: point_mass, mass: " << 1.0 + 0.01 * k
               << ", position: [" << 0.1 * k << ", " << (chain == 0 ? 0.0 : -1.0) + 0.001 * (k % 3) << "]}\n";
  yaml << "forces:\n";
  for (int chain = 0; chain < 2; ++chain)
    for (int k = 2; k <= kLinks; ++k)
      yaml << "  - {name: c" << chain << "s" << k << ", type: spring_damper, bodies: [c" << chain << "m" << k - 1
           << ", c" << chain << "m" << k << "], stiffness: " << 1000.0 + 10.0 * k << ", damping: 0.5, free_length: 0.1}\n";
  yaml << "joints:\n";
  for (int chain = 0; chain < 2; ++chain)
    yaml << "  - {name: c" << chain << "pin, type: distance, bodies: [ground, c" << chain << "m1], points: [[0, "
         << (chain == 0 ? 0.0 : -1.0) << "], [0.1, " << (chain == 0 ? 0.0 : -1.0) + 0.001 << "]]}\n";
  return io::read_problem_string(yaml.str(), "shuffled_chains.yaml");
}

objectives::Objective last_mass_height() {
  objectives::Objective objective;
  objectives::ObjectiveTerm term;
  term.kind = objectives::ObjectiveTerm::Kind::FinalValue;
  term.coordinate = 2 * 47 + 1;  // y of the last body listed (c1m24)
  objective.add(term);
  return objective;
}

TEST(Partition, GraphCutsFewCouplingsWhereBlocksCutHalf) {
  const problem::Problem problem = shuffled_chains("graph");
  const model::Model& model = *problem.model;
  const auto blocks = assembly::partition_bodies(model, *world(), assembly::Partition::Blocks);
  const auto graph = assembly::partition_bodies(model, *world(), assembly::Partition::Graph);
  const long long components = static_cast<long long>(model.force_elements().size() + model.constraints().size());
  if (world()->getSize() == 1) {
    EXPECT_EQ(assembly::cut_components(model, graph), 0);
    return;
  }
  // Blocks split every spring (odd and even masses lie in different halves: 46 of the 48 components); a graph
  // partition into two parts needs to cut none (one chain a part) or one.
  EXPECT_GE(assembly::cut_components(model, blocks), 40);
  EXPECT_LE(assembly::cut_components(model, graph), 2);
  // Balanced: each rank owns between 40 % and 60 % of the bodies.
  int on_zero = 0;
  for (int rank : graph) on_zero += rank == 0;
  EXPECT_GE(on_zero, 0.4 * graph.size());
  EXPECT_LE(on_zero, 0.6 * graph.size());
  EXPECT_GT(components, 0);
}

TEST(Partition, GraphPartitionGivesTheSingleRankTrajectoryAndGradient) {
  const problem::Problem problem = shuffled_chains("graph");
  const Trajectory distributed = run(problem, world());
  const Trajectory serial = run(problem, self());
  ASSERT_EQ(distributed.q.size(), serial.q.size());
  double difference = 0.0, motion = 0.0;
  for (std::size_t n = 0; n < serial.q.size(); ++n)
    for (std::size_t i = 0; i < serial.q[n].size(); ++i) {
      difference = std::max(difference, std::abs(distributed.q[n][i] - serial.q[n][i]));
      motion = std::max(motion, std::abs(serial.q[n][i] - serial.q[0][i]));
    }
  EXPECT_LT(difference, 1e-12);
  EXPECT_GT(motion, 1e-4);  // it moved

  const objectives::Objective objective = last_mass_height();
  const Evaluation a = evaluate(problem, objective, world(), true);
  const Evaluation b = evaluate(problem, objective, self(), true);
  EXPECT_NEAR(a.value, b.value, 1e-13 * std::abs(b.value));
  ASSERT_EQ(a.gradient.parameters.size(), b.gradient.parameters.size());
  double scale = 0.0, worst = 0.0;
  for (std::size_t k = 0; k < b.gradient.parameters.size(); ++k) {
    scale = std::max(scale, std::abs(b.gradient.parameters[k]));
    worst = std::max(worst, std::abs(a.gradient.parameters[k] - b.gradient.parameters[k]));
  }
  ASSERT_GT(scale, 0.0);
  EXPECT_LT(worst, 1e-10 * scale);
}

}  // namespace
}  // namespace flexadj::testing
