#include "flexadj/core/version.hpp"

#include <string>

#include "flexadj/core/build_commit.hpp"

namespace flexadj {

const char* program_version() { return FLEXADJ_VERSION; }

const char* program_commit() { return FLEXADJ_BUILD_COMMIT; }

const char* program_build() {
  static const std::string build = std::string(FLEXADJ_BUILD_COMMIT) == FLEXADJ_VERSION
                                       ? std::string(FLEXADJ_VERSION)
                                       : std::string(FLEXADJ_VERSION) + " (git " + FLEXADJ_BUILD_COMMIT + ")";
  return build.c_str();
}

}  // namespace flexadj
