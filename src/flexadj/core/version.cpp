#include "flexadj/core/version.hpp"

namespace flexadj {

const char* program_version() { return FLEXADJ_VERSION; }

}  // namespace flexadj
