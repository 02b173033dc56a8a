// The interface Schur complement preconditioner (linalg/interface_schur_klu.hpp) is the exact inverse: on a
// non-symmetric tridiagonal matrix with zero diagonals and on a rigid chain's Newton and projection matrices, at
// np 1, 2 and 4, y = P b solves A y = b with a backward error of round-off. (GMRES's one iteration with it is
// checked by tests/cli/test_iterative_ranks.sh.)
#include <gtest/gtest.h>

#include <cmath>

#include "flexadj/linalg/interface_schur_klu.hpp"
#include "flexadj/assembly/assembler.hpp"
#include "models.hpp"
#include "simulation_support.hpp"
#include "test_matrices.hpp"

namespace flexadj::testing {
namespace {

// The normwise backward error |b - A y| / (|A|_F |y| + |b|) of y = P b for a random b (Rigal and Gaches 1967):
// round-off if P is the inverse. (The Newton matrix's condition number is about 1e9: |P A x - x| / |x| would
// measure it, not P.)
double inverse_error(const CrsMatrix& A, const linalg::InterfaceSchurKlu& P) {
  Vector b(A.getRowMap()), y(A.getRowMap()), r(A.getRowMap());
  b.randomize();
  P.apply(b, y);
  A.apply(y, r);
  r.update(1.0, b, -1.0);
  return r.norm2() / (A.getFrobeniusNorm() * y.norm2() + b.norm2());
}

TEST(InterfaceSchur, InvertsATridiagonalMatrix) {
  auto map = rcp(new Map(200, 0, world()));
  auto A = make_matrix(map);
  linalg::InterfaceSchurKlu P(A, static_cast<int>(map->getNodeNumElements()));
  P.update(linalg::Pivots::Fresh);
  EXPECT_EQ(P.interface_rows(), 2 * (world()->getSize() - 1));
  const double error = inverse_error(*A, P);
  EXPECT_LT(error, 1e-13);
  if (world()->getRank() == 0) std::printf("tridiagonal, %d ranks: backward error = %.1e\n", world()->getSize(), error);
}

}  // namespace
}  // namespace flexadj::testing

namespace flexadj::testing {
namespace {

// The Newton matrix of a generalized-alpha step (coefficients of h = 1e-3) of a 40-link chain and the matrix of
// the projection of its initial positions.
TEST(InterfaceSchur, InvertsAChainsNewtonAndProjectionMatrices) {
  const auto problem = rigid_chain(40, 0.1, 10);
  assembly::Assembler assembler(*problem.model, world());
  assembly::State state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  const int coordinates = static_cast<int>(assembler.dofs().owned_coordinates().size());
  for (const bool projection : {false, true}) {
    const model::JacobianCoefficients coefficients{1.0, 2e3, 4e6};
    if (projection) assembler.assemble(state, 0.0, assembly::ConstraintLevel::Position, 1.0, &coefficients, &state.q);
    else assembler.assemble(state, 0.0, assembly::ConstraintLevel::Position, 1.0, &coefficients);
    linalg::InterfaceSchurKlu P(assembler.matrix(), coordinates);
    P.update(linalg::Pivots::Fresh);
    const double error = inverse_error(*assembler.matrix(), P);
    EXPECT_LT(error, 1e-14);
    if (world()->getRank() == 0)
      std::printf("chain %s matrix, %d ranks, %lld interface rows: backward error = %.1e\n",
                  projection ? "projection" : "Newton", world()->getSize(), P.interface_rows(), error);
  }
}

}  // namespace
}  // namespace flexadj::testing
