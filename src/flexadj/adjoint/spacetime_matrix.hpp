#pragma once
// The spacetime adjoint system A (spacetime_system.hpp) as an assembled sparse matrix, for the direct reference
// solve of small problems (`--spacetime-solver direct`, Amesos2 KLU2; docs/adjoint.md, "The spacetime adjoint").
// A is I on the diagonal blocks and -Phi_n on the block above; Phi_n is dense (it holds the inverse of the step's
// transposed Jacobian), so its columns are probed: W products y = transfer(x) with x the k-th unit vector of the
// block width W in every block at once give column k of every Phi_n (W sweeps of all steps, W^2 N entries).
#include "flexadj/adjoint/spacetime_system.hpp"

namespace flexadj::adjoint {

// Rows and columns on system.map(). Collective.
RCP<CrsMatrix> assemble_spacetime_matrix(SpacetimeSystem& system);

}  // namespace flexadj::adjoint
