#pragma once
// The continuous J's rate at its end, for a final time that moves (Bestle and Eberhard 1992, eqs. (43)-(51); the
// continuous adjoint, adjoint/continuous_adjoint.cpp): J = S(y(t1), t1) + int F dt. Defined in objective.cpp.
#include "flexadj/objectives/objective.hpp"

namespace flexadj::objectives {

// This rank's integrand F(x, t) at a state (terms on states; control effort on rank 0). Not collective.
double local_integrand_value(const Objective& objective, const assembly::Assembler& assembler, double t,
                             const assembly::State& state);
// The explicit dS/dt of the terminal terms: the summed weights of the final-time terms.
double final_time_weight(const Objective& objective);

}  // namespace flexadj::objectives
