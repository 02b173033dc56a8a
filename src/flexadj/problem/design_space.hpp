#pragma once
// The design variables of a gradient problem, named as in the model file's `design_variables`
// (docs/model-format.md):
//   "spring.stiffness"         a component parameter "<component>.<parameter>" (ParameterSpace)
//   "initial_position:mass.x"  the initial value q(t_0) of a coordinate "<body>.<coordinate>"
//   "initial_velocity:mass.x"  the initial rate v(t_0) of a coordinate
//   "control:F"                every value u_k of the control signal F
//   "integrator.end_time"      a free final time: the run's end time with its step count fixed (the problem's
//                              integrator settings, IntegratorSettings::fixed_steps; no end_condition)
// A DesignSpace flattens them into one vector of scalars in the order of the names: one per parameter and
// initial value, one per value of a control signal. It reads and changes these scalars in a model and
// picks their derivatives out of a discrete-adjoint Gradient.
#include <string>
#include <vector>

#include "flexadj/model/model.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj::adjoint {
struct Gradient;  // adjoint/gradient.hpp
}  // namespace flexadj::adjoint

namespace flexadj::problem {

using model::ParameterSpace;


class DesignSpace {
 public:
  enum class Kind { Parameter, InitialPosition, InitialVelocity, Control, FinalTime };
  struct Entry {
    Kind kind = Kind::Parameter;
    std::string name;           // as given, e.g. "initial_velocity:mass.x"
    int parameter = -1;         // Parameter: index in the ParameterSpace
    long long coordinate = -1;  // InitialPosition, InitialVelocity: global coordinate id
    std::string control;        // Control: the signal's name
    int offset = 0;             // first scalar of the entry
    int size = 1;               // its scalars: 1, or the number of values of the control signal
  };

  // Throws InputError(model file, "design_variables", ...) for a name that does not resolve or repeats.
  DesignSpace(const model::Model& model, const std::vector<std::string>& names);
  // The problem's design_variables; all component parameters of its model if it names none.
  static DesignSpace of(const Problem& problem);
  // The entry of one name (offset 0). Throws InputError with the message only (no file, no key path) if the
  // name does not resolve; the message says what exists and suggests close parameter names.
  static Entry resolve(const model::Model& model, const ParameterSpace& parameters, const std::string& name);

  int size() const { return size_; }
  const std::vector<Entry>& entries() const { return entries_; }
  const ParameterSpace& parameters() const { return parameters_; }
  // One name per scalar: the entry's name, for control values "control:F[17]".
  std::vector<std::string> names() const;

  // The design scalars of a model (no FinalTime entry: std::logic_error), or of a problem (its model and its
  // integrator's end time).
  std::vector<double> values(const model::Model& model) const;
  std::vector<double> values(const Problem& problem) const;
  // Sets parameters, initial coordinates/velocities of the bodies and control values; size() values. The problem's
  // form also sets the end time of a FinalTime entry.
  void set_values(model::Model& model, const std::vector<double>& values) const;
  void set_values(Problem& problem, const std::vector<double>& values) const;
  bool has_final_time() const;
  // Sets one entry's e.size values in the model (a FinalTime entry: std::logic_error), with the model's parameters
  // numbered by `parameters`.
  static void set_entry(model::Model& model, const ParameterSpace& parameters, const Entry& e, const double* values);
  // dJ/d(design scalars) from a gradient computed for the same model with this ParameterSpace's numbering.
  std::vector<double> gradient(const adjoint::Gradient& gradient) const;

 private:
  // The model's part of values() and set_values(); a FinalTime entry is skipped if skip_final_time, else
  // std::logic_error. (No copy of this object: its ParameterSpace names every parameter of the model.)
  void model_values(const model::Model& model, std::vector<double>& values, bool skip_final_time) const;
  void set_model_values(model::Model& model, const std::vector<double>& values, bool skip_final_time) const;
  void check_size(const std::vector<double>& values) const;
  ParameterSpace parameters_;
  std::vector<Entry> entries_;
  int size_ = 0;
};

// Changes the initial coordinate (velocity = false) or velocity of global coordinate `coordinate` in the
// body that owns it.
void set_initial_value(model::Model& model, long long coordinate, bool velocity, double value);

}  // namespace flexadj::problem
