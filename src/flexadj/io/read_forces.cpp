// The force elements of a model file: spring-dampers, rotational spring-dampers and loads.
#include "flexadj/io/parameter_rules.hpp"
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

void Reader::read_forces(const Value& list) {
  read_components(list, "a list of forces", [&](const Value& v, std::size_t i) { read_force(v, i); });
}

void Reader::read_force(const Value& v, std::size_t index) {
  const std::string type = typed_entry(
      v, {{"spring_damper", {"name", "type", "bodies", "points", "stiffness", "damping", "free_length"}},
          {"rotational_spring_damper", {"name", "type", "bodies", "stiffness", "damping", "rest_angle", "axis"}},
          {"angle_spring_damper", {"name", "type", "bodies", "points", "stiffness", "damping", "rest_angle"}},
          {"load", {"name", "type", "body", "point", "force", "moment", "frame", "control"}}});
  const std::string name = component_name(v, type, index);
  if (type == "spring_damper") read_spring_damper(v, name);
  else if (type == "rotational_spring_damper") read_rotational_spring_damper(v, name);
  else if (type == "angle_spring_damper") read_angle_spring_damper(v, name);
  else read_load(v, name);
}

void Reader::read_spring_damper(const Value& v, const std::string& name) {
  const auto ids = body_pair(v.at("bodies"));
  const auto points = point_pair(v.at("points"), ids);
  elements::SpringDamperData data;
  data.stiffness = parameter_value_or(v.at("stiffness"), "stiffness", 0.0);
  data.damping = parameter_value_or(v.at("damping"), "damping", 0.0);
  const double distance = norm(model::subtract(points[1], points[0]));
  if (!(distance > 0.0))
    (v.has("points") ? v.at("points") : v.at("bodies"))
        .fail("the attachment points coincide at t = 0, so the spring direction is undefined");
  data.free_length = parameter_value_or(v.at("free_length"), "free_length", distance);
  data.point_a = model_.to_body_point(ids[0], points[0]);
  data.point_b = model_.to_body_point(ids[1], points[1]);
  model_.add_force_element(elements::make_spring_damper(name, ids, kinds_of(ids), data));
}

void Reader::read_rotational_spring_damper(const Value& v, const std::string& name) {
  const Value bodies = v.at("bodies");
  auto ids = body_pair(bodies);
  for (int k = 0; k < 2; ++k)
    if (ids[k] != kGround && !model::has_orientation(model_.body_kind(ids[k])))
      bodies.item(k).fail("expected a rigid body or ground, got the point mass '" + model_.body(ids[k]).name + "'");
  elements::RotationalSpringDamperData data;
  data.damping = parameter_value_or(v.at("damping"), "damping", 0.0);
  if (dimension_ == 2) {
    v.forbid("axis", "is not used in planar models (the axis is z)");
    data.stiffness = parameter_value_or(v.at("stiffness"), "stiffness", 0.0);
    const auto angle = [&](int body) { return body == kGround ? 0.0 : model_.body(body).initial_coordinates[2]; };
    data.rest_angle = v.at("rest_angle").number_or(angle(ids[1]) - angle(ids[0]));
    // The kernel measures the rotation of b: keep ground as a.
    if (ids[1] == kGround) {
      std::swap(ids[0], ids[1]);
      data.rest_angle = -data.rest_angle;
    }
  } else {
    const Value stiffness = v.at("stiffness");
    if (stiffness.given() && stiffness.non_negative() != 0.0)
      stiffness.fail("rotational stiffness is only available in planar models");
    v.forbid("rest_angle", "is only used in planar models");
    data.axis = model_.to_body_vector(ids[0], unit_vector(v.at("axis"), 3));
  }
  model_.add_force_element(elements::make_rotational_spring_damper(name, ids, kinds_of(ids), data));
}

void Reader::read_angle_spring_damper(const Value& v, const std::string& name) {
  if (dimension_ != 2) v.at("type").fail("angle_spring_damper is only available in planar models");
  const auto ids = body_pair(v.at("bodies"));
  const auto points = point_pair(v.at("points"), ids);
  const Point d = model::subtract(points[1], points[0]);
  elements::AngleSpringDamperData data;
  data.stiffness = parameter_value_or(v.at("stiffness"), "stiffness", 0.0);
  data.damping = parameter_value_or(v.at("damping"), "damping", 0.0);
  if (!(norm(d) > 0.0))
    (v.has("points") ? v.at("points") : v.at("bodies"))
        .fail("the points coincide at t = 0, so the direction of the line is undefined");
  data.rest_angle = v.at("rest_angle").number_or(std::atan2(d[1], d[0]));
  data.point_a = model_.to_body_point(ids[0], points[0]);
  data.point_b = model_.to_body_point(ids[1], points[1]);
  model_.add_force_element(elements::make_angle_spring_damper(name, ids, kinds_of(ids), data));
}

void Reader::read_load(const Value& v, const std::string& name) {
  const int body = body_ref(v.at("body"), false);
  const BodyKind kind = model_.body_kind(body);
  const bool rigid = model::takes_moment(kind);  // rigid bodies and ANCF nodes
  elements::LoadData data;
  data.point = model_.to_body_point(body, point_or_centre(v.at("point"), body));
  const Value force = v.at("force");
  if (force.given()) {
    force.expect_list(dimension_, "a list of " + std::to_string(dimension_) + " numbers or expressions of t");
    for (int i = 0; i < dimension_; ++i) data.force[i] = force.item(i).expression();
  }
  const Value moment = v.at("moment");
  if (moment.given()) {
    if (!rigid) moment.fail("a point mass takes no moment");
    if (dimension_ == 2) {
      data.moment[2] = moment.expression();
    } else {
      moment.expect_list(3, "a list of 3 numbers or expressions of t");
      for (int i = 0; i < 3; ++i) data.moment[i] = moment.item(i).expression();
    }
  }
  data.body_frame = v.has("frame") && v.at("frame").choice({"global", "body"}) == "body";
  const Value control = v.at("control");
  if (control.given()) {
    control.expect_map({"name", "force_direction", "moment_direction"});
    const Value control_name = control.at("name");
    data.control = model_.find_control(control_name.name());
    if (!data.control) {
      std::vector<std::string> names;
      for (const auto& entry : model_.controls()) names.push_back(entry.first);
      control_name.fail("unknown control '" + control_name.text() + "' (" +
                        (names.empty() ? "the model has no controls" : "controls are: " + join(names)) + ")");
    }
    data.control_force_direction = control.at("force_direction").point_or(dimension_, {0.0, 0.0, 0.0});
    const Value moment_direction = control.at("moment_direction");
    if (moment_direction.given()) {
      if (!rigid) moment_direction.fail("a point mass takes no moment");
      data.control_moment_direction =
          dimension_ == 2 ? Point{0.0, 0.0, moment_direction.number()} : moment_direction.point(3);
    }
    if (!control.has("force_direction") && !moment_direction.given())
      control.fail("expected force_direction or moment_direction (how the control acts on the body)");
  }
  model_.add_force_element(elements::make_load(name, body, kind, data));
}

}  // namespace flexadj::io::reader
