#pragma once
// The direct solver of the saddle-point systems: KLU2 on rank 0 of the matrix gathered from all ranks. Debian's
// Amesos2 KLU2 returns wrong solutions on a distributed matrix (docs/platform.md), and the gathered system is the
// same at any rank count, so results agree across rank counts. The structure (and KLU2's ordering) is built once;
// update() gathers the values straight into the factorization's arrays through a precomputed permutation.
#include <memory>

#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::linalg {

// `transposed`: factorize and solve with A^T (adjoint sweeps).
std::unique_ptr<LinearSolver> make_gathered_direct_solver(RCP<const CrsMatrix> matrix, bool transposed);

}  // namespace flexadj::linalg
