#pragma once
// The identity of a run: named items that together fix its result ("integrator=crc 1a2b3c4d"), written into its
// disk checkpoints, sweep restart files and optimisation restart files and compared when they are read back, so
// that a restart never mixes two different runs. Text form: "name=value; name=value; ...".
#include <string>
#include <utility>
#include <vector>

namespace flexadj {

using RunIdentityItems = std::vector<std::pair<std::string, std::string>>;

std::string run_identity_text(const RunIdentityItems& items);

// What differs between a stored identity and this run's, for a message: "its integrator differs (crc 1a2b3c4d in
// the file, crc 5e6f7a8b in this run)"; the first differing item. Empty if they are equal.
std::string run_identity_difference(const std::string& stored, const std::string& current);

}  // namespace flexadj
