#pragma once
// Beams as chains of geometrically exact elements: node positions and section frames from a straight line,
// a circular arc or a polyline, and their nodes and elements added to a model.
#include <array>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::elements {

// Node positions and section frames (Euler parameters; frame axis 1 along the beam).
struct BeamNodes {
  std::vector<Point> positions;
  std::vector<std::array<double, 4>> orientations;
};

// Section axis 3 is the component of `axis3` normal to the tangent (axis 2 = axis 3 x axis 1).
// Throws std::invalid_argument with a reason for degenerate input (zero length, axis3 along the tangent).
BeamNodes straight_beam(const Point& start, const Point& end, int elements, const Point& axis3);
// Arc about `axis` through `start` around `centre`, `angle` rad (right-handed about axis); section axis 3
// along the arc axis, axis 2 towards the centre.
BeamNodes arc_beam(const Point& centre, const Point& start, double angle, const Point& axis, int elements);
// Through the given points; the tangent at a node is the mean direction of its segments.
BeamNodes polyline_beam(const std::vector<Point>& points, const Point& axis3);

// Adds nodes "<name>.node<k>" (k = 0..n, aliases "<name>.start" and "<name>.end") and elements
// "<name>.element<k>" (k = 1..n) between consecutive nodes; returns the node indices.
std::vector<int> add_beam(model::Model& model, const std::string& name, const BeamNodes& nodes,
                          const BeamSectionData& section);

}  // namespace flexadj::elements
