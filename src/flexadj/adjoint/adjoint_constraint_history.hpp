#pragma once
// The constraint an adjoint of the constrained Hamiltonian equations keeps: D^T xi = C_q xi = 0 ([MMF22] eq. (28);
// Maciag, Malczyk and Fraczek 2022, docs/references.md), recorded along a backward sweep: the kind of the paper's
// Fig. 7. The redundant-coordinate adjoint (hamiltonian_continuous_adjoint.hpp) holds it up to its integration
// error; the joint-coordinate one (joint_space_continuous_adjoint.hpp, xi = H xi_hat, eq. (27a)) by construction.
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::adjoint {

struct AdjointConstraintHistory {
  std::vector<double> times;       // the forward grid, increasing
  std::vector<double> violations;  // max |C_q xi| over all ranks at each time
  std::vector<double> magnitudes;  // max |xi| over all ranks at each time

  // Sized for `count` times, zero.
  void reset(std::size_t count);
  // Entry `step`: time t, max |C_q(q) xi| (the velocity-level constraint at v = xi less its value at v = 0) and
  // max |xi| (xi: owned coordinates). `work`: a state of the assembler. Collective.
  void record(assembly::Assembler& assembler, std::size_t step, double t, const std::vector<double>& q,
              const std::vector<double>& xi, assembly::State& work);
};

}  // namespace flexadj::adjoint
