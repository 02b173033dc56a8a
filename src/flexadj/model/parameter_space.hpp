#pragma once
// All scalar parameters of a model's components, numbered force elements first, then constraints, each
// component's parameters in its own order; named "<component>.<parameter>" (e.g. "cart.mass",
// "rod.length", "spring.stiffness").
#include <string>
#include <unordered_map>
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::model {

class ParameterSpace {
 public:
  explicit ParameterSpace(const model::Model& model);
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<int>& force_offsets() const { return force_offsets_; }
  const std::vector<int>& constraint_offsets() const { return constraint_offsets_; }
  // The offsets to pass to Assembler::add_parameter_gradient: those of force_offsets()/constraint_offsets(),
  // with -1 for components none of whose parameters is wanted (their dR/dp is then not evaluated; by default
  // every parameter is wanted).
  const std::vector<int>& gradient_force_offsets() const { return gradient_force_offsets_; }
  const std::vector<int>& gradient_constraint_offsets() const { return gradient_constraint_offsets_; }
  // Which parameters of each force element / constraint are wanted (bit k: its parameter k).
  const std::vector<ParameterMask>& gradient_force_masks() const { return gradient_force_masks_; }
  const std::vector<ParameterMask>& gradient_constraint_masks() const { return gradient_constraint_masks_; }
  // Only these parameters' gradients are needed (indices into this space).
  void want_gradients_of(const std::vector<int>& parameters);
  // Index of a parameter by name, -1 if there is none.
  int find(const std::string& name) const;
  double value(const model::Model& model, int index) const;
  void set_value(model::Model& model, int index, double value) const;

 private:
  std::vector<std::string> names_;
  // name -> index (the first of equal names): resolving N design-variable names by a search each was quadratic,
  // 95 % of a 25 000-spring chain's gradient run (benchmarks/peers).
  std::unordered_map<std::string, int> index_of_;
  std::vector<int> force_offsets_, constraint_offsets_, gradient_force_offsets_, gradient_constraint_offsets_;
  std::vector<ParameterMask> gradient_force_masks_, gradient_constraint_masks_;
  struct Location {
    bool constraint;
    int component, parameter;
  };
  std::vector<Location> locations_;
};

}  // namespace flexadj::model
