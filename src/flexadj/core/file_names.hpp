#pragma once
// File-name rules shared by the library and the program: default output names from a model file's name, the
// refusal to write through a symbolic link, and whether two names are one file.
#include <filesystem>
#include <string>

#include "flexadj/core/error.hpp"

namespace flexadj {

// The file name of `path` without folder and extension: "meshes/crane.yaml" -> "crane" (default output names).
inline std::string file_stem(const std::string& path) {
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// InputError(path, option, ...) if `path` is a symbolic link: a file flexadj writes and reads back (a trajectory)
// would overwrite the link's target, which may be any file.
inline void refuse_symbolic_link(const std::string& path, const std::string& option) {
  std::error_code error;
  if (!path.empty() && std::filesystem::is_symlink(path, error))
    throw InputError(path, option,
                     "is a symbolic link (to " + std::filesystem::read_symlink(path, error).string() +
                         "); flexadj does not write through links: give the target itself or another file name");
}

// True if `a` and `b` name the same file, also through links or another spelling of the path, whether or not the
// file exists yet. Empty names name no file.
inline bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code error_a, error_b;
  const auto path_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, error_a), error_a);
  const auto path_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, error_b), error_b);
  return !error_a && !error_b && path_a == path_b;
}

}  // namespace flexadj
