// The joints of a model file: lower pairs, distances, winches, prescribed motions and coordinates, and the
// non-holonomic knife edge.
#include "flexadj/io/parameter_rules.hpp"
#include "flexadj/io/reader.hpp"
#include "flexadj/constraints/spatial_knife_edge.hpp"
#include "flexadj/integrators/registry.hpp"

namespace flexadj::io::reader {

// ---- joints
void Reader::read_joints(const Value& list) {
  read_components(list, "a list of joints", [&](const Value& v, std::size_t i) { read_joint(v, i); });
}

void Reader::read_joint(const Value& v, std::size_t index) {
  const Keys lower_pair = {"name", "type", "bodies", "point", "axis"};
  const std::string type = typed_entry(
      v, {{"spherical", lower_pair},
          {"revolute", lower_pair},
          {"prismatic", lower_pair},
          {"fixed", lower_pair},
          {"distance", {"name", "type", "bodies", "points", "length"}},
          {"winch", {"name", "type", "bodies", "drum", "points", "radius"}},
          {"prescribed_motion", {"name", "type", "body", "point", "path"}},
          {"prescribed_coordinate", {"name", "type", "body", "coordinate", "value"}},
          {"knife_edge", {"name", "type", "body", "point", "direction", "plane_normal"}}});
  const std::string name = component_name(v, type, index);
  if (type == "distance") read_distance(v, name);
  else if (type == "winch") read_winch(v, name);
  else if (type == "prescribed_motion") read_prescribed_motion(v, name);
  else if (type == "prescribed_coordinate") read_prescribed_coordinate(v, name);
  else if (type == "knife_edge") read_knife_edge(v, name);
  else read_lower_pair(v, name, type);
}

void Reader::read_lower_pair(const Value& v, const std::string& name, const std::string& type) {
  const JointKind kind = type == "spherical" ? JointKind::Spherical
                         : type == "revolute" ? JointKind::Revolute
                         : type == "prismatic" ? JointKind::Prismatic
                                               : JointKind::Fixed;
  const Value bodies = v.at("bodies");
  auto ids = body_pair(bodies);
  if (ids[1] == kGround) std::swap(ids[0], ids[1]);  // b carries the rotation lock: never ground
  const auto kinds = kinds_of(ids);
  if (kind == JointKind::Fixed)
    for (int k = 0; k < 2; ++k)
      if (ids[k] != kGround && model::is_ancf_node(kinds[k]))
        bodies.fail("a fixed joint does not clamp the gradients of the ANCF node '" + model_.body(ids[k]).name +
                    "': use a spherical joint (revolute in planar models) and prescribed_coordinate on the slopes");
  if (kind == JointKind::Prismatic && ids[0] != kGround && !model::has_orientation(kinds[0]))
    bodies.fail("a prismatic joint between two bodies needs a rigid body first (it carries the sliding direction); "
                "'" + model_.body(ids[0]).name + "' is a point mass");
  if (kind == JointKind::Revolute && dimension_ == 3)
    for (int k = 0; k < 2; ++k)
      if (ids[k] != kGround && !model::has_orientation(kinds[k]))
        bodies.fail("a spatial revolute joint needs rigid bodies; '" + model_.body(ids[k]).name +
                    "' is a point mass (use a spherical joint)");
  const Point point = point_or_centre(v.at("point"), ids[1]);
  Point axis{0.0, 0.0, 0.0};
  const bool needs_axis = kind == JointKind::Prismatic || (kind == JointKind::Revolute && dimension_ == 3);
  if (needs_axis) axis = unit_vector(v.at("axis"), dimension_);
  else v.forbid("axis", "is not used by a " + type + " joint" + (dimension_ == 2 ? " in a planar model" : ""));
  try {
    model_.add_constraint(
        constraints::make_joint(name, kind, ids, kinds, model_.joint_geometry(kind, ids[0], ids[1], point, axis)));
  } catch (const std::invalid_argument& error) {
    bodies.fail(error.what());  // e.g. two full ANCF nodes: more coordinates than a joint supports
  }
}

void Reader::read_distance(const Value& v, const std::string& name) {
  const auto ids = body_pair(v.at("bodies"));
  const auto points = point_pair(v.at("points"), ids);
  const double distance = norm(model::subtract(points[1], points[0]));
  double length = distance;
  if (v.has("length")) length = parameter_value(v.at("length"), "length");
  else if (!(distance > 0.0))
    (v.has("points") ? v.at("points") : v.at("bodies"))
        .fail("the points coincide at t = 0; give a positive length");
  model_.add_constraint(constraints::make_distance(name, ids, kinds_of(ids), model_.to_body_point(ids[0], points[0]),
                                                   model_.to_body_point(ids[1], points[1]), length));
}

void Reader::read_winch(const Value& v, const std::string& name) {
  const auto ids = body_pair(v.at("bodies"));
  const Value drum_value = v.at("drum");
  const int drum = body_ref(drum_value, false);
  if (model_.body_kind(drum) != BodyKind::PlanarRigid)
    drum_value.fail("expected a planar rigid body as drum, '" + model_.body(drum).name + "' is a " +
                    model::to_string(model_.body_kind(drum)));
  const auto points = point_pair(v.at("points"), ids);
  const double length = norm(model::subtract(points[1], points[0]));
  if (!(length > 0.0))
    (v.has("points") ? v.at("points") : v.at("bodies")).fail("the cable ends coincide at t = 0");
  const double radius = parameter_value(v.at("radius"), "radius");
  model_.add_constraint(constraints::make_winch(
      name, {ids[0], ids[1], drum}, {model_.body_kind(ids[0]), model_.body_kind(ids[1]), BodyKind::PlanarRigid},
      model_.to_body_point(ids[0], points[0]), model_.to_body_point(ids[1], points[1]), length, radius,
      model_.body(drum).initial_coordinates[2]));
}

void Reader::read_prescribed_motion(const Value& v, const std::string& name) {
  const int body = body_ref(v.at("body"), false);
  const Point point = model_.to_body_point(body, point_or_centre(v.at("point"), body));
  const Value path = v.at("path");
  path.expect_list(dimension_, "a list of " + std::to_string(dimension_) + " expressions of t or \"free\"");
  std::array<Expression, 3> motion;
  std::array<bool, 3> axes{false, false, false};
  for (int i = 0; i < dimension_; ++i) {
    const Value entry = path.item(i);
    if (entry.is_text("free")) continue;
    motion[i] = entry.expression();
    axes[i] = true;
  }
  if (!axes[0] && !axes[1] && !axes[2]) path.fail("every axis is \"free\"; expected at least one prescribed axis");
  model_.add_constraint(constraints::make_prescribed_motion(name, body, model_.body_kind(body), point, motion, axes));
}

void Reader::read_prescribed_coordinate(const Value& v, const std::string& name) {
  const int body = body_ref(v.at("body"), false);
  const BodyKind kind = model_.body_kind(body);
  const int coordinate = v.at("coordinate").integer(0, model::coordinate_count(kind) - 1);
  model_.add_constraint(
      constraints::make_prescribed_coordinate(name, body, kind, coordinate, v.at("value").expression()));
}

// The point of a planar rigid body moves only along `direction` (both global at t = 0): a velocity constraint,
// enforced by generalized-alpha/HHT only (docs/model-format.md).
void Reader::read_knife_edge(const Value& v, const std::string& name) {
  if (!integrators::integrator_kind(problem_.integrator).can.non_holonomic)
    v.at("type").fail("non-holonomic constraints (knife_edge) need integrator.type " +
                      integrators::types_with([](const integrators::IntegratorKind& k) { return k.can.non_holonomic; },
                                              "or") +
                      "; integrator.type " + problem_.integrator.scheme + " enforces position-level constraints only");
  const Value body_value = v.at("body");
  const int body = body_ref(body_value, false);
  const BodyKind kind = dimension_ == 2 ? BodyKind::PlanarRigid : BodyKind::SpatialRigid;
  if (model_.body_kind(body) != kind)
    body_value.fail(std::string("expected a ") + (dimension_ == 2 ? "planar" : "spatial") + " rigid body, '" +
                    model_.body(body).name + "' is a " + model::to_string(model_.body_kind(body)));
  const Point point = model_.to_body_point(body, point_or_centre(v.at("point"), body));
  const Value direction_value = v.at("direction");
  const Point direction = unit_vector(direction_value, dimension_);
  if (dimension_ == 2) {
    v.forbid("plane_normal", "is not used by a planar knife edge (the plane's normal is z)");
    model_.add_constraint(constraints::make_knife_edge(name, body, point, model_.to_body_vector(body, direction)));
    return;
  }
  // Spatial: no velocity across the edge, along plane_normal x direction (global at t = 0, then body-fixed).
  const Point normal = v.has("plane_normal") ? unit_vector(v.at("plane_normal"), 3) : Point{0.0, 0.0, 1.0};
  const Point across = model::cross(normal, direction);
  const double length = norm(across);
  if (!(length > 1e-6))
    direction_value.fail("is parallel to the plane_normal (" + format_number(normal[0]) + ", " +
                         format_number(normal[1]) + ", " + format_number(normal[2]) +
                         "); a knife edge moves in the plane");
  model_.add_constraint(constraints::make_spatial_knife_edge(
      name, body, point, model_.to_body_vector(body, model::scaled(across, 1.0 / length))));
}

}  // namespace flexadj::io::reader
