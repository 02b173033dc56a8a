// The linear-solver facade on a non-symmetric saddle-point-like matrix distributed over the ranks:
// A x = b and A^T x = b, checked by the true residual.
#include <gtest/gtest.h>

#include <cmath>

#include "flexadj/core/error.hpp"
#include "flexadj/linalg/linear_solver.hpp"
#include "simulation_support.hpp"
#include "test_matrices.hpp"

namespace flexadj::testing {
namespace {


double relative_residual(const CrsMatrix& A, const Vector& x, const Vector& b, Teuchos::ETransp mode) {
  Vector r(b.getMap());
  A.apply(x, r, mode);
  r.update(1.0, b, -1.0);
  return r.norm2() / b.norm2();
}

TEST(LinearSolver, AutoGathersSmallSystemsAndDistributesLargeOnes) {
  using linalg::chosen_linear_solver;
  EXPECT_EQ(chosen_linear_solver("auto", 1000000, 1), "klu");
  EXPECT_EQ(chosen_linear_solver("auto", linalg::kAutoGatheredRows, 2), "klu_gathered");
  EXPECT_EQ(chosen_linear_solver("auto", linalg::kAutoGatheredRows + 1, 2), "iterative");
  EXPECT_EQ(chosen_linear_solver("direct", 10, 2), "mumps");
  EXPECT_EQ(chosen_linear_solver("klu_gathered", 1000000, 4), "klu_gathered");
  EXPECT_EQ(chosen_linear_solver("iterative", 10, 2), "iterative");
  EXPECT_THROW(chosen_linear_solver("lu", 10, 2), InputError);
}

TEST(LinearSolver, DirectSolvesAndTransposedSolves) {
  auto map = rcp(new Map(200, 0, world()));
  auto A = make_matrix(map);
  Vector b(map), x(map);
  b.randomize();
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  auto solver = linalg::make_linear_solver(A, options);
  solver->update();
  solver->solve(b, x);
  EXPECT_LT(relative_residual(*A, x, b, Teuchos::NO_TRANS), 1e-13);
  options.transposed = true;
  auto transposed = linalg::make_linear_solver(A, options);
  transposed->update();
  transposed->solve(b, x);
  EXPECT_LT(relative_residual(*A, x, b, Teuchos::TRANS), 1e-13);
  // The transposed solution is not the plain one (the matrix is not symmetric).
  EXPECT_GT(relative_residual(*A, x, b, Teuchos::NO_TRANS), 1e-3);
  // New values on the same graph are taken by update().
  A->resumeFill();
  A->scale(2.0);
  A->fillComplete();
  transposed->update();
  transposed->solve(b, x);
  EXPECT_LT(relative_residual(*A, x, b, Teuchos::TRANS), 1e-13);
}

// Both direct kinds: `direct` (KLU on one rank, MUMPS distributed on several) and `klu_gathered`.
class DirectSolvers : public ::testing::TestWithParam<std::string> {};

TEST_P(DirectSolvers, SolveAndTransposedSolveToRoundOff) {
  auto map = rcp(new Map(300, 0, world()));
  auto A = make_matrix(map);
  Vector b(map), x(map);
  b.randomize();
  linalg::LinearSolverOptions options;
  options.kind = GetParam();
  for (bool transposed : {false, true}) {
    options.transposed = transposed;
    auto solver = linalg::make_linear_solver(A, options);
    solver->update();
    solver->solve(b, x);
    EXPECT_LT(relative_residual(*A, x, b, transposed ? Teuchos::TRANS : Teuchos::NO_TRANS), 1e-13);
    EXPECT_EQ(solver->counts().solves, 1);
  }
}

TEST_P(DirectSolvers, RepeatedFactorizationGivesTheSameBits) {
  // Checkpointed recomputation and restarts repeat steps and expect the same bits from the same values.
  auto map = rcp(new Map(300, 0, world()));
  auto A = make_matrix(map);
  Vector b(map), x1(map), x2(map);
  b.randomize();
  linalg::LinearSolverOptions options;
  options.kind = GetParam();
  auto solver = linalg::make_linear_solver(A, options);
  solver->update();
  solver->solve(b, x1);
  for (int k = 0; k < 3; ++k) {
    solver->update(linalg::Pivots::Fresh);
    solver->solve(b, x2);
    const auto a1 = x1.getData(0), a2 = x2.getData(0);
    for (std::size_t i = 0; i < a1.size(); ++i) ASSERT_EQ(a1[i], a2[i]) << "entry " << i << ", repetition " << k;
  }
  // A second solver on the same matrix gives the same bits too.
  auto other = linalg::make_linear_solver(A, options);
  other->update();
  other->solve(b, x2);
  const auto a1 = x1.getData(0), a2 = x2.getData(0);
  for (std::size_t i = 0; i < a1.size(); ++i) ASSERT_EQ(a1[i], a2[i]) << "entry " << i << ", second solver";
}

// Puts the values of `source` (same graph) into `target`.
void copy_values(const CrsMatrix& source, CrsMatrix& target) {
  target.resumeFill();
  const auto from = source.getLocalMatrixHost().values;
  auto to = target.getLocalMatrixHost().values;
  for (std::size_t k = 0; k < from.extent(0); ++k) to(k) = from(k);
  target.fillComplete();
}

TEST_P(DirectSolvers, SolutionDoesNotDependOnTheValuesOfEarlierFactorizations) {
  // A restarted run makes its solver at another step than the uninterrupted run did: its first factorization
  // (and the analysis that comes with it) sees other values. The same matrix must still give the same bits.
  auto map = rcp(new Map(300, 0, world()));
  const auto early = make_matrix(map, 25.0), late = make_matrix(map);
  auto A = make_matrix(map);
  Vector b(map), x1(map), x2(map);
  b.randomize();
  linalg::LinearSolverOptions options;
  options.kind = GetParam();
  for (bool transposed : {false, true}) {
    options.transposed = transposed;
    copy_values(*early, *A);
    auto uninterrupted = linalg::make_linear_solver(A, options);
    uninterrupted->update();
    copy_values(*late, *A);
    uninterrupted->update(linalg::Pivots::Fresh);
    uninterrupted->solve(b, x1);
    auto restarted = linalg::make_linear_solver(A, options);
    restarted->update();
    restarted->solve(b, x2);
    const auto a1 = x1.getData(0), a2 = x2.getData(0);
    for (std::size_t i = 0; i < a1.size(); ++i)
      ASSERT_EQ(a1[i], a2[i]) << "entry " << i << (transposed ? ", transposed" : "");
  }
}

TEST_P(DirectSolvers, SingularMatrixIsASolverErrorOnEveryRank) {
  auto map = rcp(new Map(50, 0, world()));
  auto A = make_matrix(map);
  A->resumeFill();
  A->setAllToScalar(0.0);
  A->fillComplete();
  linalg::LinearSolverOptions options;
  options.kind = GetParam();
  auto solver = linalg::make_linear_solver(A, options);
  try {
    solver->update();
    FAIL() << "a zero matrix was factorized";
  } catch (const SolverError& error) {
    EXPECT_NE(std::string(error.what()).find("singular"), std::string::npos) << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, DirectSolvers, ::testing::Values("direct", "klu_gathered"));

TEST(LinearSolver, DirectIsMumpsOnSeveralRanksAndAgreesWithGatheredKlu) {
  auto map = rcp(new Map(400, 0, world()));
  auto A = make_matrix(map);
  Vector b(map), x_direct(map), x_gathered(map);
  b.randomize();
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  auto direct = linalg::make_linear_solver(A, options);
  EXPECT_EQ(direct->description().find("MUMPS") != std::string::npos, world()->getSize() > 1)
      << direct->description();
  options.kind = "klu_gathered";
  auto gathered = linalg::make_linear_solver(A, options);
  direct->update();
  direct->solve(b, x_direct);
  gathered->update();
  gathered->solve(b, x_gathered);
  x_direct.update(-1.0, x_gathered, 1.0);
  EXPECT_LT(x_direct.norm2(), 1e-13 * x_gathered.norm2());
}

}  // namespace
}  // namespace flexadj::testing
