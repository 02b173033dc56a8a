#pragma once
// The command-line options of the adjoint and of the trajectory storage, shared by `flexadj gradient`, `check`
// and `optimize`.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
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

// The positive number (an integer if `integer`) of option `option`; InputError naming the option otherwise.
template <class T>
T parse_positive(const std::string& option, const std::string& text, bool integer) {
  try {
    std::size_t used = 0;
    const double x = std::stod(text, &used);
    if (used == text.size() && x > 0.0 && std::isfinite(x) && (!integer || x == std::floor(x))) return static_cast<T>(x);
  } catch (const std::exception&) {
  }
  throw InputError("", option, std::string("expected a positive ") + (integer ? "integer" : "number") + ", got '" +
                                   text + "'");
}

// The integrator kinds of the registry with what their gradients can do (for `flexadj gradient --help`).
std::string integrator_kinds_help();

}  // namespace flexadj::app
