// flexadj static: static equilibrium of a model file by Newton's method with load stepping.
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/integrators/static_solver.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/results/xdmf_writer.hpp"

namespace flexadj::app {
namespace {

struct StaticOptions {
  std::string model_path, output_path;
  std::vector<std::string> overrides;
  bool xdmf = true, quiet = false, no_output = false;
};

StaticOptions parse(const std::vector<std::string>& arguments) {
  StaticOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj static --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" || a == "--output") options.output_path = value_of(i);
    else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (a == "--load-steps") options.overrides.push_back("static.load_steps=" + value_of(i));
    else if (a == "--no-xdmf") options.xdmf = false;
    else if (a == "--no-output") options.no_output = true;
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj static --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj static --help'");
  return options;
}

}  // namespace

std::string static_help() {
  return "usage: flexadj static MODEL.yaml [options]\n"
         "\n"
         "Static equilibrium of MODEL.yaml: Newton's method with load stepping (the applied loads, evaluated at\n"
         "static.time, are scaled by k/n in load steps k = 1..n; inertia is left out). Writes one output step per\n"
         "load step (the time column holds the load factor) to HDF5, with an XDMF file for ParaView.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE.h5   result file (default: output.path of the model, else MODEL-stem-static.h5)\n"
         "  --load-steps N         number of load steps (default: static.load_steps of the model, else 10)\n"
         "  --no-xdmf              do not write the .xmf and .xmf2 files (ParaView)\n"
         "  --no-output            write no result file\n"
         "  --set KEY=VALUE        override a model-file value, e.g. --set static.newton_tolerance=1e-12\n"
         "  -q, --quiet            no progress line and no summary\n"
         "  -h, --help             this text\n"
         "\n"
         "Exit codes: 0 success, 2 bad input, 3 Newton failed in a load step (the result file keeps the steps done).\n";
}

int static_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, static_help(), root)) return kSuccess;
  const StaticOptions options = parse(arguments);
  const problem::Problem problem = io::read_problem_file(options.model_path, options.overrides);
  const model::Model& model = *problem.model;
  // A static equilibrium has v = 0: a velocity constraint has no rows there (and no meaning).
  for (const auto& constraint : model.constraints())
    if (constraint->velocity_level())
      throw InputError(model.source_file, "joints",
                       "joint '" + constraint->name() + "' (" + constraint->type() +
                           ") is non-holonomic: a static solve cannot enforce velocity constraints; use flexadj "
                           "simulate");

  assembly::Assembler assembler(model, comm, assembly::partition_from_name(problem.integrator.partition));
  const linalg::LinearSolverOptions solver_options = integrators::linear_solver_options(problem.integrator);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);

  std::string output_path = options.output_path.empty() ? problem.output.path : options.output_path;
  if (output_path.empty()) output_path = file_stem(options.model_path) + "-static.h5";
  refuse_overwriting_input(output_path, options.model_path, "-o");
  std::unique_ptr<results::TrajectoryOutput> output;
  if (!options.no_output)
    output = std::make_unique<results::TrajectoryOutput>(assembler, integrators::describe_run(problem.integrator), output_path, 1,
                                                    options.xdmf && problem.output.xdmf);

  if (root && !options.quiet) {
    std::printf("flexadj static %s%s%s\n", options.model_path.c_str(), model.title.empty() ? "" : "  -- ",
                model.title.c_str());
    std::printf("  model       %zu bodies and nodes, %d coordinates, %d multipliers\n", model.bodies().size(),
                model.coordinate_count(), model.multiplier_count());
    std::printf("  solver      Newton, %d load steps, tolerance %g, %d rank(s)\n", problem.statics.load_steps,
                problem.statics.newton_tolerance, comm->getSize());
    std::fflush(stdout);
  }
  std::vector<integrators::LoadStepObserver> observers;
  if (output) observers.push_back([&](int k, double factor, const assembly::State& s) { output->observe(k, factor, s); });
  integrators::StaticSummary summary;
  try {
    summary = integrators::solve_static(assembler, state, problem.statics, solver_options, !options.quiet, observers);
  } catch (const SolverError&) {
    if (output) output->finish();
    throw;
  }
  if (output) output->finish();
  if (root && !options.quiet) {
    std::printf("summary\n");
    std::printf("  load steps  %d, Newton iterations %d (at most %d per step)\n", summary.load_steps,
                summary.newton_iterations, summary.max_newton_iterations);
    std::printf("  residuals   force %.3e, constraints %.3e\n", summary.residual, summary.constraint_residual);
    std::printf("  wall time   %.3f s\n", summary.wall_seconds);
    if (output) {
      std::printf("  output      %s", output->path().c_str());
      if (options.xdmf && problem.output.xdmf) std::printf(", %s (open in ParaView; %s for its XDMF Reader)", output->xdmf_path().c_str(),
                    results::XdmfWriter::legacy_path(output->xdmf_path()).c_str());
      std::printf("\n");
    }
  }
  return kSuccess;
}

}  // namespace flexadj::app
