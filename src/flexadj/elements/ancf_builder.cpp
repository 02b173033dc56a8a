#include "flexadj/elements/ancf_builder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace flexadj::elements {

std::vector<int> add_ancf_beam(model::Model& model, const std::string& name, AncfType type, const BeamNodes& nodes,
                               AncfElementData data) {
  const BodyKind kind = type == AncfType::Planar ? BodyKind::AncfPlanarNode
                        : type == AncfType::Cable ? BodyKind::AncfCableNode
                                                  : BodyKind::AncfFullNode;
  std::vector<int> indices;
  std::vector<std::array<double, 9>> frames;
  for (std::size_t k = 0; k < nodes.positions.size(); ++k) {
    const auto R = model::rotation_from_euler_parameters(nodes.orientations[k].data());
    frames.push_back(R);
    const Point& x = nodes.positions[k];
    model::Body node;
    node.name = name + ".node" + std::to_string(k);
    node.kind = kind;
    if (type == AncfType::Planar) {
      if (std::abs(x[2]) > 0.0 || std::abs(R[6]) > 1e-12)
        throw std::invalid_argument("a planar ANCF beam lies in the plane z = 0");
      node.initial_coordinates = {x[0], x[1], R[0], R[3]};
    } else {
      node.initial_coordinates = {x[0], x[1], x[2], R[0], R[3], R[6]};
      if (type == AncfType::Full)
        for (int column = 1; column < 3; ++column)
          for (int i = 0; i < 3; ++i) node.initial_coordinates.push_back(R[3 * i + column]);
    }
    node.initial_velocities.assign(node.initial_coordinates.size(), 0.0);
    indices.push_back(model.add_node(node));
  }
  model.add_body_alias(name + ".start", indices.front());
  model.add_body_alias(name + ".end", indices.back());
  for (std::size_t k = 0; k + 1 < indices.size(); ++k) {
    const auto& a = model.body(indices[k]).initial_coordinates;
    const auto& b = model.body(indices[k + 1]).initial_coordinates;
    const double chord = std::sqrt(model::dot(model::subtract(nodes.positions[k + 1], nodes.positions[k]),
                                              model::subtract(nodes.positions[k + 1], nodes.positions[k])));
    const double cosine = frames[k][0] * frames[k + 1][0] + frames[k][3] * frames[k + 1][3] + frames[k][6] * frames[k + 1][6];
    const double phi = std::acos(std::clamp(cosine, -1.0, 1.0));
    data.length = phi > 1e-8 ? chord * phi / (2.0 * std::sin(0.5 * phi)) : chord;
    data.reference.fill(0.0);
    std::copy(a.begin(), a.end(), data.reference.begin());
    std::copy(b.begin(), b.end(), data.reference.begin() + a.size());
    const std::string element = name + ".element" + std::to_string(k + 1);
    const std::array<int, 2> pair{indices[k], indices[k + 1]};
    model.add_force_element(type == AncfType::Full ? make_ancf_full_beam(element, pair, data, model.gravity)
                                                   : make_ancf_gradient_deficient(element, type == AncfType::Planar ? 2 : 3,
                                                                                  pair, data, model.gravity));
  }
  return indices;
}

}  // namespace flexadj::elements
