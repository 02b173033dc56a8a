// The same model on all ranks of MPI_COMM_WORLD and on one rank gives the same trajectory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

double max_difference(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double worst = 0.0;
  for (std::size_t n = 0; n < a.size(); ++n)
    for (std::size_t i = 0; i < a[n].size(); ++i) worst = std::max(worst, std::abs(a[n][i] - b[n][i]));
  return worst;
}

TEST(RankIndependence, RigidChainMatchesTheSingleRankRun) {
  auto problem = rigid_chain(8, 0.5, 250);
  const Trajectory distributed = run(problem, world());
  const Trajectory serial = run(problem, self());
  ASSERT_EQ(distributed.q.size(), serial.q.size());
  EXPECT_LT(max_difference(distributed.q, serial.q), 1e-12);
  EXPECT_LT(max_difference(distributed.v, serial.v), 1e-10);
  // Multipliers are iterated as beta h^2 lambda: round-off in the last Newton increment is divided by
  // beta h^2 (about 1e-6 here), so compare them relative to their size.
  double lambda_scale = 0.0;
  for (const auto& step : serial.lambda)
    for (double value : step) lambda_scale = std::max(lambda_scale, std::abs(value));
  EXPECT_LT(max_difference(distributed.lambda, serial.lambda) / lambda_scale, 1e-8);
  EXPECT_LE(distributed.summary.max_constraint_residual, 1e-10);
  // The chain moved: the test compares a real motion.
  EXPECT_GT(std::abs(distributed.q.back()[0] - distributed.q.front()[0]), 1e-2);
}

// The variational integrator (integrators/variational.hpp) on the rigid chain and on the flying spaghetti beam
// (meshes/flying_spaghetti.yaml, through the end of its load at t = 2.5): the same trajectory at any rank count.
void expect_same_variational_trajectory(const problem::Problem& problem, const char* what) {
  const Trajectory distributed = run(problem, world());
  const Trajectory serial = run(problem, self());
  ASSERT_EQ(distributed.q.size(), serial.q.size());
  const double q_difference = max_difference(distributed.q, serial.q);
  const double v_difference = max_difference(distributed.v, serial.v);
  double lambda_scale = 0.0;
  for (const auto& step : serial.lambda)
    for (double value : step) lambda_scale = std::max(lambda_scale, std::abs(value));
  const double lambda_difference = max_difference(distributed.lambda, serial.lambda) / lambda_scale;
  std::printf("%s, variational, np %d vs 1: max |dq| = %.2e, max |dv| = %.2e, max |d lambda| / max |lambda| = %.2e\n",
              what, world()->getSize(), q_difference, v_difference, lambda_difference);
  EXPECT_LT(q_difference, 1e-10);
  EXPECT_LT(v_difference, 1e-10);
  // The multipliers of a stiff beam carry cond(A) eps: MUMPS (np 2) and KLU (np 1) pivot differently, and the
  // flying spaghetti's differ by 1.7e-10 of their largest (q and v by 3e-14 and 4e-12).
  EXPECT_LT(lambda_difference, 1e-9);
  EXPECT_LE(distributed.summary.max_constraint_residual, 1e-10);
  EXPECT_GT(std::abs(distributed.q.back()[0] - distributed.q.front()[0]), 1e-2);  // it moved
}

TEST(RankIndependence, VariationalRigidChainMatchesTheSingleRankRun) {
  auto problem = rigid_chain(8, 0.5, 250);
  problem.integrator.scheme = "variational";
  expect_same_variational_trajectory(problem, "rigid chain");
}

TEST(RankIndependence, VariationalBeamMatchesTheSingleRankRun) {
  const auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/flying_spaghetti.yaml",
                                             {"integrator.end_time=3"});
  ASSERT_EQ(problem.integrator.scheme, "variational");
  expect_same_variational_trajectory(problem, "flying spaghetti");
}

// Belos GMRES + Ifpack2 block Jacobi/KLU2 reaches the direct solution to the Newton tolerance.
TEST(RankIndependence, IterativeSolverMatchesTheDirectSolver) {
  auto problem = rigid_chain(8, 0.2, 100);
  const Trajectory iterative = run(problem, world(), true, "iterative");
  const Trajectory direct = run(problem, self(), true, "direct");
  ASSERT_EQ(iterative.q.size(), direct.q.size());
  EXPECT_LT(max_difference(iterative.q, direct.q), 1e-9);
  EXPECT_LE(iterative.summary.max_constraint_residual, 1e-10);
}

}  // namespace
}  // namespace flexadj::testing
