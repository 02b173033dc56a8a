// The bodies of a model file: point masses, planar and spatial rigid bodies, chains.
#include "flexadj/io/parameter_rules.hpp"
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

// ---- bodies
BodyKind Reader::body_kind(const std::string& type) const {
  if (type == "point_mass") return dimension_ == 2 ? BodyKind::PointMass2D : BodyKind::PointMass3D;
  return dimension_ == 2 ? BodyKind::PlanarRigid : BodyKind::SpatialRigid;
}

void Reader::read_bodies(const Value& list) {
  list.expect_present();
  const std::size_t n = list.list_size("a non-empty list of bodies");
  if (n == 0) list.fail("expected a non-empty list of bodies, got " + list.describe());
  for (std::size_t i = 0; i < n; ++i) read_body(list.item(i));
}

void Reader::read_body(const Value& v) {
  v.expect_map({"name", "type", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity"});
  Body body;
  body.name = v.at("name").name();
  check_body_name(v.at("name"), body.name);
  body.kind = body_kind(v.at("type").choice({"point_mass", "rigid_body"}));
  body.mass = parameter_value(v.at("mass"), "mass");
  const bool rigid = model::has_orientation(body.kind);
  if (rigid) {
    body.inertia = read_inertia(v.at("inertia"), body.kind);
  } else {
    for (const char* key : {"inertia", "orientation", "angular_velocity"})
      v.forbid(key, "is not allowed for a point mass");
  }
  const Point position = v.at("position").point(dimension_);
  const Point velocity = v.at("velocity").point_or(dimension_, {0.0, 0.0, 0.0});
  for (int i = 0; i < dimension_; ++i) {
    body.initial_coordinates.push_back(position[i]);
    body.initial_velocities.push_back(velocity[i]);
  }
  if (body.kind == BodyKind::PlanarRigid) {
    body.initial_coordinates.push_back(v.at("orientation").number_or(0.0));
    body.initial_velocities.push_back(v.at("angular_velocity").number_or(0.0));
  } else if (body.kind == BodyKind::SpatialRigid) {
    const std::array<double, 4> e = read_euler_parameters(v.at("orientation"));
    const Point w = v.at("angular_velocity").point_or(3, {0.0, 0.0, 0.0});
    const std::array<double, 4> e_dot = euler_parameter_rates(e, w);
    body.initial_coordinates.insert(body.initial_coordinates.end(), e.begin(), e.end());
    body.initial_velocities.insert(body.initial_velocities.end(), e_dot.begin(), e_dot.end());
  }
  add_body(body);
}

int Reader::find_body(const std::string& name) const {
  if (name == "ground") return kGround;
  const auto found = body_index_.find(name);
  return found == body_index_.end() ? kUnknown : found->second;
}

int Reader::add_body(const Body& body) {
  const int index = model_.add_body(body);
  body_index_.emplace(body.name, index);
  return index;
}

void Reader::check_body_name(const Value& at, const std::string& name) const {
  if (name == "ground") at.fail("'ground' is reserved for the fixed frame; choose another body name");
  if (find_body(name) != kUnknown) at.fail("duplicate body name '" + name + "'");
}

// Planar: Izz > 0. Spatial: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], symmetric positive definite, or {principal: [..]}.
std::array<double, 6> Reader::read_inertia(const Value& v, BodyKind kind) const {
  if (kind == BodyKind::PlanarRigid) {
    const std::array<double, 6> inertia{0.0, 0.0, v.number(), 0.0, 0.0, 0.0};
    if (const std::string error = inertia_error(kind, inertia); !error.empty()) v.fail(error);
    return inertia;
  }
  if (v.is_map()) {
    v.expect_map({"principal"});
    const Value principal = v.at("principal");
    principal.expect_list(3, "a list of 3 numbers");
    std::array<double, 6> inertia{};
    for (int i = 0; i < 3; ++i) inertia[i] = principal.item(i).positive();
    return inertia;
  }
  if (v.given() && !v.is_list())
    v.fail("expected a list of 6 numbers [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or {principal: [I1, I2, I3]}, got " +
           v.describe());
  const std::vector<double> I = v.numbers(6);
  const std::array<double, 6> inertia{I[0], I[1], I[2], I[3], I[4], I[5]};
  if (const std::string error = inertia_error(kind, inertia); !error.empty()) v.fail(error);
  return inertia;
}

// {euler_parameters: [e0, e1, e2, e3]} or {axis: [..], angle: rad}; identity if not given.
std::array<double, 4> Reader::read_euler_parameters(const Value& v) {
  if (!v.given()) return {1.0, 0.0, 0.0, 0.0};
  v.expect_map({"euler_parameters", "axis", "angle"});
  if (exactly_one_of(v, {"euler_parameters", "axis"}) == "euler_parameters") {
    v.forbid("angle", "cannot be combined with 'euler_parameters'");
    const Value ev = v.at("euler_parameters");
    const std::vector<double> e = ev.numbers(4);
    const double length = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
    if (std::abs(length - 1.0) > 1e-3)
      ev.fail("expected Euler parameters of unit norm (within 1e-3; they are then normalised), got norm " +
              format_number(length));
    return {e[0] / length, e[1] / length, e[2] / length, e[3] / length};
  }
  const Point n = unit_vector(v.at("axis"), 3);
  const double angle = v.at("angle").number();
  const double s = std::sin(0.5 * angle);
  return {std::cos(0.5 * angle), s * n[0], s * n[1], s * n[2]};
}

// de/dt = 1/2 E(e)^T w, w in global axes; Nikravesh 1988, eq. (6.104).
std::array<double, 4> Reader::euler_parameter_rates(const std::array<double, 4>& e, const Point& w) {
  const double E[3][4] = {{-e[1], e[0], -e[3], e[2]}, {-e[2], e[3], e[0], -e[1]}, {-e[3], -e[2], e[1], e[0]}};
  std::array<double, 4> rates{};
  for (int j = 0; j < 4; ++j) rates[j] = 0.5 * (E[0][j] * w[0] + E[1][j] * w[1] + E[2][j] * w[2]);
  return rates;
}

Point Reader::unit_vector(const Value& v, int dimension) {
  const Point x = v.point(dimension);
  const double length = norm(x);
  if (!(length > 0.0)) v.fail("expected a non-zero direction, got a zero vector");
  return model::scaled(x, 1.0 / length);
}

int Reader::generated_count(const Value& v, int lo) {
  const int count = v.generated_count(lo);
  generated_ += count;
  if (generated_ > Value::kMaxGeneratedCount)
    v.fail("expected at most " + std::to_string(Value::kMaxGeneratedCount) +
           " generated items in all (chain links, beam and ANCF elements, control grid times): with " +
           std::to_string(count) + " more the model has " + std::to_string(generated_));
  return count;
}

// ---- chain generator
void Reader::read_chain(const Value& v) {
  v.expect_map({"count", "name", "type", "mass", "inertia", "length", "direction", "anchor"});
  const int count = generated_count(v.at("count"), 1);
  const std::string prefix = v.has("name") ? v.at("name").name() : "link";
  const BodyKind kind = body_kind(v.at("type").choice({"rigid_body", "point_mass"}));
  const bool rigid = model::has_orientation(kind);
  const double mass = parameter_value(v.at("mass"), "mass");
  std::array<double, 6> inertia{};
  if (rigid) inertia = read_inertia(v.at("inertia"), kind);
  else v.forbid("inertia", "is not allowed for a point mass");
  const double length = v.at("length").positive();
  const Point direction = v.has("direction") ? unit_vector(v.at("direction"), dimension_)
                                             : Point{1.0, 0.0, 0.0};
  const Point anchor = v.at("anchor").point_or(dimension_, {0.0, 0.0, 0.0});
  const auto along = [&](double s) { return model::add(anchor, model::scaled(direction, s * length)); };
  // Rigid links are turned so that their body x axis points along the chain.
  const std::array<double, 4> e = rotation_from_x_to(direction);

  int previous = kGround;
  for (int k = 1; k <= count; ++k) {
    Body body;
    body.name = prefix + std::to_string(k);
    if (find_body(body.name) != kUnknown)
      v.at("name").fail("the chain's body name '" + body.name + "' is already used");
    body.kind = kind;
    body.mass = mass;
    body.inertia = inertia;
    const Point position = along(rigid ? k - 0.5 : k);
    body.initial_coordinates.assign(position.begin(), position.begin() + dimension_);
    if (kind == BodyKind::PlanarRigid) body.initial_coordinates.push_back(std::atan2(direction[1], direction[0]));
    if (kind == BodyKind::SpatialRigid) body.initial_coordinates.insert(body.initial_coordinates.end(), e.begin(), e.end());
    body.initial_velocities.assign(body.initial_coordinates.size(), 0.0);
    const int index = add_body(body);

    const std::string joint = prefix + "_joint" + std::to_string(k);
    claim_component_name(v, joint);
    const std::array<int, 2> ids{previous, index};
    const std::array<BodyKind, 2> kinds{model_.body_kind(previous), kind};
    if (rigid) {
      const JointKind joint_kind = dimension_ == 2 ? JointKind::Revolute : JointKind::Spherical;
      model_.add_constraint(constraints::make_joint(
          joint, joint_kind, ids, kinds, model_.joint_geometry(joint_kind, previous, index, along(k - 1), {})));
    } else {
      model_.add_constraint(constraints::make_distance(joint, ids, kinds, model_.to_body_point(previous, along(k - 1)),
                                                       model_.to_body_point(index, position), length));
    }
    previous = index;
  }
}

// Euler parameters of the smallest rotation taking the x axis onto the unit vector d.
std::array<double, 4> Reader::rotation_from_x_to(const Point& d) {
  const Point x{1.0, 0.0, 0.0};
  const Point axis = model::cross(x, d);
  const double s = norm(axis), c = d[0];
  if (s < 1e-12) return c > 0.0 ? std::array<double, 4>{1.0, 0.0, 0.0, 0.0} : std::array<double, 4>{0.0, 0.0, 0.0, 1.0};
  const double angle = std::atan2(s, c), h = std::sin(0.5 * angle) / s;
  return {std::cos(0.5 * angle), axis[0] * h, axis[1] * h, axis[2] * h};
}

}  // namespace flexadj::io::reader
