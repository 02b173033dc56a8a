#pragma once
// Beams as chains of geometrically exact elements: node positions and section frames from a straight line,
// a circular arc or a polyline, and their nodes and elements added to a model.
#include <array>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::elements {

// Node positions and section frames (Euler parameters; frame axis 1 along the beam); elements as node index
// pairs (empty: consecutive nodes) and node labels for the names (empty: the index).
struct BeamNodes {
  std::vector<Point> positions;
  std::vector<std::array<double, 4>> orientations;
  std::vector<std::array<int, 2>> elements;
  std::vector<long long> labels;
};

// Section axis 3 is the component of `axis3` normal to the tangent (axis 2 = axis 3 x axis 1).
// Throws std::invalid_argument with a reason for degenerate input (zero length, axis3 along the tangent).
BeamNodes straight_beam(const Point& start, const Point& end, int elements, const Point& axis3);
// Arc about `axis` through `start` around `centre`, `angle` rad (right-handed about axis); section axis 3
// along the arc axis, axis 2 towards the centre.
BeamNodes arc_beam(const Point& centre, const Point& start, double angle, const Point& axis, int elements);
// Through the given points; the tangent at a node is the mean direction of its segments.
BeamNodes polyline_beam(const std::vector<Point>& points, const Point& axis3);

// A 1D mesh (e.g. a Gmsh file, io/gmsh_mesh.hpp): nodes and line elements; the tangent at a node is the mean direction of its elements (oriented
// from their first to their second node).
BeamNodes mesh_beam(const std::vector<Point>& points, const std::vector<std::array<int, 2>>& elements,
                    const std::vector<long long>& labels, const Point& axis3);

// Adds nodes "<name>.node<k>" (k = 0..n, or the labels; aliases "<name>.start" for the first node of the first
// element and "<name>.end" for the second node of the last) and elements "<name>.element<k>" (k = 1..m) between
// consecutive nodes or as listed; returns the node indices.
// formulation: the geometrically exact element (SpatialRigid nodes) or the dual-quaternion element of Schubert et al.
// 2024 (DualQuaternionNode nodes, q_r the section's Euler parameters, q_d = x q_r/2).
enum class BeamFormulation { GeometricallyExact, DualQuaternion };
std::vector<int> add_beam(model::Model& model, const std::string& name, const BeamNodes& nodes,
                          const BeamSectionData& section,
                          BeamFormulation formulation = BeamFormulation::GeometricallyExact);

// The coordinates (q_r, q_d) of a dual-quaternion node at position x with Euler parameters e.
std::array<double, 8> dual_quaternion_coordinates(const Point& x, const std::array<double, 4>& e);

}  // namespace flexadj::elements
