// The linear-solver facade on a non-symmetric saddle-point-like matrix distributed over the ranks:
// A x = b and A^T x = b, checked by the true residual.
#include <gtest/gtest.h>

#include <cmath>

#include "flexadj/linalg/linear_solver.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

// Tridiagonal, non-symmetric, with a zero diagonal in every fifth row (like multiplier rows).
RCP<CrsMatrix> make_matrix(RCP<const Map> map) {
  auto matrix = rcp(new CrsMatrix(map, 3));
  const long long n = static_cast<long long>(map->getGlobalNumElements());
  for (std::size_t local = 0; local < map->getNodeNumElements(); ++local) {
    const GlobalOrdinal row = map->getGlobalElement(static_cast<LocalOrdinal>(local));
    std::vector<GlobalOrdinal> columns;
    std::vector<double> values;
    if (row > 0) { columns.push_back(row - 1); values.push_back(-1.0 - 0.01 * double(row)); }
    columns.push_back(row);
    values.push_back(row % 5 == 4 ? 0.0 : 4.0 + 0.1 * double(row % 3));
    if (row + 1 < n) { columns.push_back(row + 1); values.push_back(2.0 + 0.02 * double(row)); }
    matrix->insertGlobalValues(row, Teuchos::ArrayView<const GlobalOrdinal>(columns.data(), columns.size()),
                               Teuchos::ArrayView<const double>(values.data(), values.size()));
  }
  matrix->fillComplete();
  return matrix;
}

double relative_residual(const CrsMatrix& A, const Vector& x, const Vector& b, Teuchos::ETransp mode) {
  Vector r(b.getMap());
  A.apply(x, r, mode);
  r.update(1.0, b, -1.0);
  return r.norm2() / b.norm2();
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

}  // namespace
}  // namespace flexadj::testing
