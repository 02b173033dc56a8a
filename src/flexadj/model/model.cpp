#include "flexadj/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "flexadj/elements/elements.hpp"
#include "flexadj/functions/control_signal.hpp"

namespace flexadj::model {

const char* to_string(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground: return "ground";
    case BodyKind::PointMass2D: return "point_mass (planar)";
    case BodyKind::PointMass3D: return "point_mass";
    case BodyKind::PlanarRigid: return "rigid_body (planar)";
    case BodyKind::SpatialRigid: return "rigid_body";
    case BodyKind::AncfPlanarNode: return "ancf_node (planar)";
    case BodyKind::AncfCableNode: return "ancf_node (cable)";
    case BodyKind::AncfFullNode: return "ancf_node (full)";
    case BodyKind::DualQuaternionNode: return "beam_node (dual quaternion)";
  }
  return "?";
}

int Model::add_body(const Body& body) {
  const int index = static_cast<int>(bodies_.size());
  bodies_.push_back(body);
  body_offsets_.push_back(coordinate_count_);
  coordinate_count_ += model::coordinate_count(body.kind);
  add_force_element(elements::make_body_inertia(body, index, gravity));
  if (body.kind == BodyKind::SpatialRigid) add_constraint(constraints::make_unit_quaternion(body.name, index));
  return index;
}

int Model::add_node(const Body& node) {
  if (node.kind != BodyKind::SpatialRigid && node.kind != BodyKind::DualQuaternionNode && !is_ancf_node(node.kind))
    throw std::invalid_argument("a node must be of kind SpatialRigid, DualQuaternionNode or an ANCF node kind");
  const int index = static_cast<int>(bodies_.size());
  bodies_.push_back(node);
  body_offsets_.push_back(coordinate_count_);
  coordinate_count_ += model::coordinate_count(node.kind);
  if (node.kind == BodyKind::SpatialRigid) add_constraint(constraints::make_unit_quaternion(node.name, index));
  if (node.kind == BodyKind::DualQuaternionNode)
    add_constraint(constraints::make_unit_dual_quaternion(node.name, index));
  return index;
}

void Model::add_force_element(std::unique_ptr<ForceElement> element) { force_elements_.push_back(std::move(element)); }

void Model::add_constraint(std::unique_ptr<Constraint> constraint) {
  constraint_offsets_.push_back(multiplier_count_);
  multiplier_count_ += constraint->equation_count();
  constraints_.push_back(std::move(constraint));
}

void Model::add_control(std::shared_ptr<functions::ControlSignal> control) {
  const std::string name = control->name();
  controls_[name] = std::move(control);
}

int Model::find_body(const std::string& name) const {
  if (name == "ground") return kGround;
  for (std::size_t i = 0; i < bodies_.size(); ++i)
    if (bodies_[i].name == name) return static_cast<int>(i);
  const auto alias = aliases_.find(name);
  return alias == aliases_.end() ? -2 : alias->second;
}

int Model::inertia_element(int index) const {
  for (std::size_t e = 0; e < force_elements_.size(); ++e) {
    const auto& element = *force_elements_[e];
    if (std::string(element.type()) == "body" && element.bodies().size() == 1 && element.bodies()[0] == index)
      return static_cast<int>(e);
  }
  return -1;
}

std::shared_ptr<const functions::ControlSignal> Model::find_control(const std::string& name) const {
  auto it = controls_.find(name);
  return it == controls_.end() ? nullptr : it->second;
}

bool Model::conservative() const {
  for (const auto& element : force_elements_)
    if (!element->conservative()) return false;
  for (const auto& constraint : constraints_)
    if (constraint->rheonomic()) return false;
  return true;
}

void Model::set_time_window(double t0, double t1) const {
  for (const auto& [name, control] : controls_)
    if (control->normalized()) control->set_time_window(t0, t1);
}

std::string Model::normalized_control() const {
  for (const auto& [name, control] : controls_)
    if (control->normalized()) return name;
  return "";
}

std::string Model::explicit_time_dependence(bool besides_normalized_controls) const {
  for (const auto& element : force_elements_) {
    const bool normalized = element->control() && element->control()->normalized();
    if (besides_normalized_controls && normalized ? element->time_dependent_besides_control()
                                                  : element->time_dependent())
      return std::string(element->type()) + " '" + element->name() + "'";
  }
  for (const auto& constraint : constraints_)
    if (constraint->rheonomic()) return std::string(constraint->type()) + " '" + constraint->name() + "'";
  return "";
}

std::vector<double> Model::initial_coordinates() const {
  std::vector<double> q(coordinate_count_);
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    for (std::size_t i = 0; i < bodies_[b].initial_coordinates.size(); ++i)
      q[body_offsets_[b] + i] = bodies_[b].initial_coordinates[i];
  return q;
}

std::vector<double> Model::initial_velocities() const {
  std::vector<double> v(coordinate_count_);
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    for (std::size_t i = 0; i < bodies_[b].initial_velocities.size(); ++i)
      v[body_offsets_[b] + i] = bodies_[b].initial_velocities[i];
  return v;
}

Point Model::to_body_point(int body, const Point& global) const {
  if (body == kGround) return global;
  const Body& b = bodies_.at(body);
  const double* q = b.initial_coordinates.data();
  const Point origin = point_position(b.kind, q, Point{0.0, 0.0, 0.0});
  return to_body_vector(body, subtract(global, origin));
}

Point Model::to_body_vector(int body, const Point& global) const {
  if (body == kGround) return global;
  const Body& b = bodies_.at(body);
  return multiply_transposed(body_rotation(b.kind, b.initial_coordinates.data()), global);
}

constraints::JointGeometry Model::joint_geometry(constraints::JointKind kind, int body_a, int body_b,
                                                 const Point& point, const Point& axis) const {
  constraints::JointGeometry g;
  g.point_a = to_body_point(body_a, point);
  g.point_b = to_body_point(body_b, point);
  const double norm = std::sqrt(dot(axis, axis));
  const Point n = norm > 0.0 ? scaled(axis, 1.0 / norm) : Point{0.0, 0.0, 1.0};
  // Two unit vectors normal to n: t1 from the global axis least aligned with n, t2 = n x t1.
  Point e{0.0, 0.0, 0.0};
  int least = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(n[i]) < std::abs(n[least])) least = i;
  e[least] = 1.0;
  Point t1 = cross(n, e);
  t1 = scaled(t1, 1.0 / std::sqrt(dot(t1, t1)));
  const Point t2 = cross(n, t1);
  g.axis_a = to_body_vector(body_a, n);
  if (kind == constraints::JointKind::Revolute) {
    g.normal_1 = to_body_vector(body_b, t1);
    g.normal_2 = to_body_vector(body_b, t2);
  } else {
    // Prismatic: normals carried by a; planar models use the in-plane normal (-n_y, n_x).
    const bool planar = dimension == 2;
    g.normal_1 = to_body_vector(body_a, planar ? Point{-n[1], n[0], 0.0} : t1);
    g.normal_2 = to_body_vector(body_a, t2);
  }
  auto angle = [&](int body) {
    return body != kGround && bodies_[body].kind == BodyKind::PlanarRigid ? bodies_[body].initial_coordinates[2] : 0.0;
  };
  g.rest_angle = angle(body_b) - angle(body_a);
  auto quaternion = [&](int body) -> std::array<double, 4> {
    if (body == kGround) return {1.0, 0.0, 0.0, 0.0};
    const auto& q = bodies_[body].initial_coordinates;
    if (bodies_[body].kind == BodyKind::DualQuaternionNode) return {q[0], q[1], q[2], q[3]};
    if (bodies_[body].kind != BodyKind::SpatialRigid) return {1.0, 0.0, 0.0, 0.0};
    return {q[3], q[4], q[5], q[6]};
  };
  g.rest_rotation = quaternion_product(quaternion_conjugate(quaternion(body_a)), quaternion(body_b));
  return g;
}

int Model::body_of_coordinate(long long coordinate) const {
  const auto after = std::upper_bound(body_offsets_.begin(), body_offsets_.end(), coordinate);
  return static_cast<int>(after - body_offsets_.begin()) - 1;
}

}  // namespace flexadj::model
