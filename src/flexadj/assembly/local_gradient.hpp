#pragma once
// The rank-local sums of a backward sweep: mu . dR/dp for the components' parameters (numbered as
// model::ParameterSpace: force elements first, then constraints) and mu . dR/du for every value of every
// control signal. Integrators' adjoint steps and the assembler's parameter products add into it; the adjoint
// reduces it over the ranks.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::assembly {

struct LocalGradient {
  // First parameter index of each force element / constraint, -1 where none of its parameters is wanted (its
  // dR/dp is then not evaluated).
  std::vector<int> force_offsets, constraint_offsets;
  // The wanted parameters of each component (model::ParameterSpace::gradient_force_masks()).
  std::vector<model::ParameterMask> force_masks, constraint_masks;
  std::vector<double> parameters;
  std::map<std::string, std::vector<double>> controls;
  // True if some constraint has wanted parameters (the same on every rank: the layout is global).
  bool constraint_parameters() const {
    for (int offset : constraint_offsets)
      if (offset >= 0) return true;
    return false;
  }
  // Sums nobody reads (the spacetime adjoint's operator products): an adjoint step may leave them out.
  bool discarded = false;

  void clear() {
    std::fill(parameters.begin(), parameters.end(), 0.0);
    for (auto& [name, values] : controls) std::fill(values.begin(), values.end(), 0.0);
  }
  // this += weight * other (the same layout: both from one ParameterSpace).
  void add_scaled(double weight, const LocalGradient& other) {
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] += weight * other.parameters[i];
    for (auto& [name, values] : controls) {
      const std::vector<double>& from = other.controls.at(name);
      for (std::size_t k = 0; k < values.size(); ++k) values[k] += weight * from[k];
    }
  }

  LocalGradient(const model::Model& model, std::vector<int> force_offsets_, std::vector<int> constraint_offsets_,
                std::vector<model::ParameterMask> force_masks_, std::vector<model::ParameterMask> constraint_masks_,
                std::size_t parameter_count)
      : force_offsets(std::move(force_offsets_)), constraint_offsets(std::move(constraint_offsets_)),
        force_masks(std::move(force_masks_)), constraint_masks(std::move(constraint_masks_)),
        parameters(parameter_count, 0.0) {
    for (const auto& [name, signal] : model.controls()) controls[name].assign(signal->size(), 0.0);
  }
};

}  // namespace flexadj::assembly
