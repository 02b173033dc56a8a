#pragma once
// ROL's methods behind flexadj optimize (lbfgs, trust_region, newton_krylov, gauss_newton; with constraints ROL's
// augmented Lagrangian): the problem handed to ROL::Solver, the replay of a recorded run for --restart, and our
// stopping rules inside ROL's iteration.
#include <vector>

#include "flexadj/optimization/iteration_monitor.hpp"

namespace flexadj::optimization::detail {

// Minimises f from x with the ROL method of s.method; x becomes the monitor's last iterate.
void run_rol(Function& f, std::vector<double>& x, const Settings& s, Monitor& monitor);

}  // namespace flexadj::optimization::detail
