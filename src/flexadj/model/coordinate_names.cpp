#include "flexadj/model/coordinate_names.hpp"

#include "flexadj/core/error.hpp"

namespace flexadj::model {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  return text;
}

std::string body_list(const Model& model) {
  std::vector<std::string> names;
  const auto& bodies = model.bodies();
  for (std::size_t i = 0; i < bodies.size() && i < 20; ++i) names.push_back(bodies[i].name);
  if (bodies.size() > 20) names.push_back("... (" + std::to_string(bodies.size()) + " bodies)");
  return join(names);
}

}  // namespace

const std::vector<std::string>& coordinate_suffixes(BodyKind kind) {
  static const std::vector<std::string> none, point2{"x", "y"}, point3{"x", "y", "z"}, planar{"x", "y", "theta"},
      spatial{"x", "y", "z", "e0", "e1", "e2", "e3"}, ancf_planar{"x", "y", "rx_x", "rx_y"},
      ancf_cable{"x", "y", "z", "rs_x", "rs_y", "rs_z"},
      ancf_full{"x", "y", "z", "rx_x", "rx_y", "rx_z", "ry_x", "ry_y", "ry_z", "rz_x", "rz_y", "rz_z"},
      dual_quaternion{"r0", "r1", "r2", "r3", "d0", "d1", "d2", "d3"};
  switch (kind) {
    case BodyKind::Ground: return none;
    case BodyKind::PointMass2D: return point2;
    case BodyKind::PointMass3D: return point3;
    case BodyKind::PlanarRigid: return planar;
    case BodyKind::SpatialRigid: return spatial;
    case BodyKind::AncfPlanarNode: return ancf_planar;
    case BodyKind::AncfCableNode: return ancf_cable;
    case BodyKind::AncfFullNode: return ancf_full;
    case BodyKind::DualQuaternionNode: return dual_quaternion;
  }
  return none;
}

std::string coordinate_name(const Model& model, long long coordinate) {
  const int b = model.body_of_coordinate(coordinate);
  if (b < 0) return "coordinate " + std::to_string(coordinate);
  const Body& body = model.body(b);
  return body.name + "." + coordinate_suffixes(body.kind).at(coordinate - model.body_offset(b));
}

long long find_coordinate(const Model& model, const std::string& name) {
  // Body names may contain dots; coordinate names do not.
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size())
    throw InputError("", "", "expected a coordinate '<body>.<coordinate>' such as 'cart.x', got '" + name + "'");
  const std::string body_name = name.substr(0, dot), suffix = name.substr(dot + 1);
  const int body = model.find_body(body_name);
  if (body == kGround) throw InputError("", "", "'" + name + "': ground has no coordinates");
  if (body < 0) throw InputError("", "", "unknown body '" + body_name + "' in '" + name + "' (bodies are: " + body_list(model) + ")");
  const auto& suffixes = coordinate_suffixes(model.body_kind(body));
  for (std::size_t i = 0; i < suffixes.size(); ++i)
    if (suffixes[i] == suffix) return model.body_offset(body) + static_cast<long long>(i);
  throw InputError("", "", "body '" + body_name + "' (" + to_string(model.body_kind(body)) + ") has no coordinate '" +
                               suffix + "' (its coordinates are: " + join(suffixes) + ")");
}

}  // namespace flexadj::model
