#pragma once
// ANCF beams as chains of ANCF elements on the node positions and section frames of a line, an arc or a polyline
// (beam_builder.hpp).
#include <string>
#include <vector>

#include "flexadj/elements/beam_builder.hpp"

namespace flexadj::elements {

enum class AncfType { Planar, Cable, Full };

// Adds nodes "<name>.node<k>" (aliases "<name>.start", "<name>.end") with their coordinates from `nodes`: the
// position and the unit tangent (section axis 1) as slope r_x; full nodes also r_y, r_z = section axes 2, 3. Planar
// nodes take x and y. Adds elements "<name>.element<k>" stress-free in this configuration, each with the arc
// length between its nodes (chord phi / (2 sin(phi/2)) for tangents turning by phi). `data` gives the section, the
// damping and the curvature model. Throws std::invalid_argument for planar nodes off the plane z = 0.
std::vector<int> add_ancf_beam(model::Model& model, const std::string& name, AncfType type, const BeamNodes& nodes,
                               AncfElementData data);

}  // namespace flexadj::elements
