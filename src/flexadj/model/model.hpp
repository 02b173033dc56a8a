#pragma once
// A multibody model: bodies, force elements, constraints and control signals (the mechanical system; what to
// run on it is a problem::Problem).
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

namespace flexadj::model {

using Point = std::array<double, 3>;

class Model {
 public:
  std::string source_file;  // for messages
  std::string title;
  int dimension = 3;        // 2: planar model, 3: spatial model
  Point gravity{0.0, 0.0, 0.0};

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
  // The force element carrying body `index`'s own mass and inertia (type "body"), -1 for a node (beams, ANCF): its
  // inertia is its elements'.
  int inertia_element(int index) const;
  const std::vector<std::unique_ptr<ForceElement>>& force_elements() const { return force_elements_; }
  const std::vector<std::unique_ptr<Constraint>>& constraints() const { return constraints_; }
  std::shared_ptr<const functions::ControlSignal> find_control(const std::string& name) const;
  const std::map<std::string, std::shared_ptr<functions::ControlSignal>>& controls() const { return controls_; }
  // The run's window [t0, t1] of the normalized control signals (time: normalized); call it when t1 changes.
  void set_time_window(double t0, double t1) const;
  // The first normalized control signal's name, or an empty text.
  std::string normalized_control() const;

  int coordinate_count() const { return coordinate_count_; }
  int multiplier_count() const { return multiplier_count_; }
  int body_offset(int body) const { return body_offsets_.at(body); }               // first coordinate
  // The body holding global coordinate `coordinate` (the last body whose offset is <= coordinate, by binary
  // search); -1 if there is none.
  int body_of_coordinate(long long coordinate) const;
  int constraint_offset(int constraint) const { return constraint_offsets_.at(constraint); }  // first multiplier
  bool conservative() const;  // no dampers, loads or rheonomic constraints
  // The first component whose equations depend on t explicitly (a load of time or control, a rheonomic constraint),
  // e.g. "load 'F'"; empty if none. With besides_normalized_controls, a dependence through normalized controls only
  // (time: normalized, the same at every step's tau under a free final time) does not count.
  std::string explicit_time_dependence(bool besides_normalized_controls = false) const;

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
