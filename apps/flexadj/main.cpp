// flexadj: the command-line program.
#include "flexadj/core/runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/version.hpp"
#include "flexadj/results/hdf5_results_file.hpp"

namespace {

const char* kUsage =
    "usage: flexadj COMMAND [options]\n"
    "\n"
    "Flexible multibody dynamics with adjoint gradients.\n"
    "\n"
    "commands:\n"
    "  simulate MODEL.yaml   forward dynamics; writes HDF5 + XDMF for ParaView\n"
    "  gradient MODEL.yaml   objective and its discrete-adjoint gradient for the design variables\n"
    "  check MODEL.yaml      verifies that gradient: Taylor test and finite differences\n"
    "  hessian MODEL.yaml    Hessian-vector products of the objective by the second-order adjoint\n"
    "  static MODEL.yaml     static equilibrium (Newton with load steps); writes HDF5 + XDMF\n"
    "  optimize MODEL.yaml   minimises the objective over the design variables (ROL, gradient, Barzilai-Borwein)\n"
    "\n"
    "Run 'flexadj COMMAND --help' for the options of a command. Under MPI: mpirun -np N flexadj ...\n"
    "Exit codes: 0 success, 2 bad input (model file or options), 3 the solver failed or a result file could not\n"
    "be written, 4 the gradient failed 'flexadj check', 1 internal error.\n";

}  // namespace

// Runs one command and gives its exit code.
int run(int argc, char** argv, const flexadj::Runtime& runtime);

int main(int argc, char** argv) {
  const flexadj::Runtime runtime(argv);
  const int code = run(argc, argv, runtime);
  if (flexadj::results::results_file_left_open()) {
    // HDF5 would crash finalizing a file whose close failed (flexadj::results::results_file_left_open): end here, with
    // the error already reported, without finalizing MPI.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}

int run(int argc, char** argv, const flexadj::Runtime& runtime) {
  auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h" || arguments[0] == "help") {
    if (root) std::cout << kUsage;
    return arguments.empty() ? flexadj::app::kInputError : flexadj::app::kSuccess;
  }
  if (arguments[0] == "--version") {
    if (root) std::cout << "flexadj " << flexadj::program_build() << "\n";
    return flexadj::app::kSuccess;
  }
  const std::string command = arguments[0];
  arguments.erase(arguments.begin());
  try {
    if (command == "simulate") return flexadj::app::simulate_command(arguments, comm);
    if (command == "gradient") return flexadj::app::gradient_command(arguments, comm);
    if (command == "check") return flexadj::app::check_command(arguments, comm);
    if (command == "static") return flexadj::app::static_command(arguments, comm);
    if (command == "optimize") return flexadj::app::optimize_command(arguments, comm);
    if (command == "hessian") return flexadj::app::hessian_command(arguments, comm);
    throw flexadj::InputError("", "",
                              "unknown command '" + command + "' (expected: simulate, gradient, check, hessian, static, optimize); see 'flexadj --help'");
  } catch (const flexadj::InputError& error) {
    if (root) std::cerr << "flexadj: error: " << error.what() << "\n";
    return flexadj::app::kInputError;
  } catch (const flexadj::SolverError& error) {
    if (root) std::cerr << "flexadj: solver failed: " << error.what() << "\n";
    return flexadj::app::kSolverError;
  } catch (const flexadj::OutputError& error) {
    if (root) std::cerr << "flexadj: output failed: " << error.what() << "\n";
    return flexadj::app::kSolverError;
  } catch (const std::exception& error) {
    std::cerr << "flexadj: internal error on rank " << comm->getRank() << ": " << error.what() << "\n";
    return flexadj::app::kInternalError;
  }
}
