#pragma once
// The command-line options of the adjoint and of the trajectory storage, shared by `flexadj gradient`, `check`
// and `optimize`.
#include <string>
#include <vector>

#include "flexadj/gradient/adjoint_settings.hpp"

namespace flexadj::app {

// Reads the trajectory-storage option at arguments[i] (--trajectory, --trajectory-file, --checkpoints,
// --memory-limit, --disk-checkpoints, --checkpoint-folder) into `settings`, moving i past its value; false if arguments[i] is none of them. InputError for
// a missing or bad value. Shared by `flexadj gradient` and `flexadj optimize`; trajectory_options_help() says it.
bool read_trajectory_option(const std::vector<std::string>& arguments, std::size_t& i, AdjointSettings& settings);
std::string trajectory_options_help();
// The same for the spacetime adjoint's options (--time-slabs, --spacetime-solver, --spacetime-tolerance), shared by
// `flexadj gradient`, `check` and `optimize`.
bool read_spacetime_option(const std::vector<std::string>& arguments, std::size_t& i, AdjointSettings& settings);
std::string spacetime_options_help();

// The integrator kinds of the registry with what their gradients can do (for `flexadj gradient --help`).
std::string integrator_kinds_help();

}  // namespace flexadj::app
