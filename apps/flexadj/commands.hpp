#pragma once
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::app {

// True (after printing `help` on rank 0) if the arguments ask for help.
inline bool wants_help(const std::vector<std::string>& arguments, const std::string& help, bool root) {
  for (const auto& a : arguments)
    if (a == "-h" || a == "--help") {
      if (root) std::fputs(help.c_str(), stdout);
      return true;
    }
  return false;
}

// The file name of `path` without folder and extension: "meshes/crane.yaml" -> "crane" (default output names).
inline std::string file_stem(const std::string& path) {
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// InputError(output, option, ...) if `output` is the file `input` (also through a link or another spelling of the
// path): an output must never overwrite the model it was computed from.
inline void refuse_overwriting_input(const std::string& output, const std::string& input, const std::string& option) {
  std::error_code error;
  if (!output.empty() && std::filesystem::exists(output, error) && std::filesystem::equivalent(output, input, error))
    throw InputError(output, option, "this is the model file " + input + "; choose another output file");
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

// Exit codes of the program.
enum ExitCode : int { kSuccess = 0, kInternalError = 1, kInputError = 2, kSolverError = 3, kCheckFailed = 4 };

int simulate_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string simulate_help();
int gradient_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string gradient_help();
int check_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string check_help();
int static_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string static_help();
int optimize_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string optimize_help();

}  // namespace flexadj::app
