#pragma once
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/file_names.hpp"
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

// InputError(output, option, ...) if `output` is the file `input` (also through a link or another spelling of the
// path): an output must never overwrite the model it was computed from.
inline void refuse_overwriting_input(const std::string& output, const std::string& input, const std::string& option) {
  std::error_code error;
  if (!output.empty() && std::filesystem::exists(output, error) && std::filesystem::equivalent(output, input, error))
    throw InputError(output, option, "this is the model file " + input + "; choose another output file");
}

// InputError(output, option, ...) if `output` is also the file of `other_option`: one file cannot hold both.
inline void refuse_same_file(const std::string& output, const std::string& option, const std::string& other,
                             const std::string& other_option) {
  if (same_file(output, other))
    throw InputError(output, option, "is also the file of " + other_option + "; give each its own file");
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
int hessian_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string hessian_help();

}  // namespace flexadj::app
