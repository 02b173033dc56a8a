#pragma once
// Direction files of `flexadj hessian --direction FILE`: a CSV with a header line `name,value` and one line per
// design scalar, named as `flexadj gradient` names them (a control's values control:F[k]).
#include <string>
#include <vector>

namespace flexadj::io {

// The values in the order of `names`. InputError(path, entry, ...) for a missing file, a line that is not
// name,value with a finite number, an unknown or repeated name, or a design scalar without a line.
std::vector<double> read_direction(const std::string& path, const std::vector<std::string>& names);

}  // namespace flexadj::io
