#include "adjoint_options.hpp"

#include <algorithm>
#include <cmath>

#include "flexadj/core/byte_size.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/integrators/registry.hpp"

namespace flexadj::app {

namespace {

// --trajectory-file is the file of --trajectory hdf5: with an option that keeps the states elsewhere (checkpoints)
// it would be ignored.
void refuse_other_storage(const std::vector<std::string>& arguments) {
  for (std::size_t k = 0; k + 1 < arguments.size(); ++k) {
    const std::string& other = arguments[k];
    const bool elsewhere = other == "--checkpoints" || other == "--memory-limit" || other == "--disk-checkpoints" ||
                           other == "--checkpoint-folder" || (other == "--trajectory" && arguments[k + 1] != "hdf5");
    if (elsewhere)
      throw InputError("", "--trajectory-file",
                       "is the file of --trajectory hdf5 and cannot be combined with " + other +
                           (other == "--trajectory" ? " " + arguments[k + 1] : std::string()) +
                           " (the states kept elsewhere: the file would not be written); give one of them");
  }
}

}  // namespace

bool read_trajectory_option(const std::vector<std::string>& arguments, std::size_t& i, AdjointSettings& settings) {
  const std::string& a = arguments[i];
  if (a != "--trajectory" && a != "--trajectory-file" && a != "--checkpoints" && a != "--memory-limit" &&
      a != "--disk-checkpoints" && a != "--checkpoint-folder")
    return false;
  if (i + 1 >= arguments.size()) throw InputError("", a, "option needs a value; see --help");
  const std::string& value = arguments[++i];
  if (a == "--trajectory") {
    settings.storage = value;
  } else if (a == "--trajectory-file") {
    refuse_other_storage(arguments);
    settings.trajectory_path = value;
    settings.storage = "hdf5";
  } else if (a == "--checkpoints" || a == "--disk-checkpoints") {
    std::size_t used = 0;
    long long count = 0;
    try {
      count = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || value.empty() || count < 1)
      throw InputError("", a,
                       std::string("expected a positive integer (") +
                           (a == "--checkpoints" ? "states kept in memory" : "checkpoints on disk") + "), got '" +
                           value + "'");
    (a == "--checkpoints" ? settings.checkpoints : settings.disk_checkpoints) = static_cast<std::size_t>(count);
    settings.storage = "checkpoints";
  } else if (a == "--checkpoint-folder") {
    if (value.empty()) throw InputError("", a, "expected a folder name");
    settings.folder = value;
    settings.storage = "checkpoints";
  } else {
    settings.memory_limit = parse_byte_size(value);
    if (settings.memory_limit <= 0.0)
      throw InputError("", a, std::string("expected ") + byte_size_forms() + ", got '" + value + "'");
    settings.storage = "checkpoints";
  }
  return true;
}

std::string trajectory_options_help() {
  return "  --trajectory STORAGE   where the forward states wait for the backward sweep: memory (default), hdf5\n"
         "                         (the forward run writes every step to an HDF5 file that the sweep reads) or\n"
         "                         checkpoints (S states in memory, the others recomputed during the sweep on\n"
         "                         the optimal binomial schedule of Griewank and Walther 2000: memory S + 1\n"
         "                         states for any number of steps, the same gradient bit for bit)\n"
         "  --trajectory-file F.h5 the file for --trajectory hdf5 (implies it; default MODEL.trajectory.h5 in\n"
         "                         the working folder); the file is kept (not with the checkpoint options,\n"
         "                         nor under the name of another output)\n"
         "  --checkpoints S        the number S of checkpoints (implies --trajectory checkpoints; default: the\n"
         "                         least S that recomputes each step at most twice, about sqrt(2 N))\n"
         "  --memory-limit SIZE    as many checkpoints as fit in SIZE per rank (e.g. 500MB, 4GB, 2GiB, 4 GB; implies\n"
         "                         --trajectory checkpoints; the model and the solvers need memory besides)\n"
         "  --disk-checkpoints D   a second tier on disk: at most D HDF5 checkpoint files, one every\n"
         "                         floor(N / D) + 1 steps; the sweep reverses each interval from its file with\n"
         "                         the memory checkpoints (implies --trajectory checkpoints)\n"
         "  --checkpoint-folder F  where the disk checkpoints go (default MODEL.checkpoints in the working\n"
         "                         folder; created if missing; the files are removed when the run ends). Alone,\n"
         "                         it turns on the disk tier with one file every S steps (S: the checkpoints in\n"
         "                         memory), which recomputes every step once. One run per folder: a second\n"
         "                         run on a folder in use is refused (lock file FOLDER/flexadj.lock)\n";
}

bool read_spacetime_option(const std::vector<std::string>& arguments, std::size_t& i, AdjointSettings& settings) {
  const std::string& a = arguments[i];
  if (a != "--time-slabs" && a != "--spacetime-solver" && a != "--spacetime-tolerance" &&
      a != "--spacetime-coarsening" && a != "--spacetime-memory")
    return false;
  if (i + 1 >= arguments.size()) throw InputError("", a, "option needs a value; see --help");
  if (settings.spacetime_option.empty()) settings.spacetime_option = a;
  const std::string& value = arguments[++i];
  if (a == "--spacetime-solver") {
    settings.spacetime_solver = value;
    return true;
  }
  if (a == "--spacetime-memory") {
    settings.spacetime_memory = value == "0" ? 0.0 : parse_byte_size(value);
    if (!(settings.spacetime_memory >= 0.0) || (value != "0" && settings.spacetime_memory <= 0.0))
      throw InputError("", a, std::string("expected 0 or ") + byte_size_forms() + ", got '" + value + "'");
    return true;
  }
  std::size_t used = 0;
  double number = 0.0;
  try {
    number = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool whole = number == std::floor(number);
  const bool integer = a != "--spacetime-tolerance";
  if (used != value.size() || value.empty() || !(number > 0.0) || (integer && !whole))
    throw InputError("", a,
                     std::string("expected ") + (integer ? "a positive integer" : "a positive number") + ", got '" +
                         value + "'");
  if (a == "--time-slabs") settings.time_slabs = static_cast<std::size_t>(number);
  else if (a == "--spacetime-coarsening") settings.spacetime_coarsening = static_cast<std::size_t>(number);
  else settings.spacetime_tolerance = number;
  return true;
}

std::string spacetime_options_help() {
  return "  --time-slabs P         spacetime adjoint: the steps in P slabs (default: one per rank); the ranks form\n"
         "                         time groups (the largest divisor of the rank count that divides P), each\n"
         "                         sweeping its own slabs with its own copy of the model\n"
         "  --spacetime-solver S   gmres-slab (default): GMRES preconditioned by an exact sweep of each slab,\n"
         "                         about P iterations; gmres-two-level: with a coarse-in-time correction as\n"
         "                         well (adjoint steps of K fine steps between the slabs: fewer iterations\n"
         "                         where the coarse steps approximate the fine ones, docs/adjoint.md);\n"
         "                         gmres-two-level-fcf: the same after one exact transfer of each slab (FCF\n"
         "                         relaxation); gmres: no preconditioner (for comparison); direct: the\n"
         "                         assembled matrix factored by Amesos2 KLU2 (a reference for small problems)\n"
         "  --spacetime-coarsening K  gmres-two-level: fine steps per coarse step (default 4)\n"
         "  --spacetime-tolerance T  GMRES relative residual, in (0, 1) (default 1e-10); an interface defect\n"
         "                         above 1e-4 at the end is exit 3\n"
         "  --spacetime-memory SIZE  memory per rank for what the adjoint steps keep between GMRES products\n"
         "                         (their factorizations and element Jacobians; default 2GB; 0: none): a kept\n"
         "                         step costs a product its triangular solves, the others are assembled and\n"
         "                         factorized again (generalized-alpha and HHT with the direct solvers)\n";
}

std::string integrator_kinds_help() {
  using integrators::ContinuousAdjoint;
  std::string text = "integrators (integrator.type with coordinates) and what their gradients can do:\n";
  for (const integrators::IntegratorKind& kind : integrators::integrator_kinds()) {
    std::string name = kind.type + (kind.joint_coordinates() ? ", " + kind.coordinates : "");
    name.resize(std::max<std::size_t>(name.size(), 27), ' ');
    const auto& can = kind.can;
    const char* continuous = can.continuous_adjoint == ContinuousAdjoint::Dae             ? "continuous (adjoint DAE), "
                             : can.continuous_adjoint == ContinuousAdjoint::StateSpaceOde ? "continuous (state-space ODE), "
                             : can.continuous_adjoint == ContinuousAdjoint::JointSpaceOde ? "continuous (joint-space ODE), "
                                                                                          : "";
    text += "  " + name + " " + kind.title + "\n";
    text += std::string(30, ' ') + "adjoints discrete, " + continuous + "spacetime; " +
            (can.multiple_ranks ? "any number of ranks" : "one rank") +
            (can.final_time ? "; implicit or free final time" : "") +
            (can.non_holonomic ? "; non-holonomic constraints" : "") +
            (can.error_controlled_steps ? "; error-controlled steps" : "") + "\n";
  }
  return text;
}

}  // namespace flexadj::app
