#pragma once
// A multibody model: bodies, force elements, constraints, control signals and run settings.
// Coordinates are numbered body by body in model order, multipliers constraint by constraint in
// model order, so the global numbering does not depend on the number of MPI ranks.
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flexadj/constraints/constraints.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/body.hpp"
#include "flexadj/model/component.hpp"
#include "flexadj/model/optimization_settings.hpp"
#include "flexadj/objectives/objective_term.hpp"

namespace flexadj::model {

using Point = std::array<double, 3>;

struct IntegratorSettings {
  std::string scheme = "generalized_alpha";  // generalized_alpha (Chung-Hulbert) | hht (alpha_m = 0) | variational
  double start_time = 0.0;
  double end_time = 1.0;
  double step_size = 1e-3;
  double spectral_radius = 0.9;     // rho_infinity of generalized-alpha; 1 = no numerical damping
  int max_newton_iterations = 25;
  double newton_tolerance = 1e-10;  // on the scaled residual and the relative increment
  std::string linear_solver = "auto";  // auto | direct | iterative
  long long step_count() const;
};

// flexadj static: Newton with load stepping (applied loads scaled by k/load_steps, k = 1..load_steps).
struct StaticSettings {
  int load_steps = 10;
  int max_newton_iterations = 50;
  double newton_tolerance = 1e-10;  // on the increment relative to 1 + |q|_inf and the constraint residual
  double time = 0.0;                // time at which the loads are evaluated
};

struct OutputSettings {
  std::string path;  // empty: <model file stem>.h5 in the working directory
  int every = 1;     // write every n-th step (the last step is always written)
  bool xdmf = true;
};

class Model {
 public:
  std::string source_file;  // for messages
  std::string title;
  int dimension = 3;        // 2: planar model, 3: spatial model
  Point gravity{0.0, 0.0, 0.0};
  IntegratorSettings integrator;
  StaticSettings statics;
  OutputSettings output;
  // Gradient problems: the objective's terms and the names of the design variables (see
  // problem::DesignSpace); both empty for plain simulations.
  std::vector<objectives::ObjectiveTerm> objective_terms;
  std::vector<std::string> design_variables;
  OptimizationSettings optimization;  // flexadj optimize

  // Adds a body with its inertia element (and the unit-quaternion constraint of a spatial rigid body).
  // Set gravity before adding bodies: each body element takes its weight from it.
  int add_body(const Body& body);
  // Adds a node: a spatial rigid body (position and Euler parameters, with the unit-quaternion constraint)
  // without an inertia element; the elements attached to it (beams) carry its inertia. ANCF nodes (is_ancf_node)
  // are added the same way, without a constraint.
  int add_node(const Body& node);
  // A second name of a body for find_body (e.g. "<beam>.start").
  void add_body_alias(const std::string& alias, int index) { aliases_[alias] = index; }
  void add_force_element(std::unique_ptr<ForceElement> element);
  void add_constraint(std::unique_ptr<Constraint> constraint);
  void add_control(std::shared_ptr<functions::ControlSignal> control);

  const std::vector<Body>& bodies() const { return bodies_; }
  const Body& body(int index) const { return bodies_.at(index); }
  // Changes an initial coordinate or velocity of body `index` (design variables). Components keep the
  // body-frame data of the configuration they were built in: the body moves, its attachment points do not.
  void set_initial_value(int index, int coordinate, bool velocity, double value) {
    Body& b = bodies_.at(index);
    (velocity ? b.initial_velocities : b.initial_coordinates).at(coordinate) = value;
  }
  BodyKind body_kind(int index) const { return index == kGround ? BodyKind::Ground : bodies_.at(index).kind; }
  int find_body(const std::string& name) const;  // kGround for "ground", -2 if unknown
  const std::vector<std::unique_ptr<ForceElement>>& force_elements() const { return force_elements_; }
  const std::vector<std::unique_ptr<Constraint>>& constraints() const { return constraints_; }
  std::shared_ptr<const functions::ControlSignal> find_control(const std::string& name) const;
  const std::map<std::string, std::shared_ptr<functions::ControlSignal>>& controls() const { return controls_; }

  int coordinate_count() const { return coordinate_count_; }
  int multiplier_count() const { return multiplier_count_; }
  int body_offset(int body) const { return body_offsets_.at(body); }               // first coordinate
  int constraint_offset(int constraint) const { return constraint_offsets_.at(constraint); }  // first multiplier
  bool conservative() const;  // no dampers, loads or rheonomic constraints

  // Initial coordinates and velocities of all bodies, in global numbering.
  std::vector<double> initial_coordinates() const;
  std::vector<double> initial_velocities() const;

  // Body-frame coordinates of a global point / direction at the initial configuration.
  Point to_body_point(int body, const Point& global) const;
  Point to_body_vector(int body, const Point& global) const;
  // Joint geometry from its global point and axis at t = 0.
  constraints::JointGeometry joint_geometry(constraints::JointKind kind, int body_a, int body_b, const Point& point,
                                            const Point& axis) const;

 private:
  std::vector<Body> bodies_;
  std::vector<std::unique_ptr<ForceElement>> force_elements_;
  std::vector<std::unique_ptr<Constraint>> constraints_;
  std::map<std::string, std::shared_ptr<functions::ControlSignal>> controls_;
  std::map<std::string, int> aliases_;
  std::vector<int> body_offsets_, constraint_offsets_;
  int coordinate_count_ = 0, multiplier_count_ = 0;
};

}  // namespace flexadj::model
