#include "flexadj/elements/beam_builder.hpp"

#include <cmath>
#include <stdexcept>

namespace flexadj::elements {
namespace {

double norm(const Point& x) { return std::sqrt(model::dot(x, x)); }
Point unit(const Point& x) { return model::scaled(x, 1.0 / norm(x)); }

// Euler parameters of the rotation with columns (c1, c2, c3) (Shepperd 1978).
std::array<double, 4> euler_parameters(const Point& c1, const Point& c2, const Point& c3) {
  const double R[3][3] = {{c1[0], c2[0], c3[0]}, {c1[1], c2[1], c3[1]}, {c1[2], c2[2], c3[2]}};
  const double trace = R[0][0] + R[1][1] + R[2][2];
  std::array<double, 4> e;
  if (trace >= R[0][0] && trace >= R[1][1] && trace >= R[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + trace);
    e = {0.25 * s, (R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s};
  } else if (R[0][0] >= R[1][1] && R[0][0] >= R[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + 2.0 * R[0][0] - trace);
    e = {(R[2][1] - R[1][2]) / s, 0.25 * s, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s};
  } else if (R[1][1] >= R[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + 2.0 * R[1][1] - trace);
    e = {(R[0][2] - R[2][0]) / s, (R[0][1] + R[1][0]) / s, 0.25 * s, (R[1][2] + R[2][1]) / s};
  } else {
    const double s = 2.0 * std::sqrt(1.0 + 2.0 * R[2][2] - trace);
    e = {(R[1][0] - R[0][1]) / s, (R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, 0.25 * s};
  }
  if (e[0] < 0.0)
    for (double& x : e) x = -x;
  return e;
}

std::array<double, 4> frame(const Point& tangent, const Point& axis3) {
  const Point t = unit(tangent);
  const Point normal = model::subtract(axis3, model::scaled(t, model::dot(axis3, t)));
  if (norm(normal) < 1e-8 * std::max(norm(axis3), 1e-300))
    throw std::invalid_argument("the section axis 3 is parallel to the beam");
  const Point e3 = unit(normal);
  const Point e2 = model::cross(e3, t);
  return euler_parameters(t, e2, e3);
}

}  // namespace

BeamNodes straight_beam(const Point& start, const Point& end, int elements, const Point& axis3) {
  if (elements < 1) throw std::invalid_argument("a beam needs at least one element");
  const Point d = model::subtract(end, start);
  if (!(norm(d) > 0.0)) throw std::invalid_argument("start and end coincide (zero length)");
  BeamNodes nodes;
  const auto orientation = frame(d, axis3);
  for (int k = 0; k <= elements; ++k) {
    nodes.positions.push_back(model::add(start, model::scaled(d, double(k) / elements)));
    nodes.orientations.push_back(orientation);
  }
  return nodes;
}

BeamNodes arc_beam(const Point& centre, const Point& start, double angle, const Point& axis, int elements) {
  if (elements < 1) throw std::invalid_argument("a beam needs at least one element");
  if (!(norm(axis) > 0.0)) throw std::invalid_argument("the arc axis is zero");
  if (!(std::abs(angle) > 0.0)) throw std::invalid_argument("the arc angle is zero (zero length)");
  const Point n = unit(axis);
  const Point radius0 = model::subtract(start, centre);
  if (norm(model::cross(n, radius0)) < 1e-12 * std::max(norm(radius0), 1e-300))
    throw std::invalid_argument("the start point lies on the arc axis through the centre (zero radius)");
  BeamNodes nodes;
  for (int k = 0; k <= elements; ++k) {
    // Rodrigues' rotation of the radius about n by phi.
    const double phi = angle * k / elements, c = std::cos(phi), s = std::sin(phi);
    const Point radius = model::add(model::add(model::scaled(radius0, c), model::scaled(model::cross(n, radius0), s)),
                                    model::scaled(n, model::dot(n, radius0) * (1.0 - c)));
    Point tangent = model::cross(n, radius);
    if (angle < 0.0) tangent = model::scaled(tangent, -1.0);
    nodes.positions.push_back(model::add(centre, radius));
    nodes.orientations.push_back(frame(tangent, angle < 0.0 ? model::scaled(n, -1.0) : n));
  }
  return nodes;
}

BeamNodes mesh_beam(const std::vector<Point>& points, const std::vector<std::array<int, 2>>& elements,
                    const std::vector<long long>& labels, const Point& axis3) {
  if (elements.empty()) throw std::invalid_argument("the mesh has no line elements");
  auto label = [&](int k) { return std::to_string(labels.empty() ? k : labels[k]); };
  std::vector<Point> tangent(points.size(), Point{0.0, 0.0, 0.0});
  std::vector<int> used(points.size(), 0);
  for (const auto& [a, b] : elements) {
    const int n = static_cast<int>(points.size());
    if (a < 0 || b < 0 || a >= n || b >= n) throw std::invalid_argument("an element refers to a missing node");
    if (a == b || !(norm(model::subtract(points[b], points[a])) > 0.0))
      throw std::invalid_argument("nodes " + label(a) + " and " + label(b) + " coincide (zero-length element)");
    const Point d = unit(model::subtract(points[b], points[a]));
    tangent[a] = model::add(tangent[a], d);
    tangent[b] = model::add(tangent[b], d);
    ++used[a];
    ++used[b];
  }
  BeamNodes nodes;
  std::vector<int> index(points.size(), -1);
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!used[k]) continue;  // nodes of no element are left out
    if (!(norm(tangent[k]) > 1e-12))
      throw std::invalid_argument("the elements at node " + label(static_cast<int>(k)) +
                                  " point in opposite directions (orient the elements along the beam)");
    index[k] = static_cast<int>(nodes.positions.size());
    nodes.positions.push_back(points[k]);
    nodes.orientations.push_back(frame(tangent[k], axis3));
    nodes.labels.push_back(labels.empty() ? static_cast<long long>(k) : labels[k]);
  }
  for (const auto& [a, b] : elements) nodes.elements.push_back({index[a], index[b]});
  return nodes;
}

BeamNodes polyline_beam(const std::vector<Point>& points, const Point& axis3) {
  if (points.size() < 2) throw std::invalid_argument("a polyline needs at least two points");
  BeamNodes nodes;
  for (std::size_t k = 0; k + 1 < points.size(); ++k)
    if (!(norm(model::subtract(points[k + 1], points[k])) > 0.0))
      throw std::invalid_argument("points " + std::to_string(k) + " and " + std::to_string(k + 1) +
                                  " coincide (zero-length element)");
  for (std::size_t k = 0; k < points.size(); ++k) {
    Point tangent{0.0, 0.0, 0.0};
    if (k > 0) tangent = model::add(tangent, unit(model::subtract(points[k], points[k - 1])));
    if (k + 1 < points.size()) tangent = model::add(tangent, unit(model::subtract(points[k + 1], points[k])));
    if (!(norm(tangent) > 1e-12)) throw std::invalid_argument("the polyline turns back on itself at point " +
                                                              std::to_string(k));
    nodes.positions.push_back(points[k]);
    nodes.orientations.push_back(frame(tangent, axis3));
  }
  return nodes;
}

std::array<double, 8> dual_quaternion_coordinates(const Point& x, const std::array<double, 4>& e) {
  const std::array<double, 4> d = model::quaternion_product(std::array<double, 4>{0.0, x[0], x[1], x[2]}, e);
  return {e[0], e[1], e[2], e[3], 0.5 * d[0], 0.5 * d[1], 0.5 * d[2], 0.5 * d[3]};
}

std::vector<int> add_beam(model::Model& model, const std::string& name, const BeamNodes& nodes,
                          const BeamSectionData& section, BeamFormulation formulation) {
  const bool dual_quaternion = formulation == BeamFormulation::DualQuaternion;
  std::vector<int> indices;
  for (std::size_t k = 0; k < nodes.positions.size(); ++k) {
    model::Body node;
    node.name = name + ".node" + std::to_string(nodes.labels.empty() ? static_cast<long long>(k) : nodes.labels[k]);
    if (dual_quaternion) {
      node.kind = BodyKind::DualQuaternionNode;
      const auto q = dual_quaternion_coordinates(nodes.positions[k], nodes.orientations[k]);
      node.initial_coordinates.assign(q.begin(), q.end());
    } else {
      node.kind = BodyKind::SpatialRigid;
      node.initial_coordinates = {nodes.positions[k][0], nodes.positions[k][1], nodes.positions[k][2],
                                  nodes.orientations[k][0], nodes.orientations[k][1], nodes.orientations[k][2],
                                  nodes.orientations[k][3]};
    }
    node.initial_velocities.assign(node.initial_coordinates.size(), 0.0);
    indices.push_back(model.add_node(node));
  }
  std::vector<std::array<int, 2>> elements = nodes.elements;
  if (elements.empty())
    for (std::size_t k = 0; k + 1 < indices.size(); ++k) elements.push_back({int(k), int(k + 1)});
  model.add_body_alias(name + ".start", indices[elements.front()[0]]);
  model.add_body_alias(name + ".end", indices[elements.back()[1]]);
  for (std::size_t k = 0; k < elements.size(); ++k) {
    const int a = indices[elements[k][0]], b = indices[elements[k][1]];
    const std::string element_name = name + ".element" + std::to_string(k + 1);
    if (dual_quaternion) {
      std::array<double, 16> q;
      for (int i = 0; i < 8; ++i) {
        q[i] = model.body(a).initial_coordinates[i];
        q[8 + i] = model.body(b).initial_coordinates[i];
      }
      model.add_force_element(
          make_dual_quaternion_beam(element_name, {a, b}, section, dual_quaternion_beam_reference(q.data()), model.gravity));
      continue;
    }
    std::array<double, 14> q;
    for (int i = 0; i < 7; ++i) {
      q[i] = model.body(a).initial_coordinates[i];
      q[7 + i] = model.body(b).initial_coordinates[i];
    }
    model.add_force_element(make_geometrically_exact_beam(name + ".element" + std::to_string(k + 1), {a, b}, section,
                                                          beam_reference(q.data()), model.gravity));
  }
  return indices;
}

}  // namespace flexadj::elements
