#pragma once
// The distributed direct solver of the saddle-point systems: MUMPS (Amestoy et al. 2001) with the distributed
// assembled input (ICNTL(18) = 3) and distributed right-hand side and solution (ICNTL(20) = 10, ICNTL(21) = 1):
// each rank hands MUMPS its own rows of the Tpetra matrix and right-hand side, and nothing is gathered onto one
// rank. MUMPS is linked through its C interface: Debian's Amesos2 is built without its MUMPS adapter.
//
// The analysis (ordering of the graph, whose structure alone goes to rank 0 for it, ICNTL(28) = 1) is done once, at
// the first update(); every later update() factorizes with it (job 2), with MUMPS's threshold pivoting. A solver
// made with `transposed` factorizes A and solves A^T x = b (ICNTL(9) = 0), for the adjoint sweeps.
//
// Determinism: a repeated factorization of the same values at the same rank count gives the same bits, and so does
// a second solver on the same matrix (tests/mpi/test_linear_solver.cpp; checkpointed recomputation and restarts
// rely on it). Results at different rank counts agree to round-off, not bit for bit.
#include <memory>

#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::linalg {

// Collective over the matrix's communicator. `transposed`: solve with A^T (adjoint sweeps).
std::unique_ptr<LinearSolver> make_mumps_direct_solver(RCP<const CrsMatrix> matrix, bool transposed);

// MUMPS's error code INFOG(1) < 0 in words (for the messages of a failed analysis, factorization or solve).
std::string mumps_error_text(int infog1, int infog2);

}  // namespace flexadj::linalg
