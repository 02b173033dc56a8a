#pragma once
#include <cstdio>
#include <string>
#include <vector>

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

// Exit codes of the program.
enum ExitCode : int { kSuccess = 0, kInternalError = 1, kInputError = 2, kSolverError = 3, kCheckFailed = 4 };

int simulate_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string simulate_help();
int gradient_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string gradient_help();
int check_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string check_help();
int optimize_command(const std::vector<std::string>& arguments, RCP<const Comm> comm);
std::string optimize_help();

}  // namespace flexadj::app
