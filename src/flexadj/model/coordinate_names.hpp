#pragma once
// Names of coordinates, "<body>.<coordinate>", as in the results' /model/coordinate_names: point masses
// x, y(, z); planar rigid bodies x, y, theta; spatial rigid bodies x, y, z, e0, e1, e2, e3.
#include <string>
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::model {

// The coordinate names of one body of this kind, without the body: {"x", "y", "theta"}.
const std::vector<std::string>& coordinate_suffixes(BodyKind kind);

// "cart.x" of a global coordinate id.
std::string coordinate_name(const Model& model, long long coordinate);

// Global coordinate id of "<body>.<coordinate>". Throws InputError with empty file and key (the message
// alone, for the caller to place) if the body or the coordinate does not exist; the message lists the
// bodies or the body's coordinates.
long long find_coordinate(const Model& model, const std::string& name);

}  // namespace flexadj::model
