#pragma once
// The spatial knife edge (knife_edge.cpp), apart from constraints.hpp so that few files depend on it.
#include <memory>
#include <string>

#include "flexadj/constraints/constraints.hpp"

namespace flexadj::constraints {

// Non-holonomic: the point (body axes) of spatial rigid body `body` has no velocity along `across` (body axes,
// unit): the spatial knife edge.
std::unique_ptr<model::Constraint> make_spatial_knife_edge(const std::string& name, int body, const Point& point,
                                                           const Point& across);

}  // namespace flexadj::constraints
