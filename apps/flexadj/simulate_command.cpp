// flexadj simulate: forward dynamics of a model file.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "adjoint_options.hpp"
#include "commands.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/memory_usage.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/integrators/summary_file.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/core/renamed_output.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/results/xdmf_writer.hpp"

namespace flexadj::app {
namespace {

struct SimulateOptions {
  std::string model_path, output_path, summary_path, solver;
  std::vector<std::string> overrides;
  int every = 0;
  bool xdmf = true, quiet = false, no_output = false;
};

SimulateOptions parse(const std::vector<std::string>& arguments) {
  SimulateOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj simulate --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" || a == "--output") options.output_path = value_of(i);
    else if (a == "--every") {
      options.every = parse_positive<int>(a, value_of(i), true);
    } else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (a == "--solver") options.solver = value_of(i);
    else if (a == "--summary") options.summary_path = value_of(i);
    else if (a == "--no-xdmf") options.xdmf = false;
    else if (a == "--no-output") options.no_output = true;
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj simulate --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj simulate --help'");
  if (!options.solver.empty()) options.overrides.push_back("integrator.linear_solver=" + options.solver);
  return options;
}

}  // namespace

std::string simulate_help() {
  return "usage: flexadj simulate MODEL.yaml [options]\n"
         "\n"
         "Integrates the equations of motion of MODEL.yaml (generalized-alpha or HHT, index 3, or the\n"
         "midpoint variational integrator: integrator.type) and writes\n"
         "time, q, v, a, lambda and body/joint data to HDF5, with an XDMF file for ParaView.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE.h5   result file (default: output.path of the model, else MODEL-stem.h5)\n"
         "  --every N              write every N-th step (default: output.every of the model, else 1)\n"
         "  --no-xdmf              do not write the .xmf and .xmf2 files (ParaView)\n"
         "  --no-output            write no result file (timing runs)\n"
         "  --set KEY=VALUE        override a model-file value, e.g. --set integrator.step_size=1e-4\n"
         "                         or --set chain.count=1000 (repeatable)\n"
         "  --solver KIND          linear solver: auto (the default: KLU on one rank; on several the gathered\n"
         "                         KLU up to 100 000 unknowns, iterative above) | direct (KLU on one rank, MUMPS\n"
         "                         distributed on several) | klu_gathered (KLU on rank 0 of the gathered\n"
         "                         system) | iterative (GMRES + the interface Schur complement)\n"
         "  --summary FILE.json    write the run summary as JSON\n"
         "  -q, --quiet            no progress line and no summary\n"
         "  -h, --help             this text\n"
         "\n"
         "Exit codes: 0 success, 2 bad input, 3 the solver failed (the result file keeps the steps done).\n";
}

int simulate_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, simulate_help(), root)) return kSuccess;
  const SimulateOptions options = parse(arguments);
  const problem::Problem problem = io::read_problem_file(options.model_path, options.overrides);
  const model::Model& model = *problem.model;

  assembly::Assembler assembler(model, comm, assembly::partition_from_name(problem.integrator.partition));
  const linalg::LinearSolverOptions solver_options = integrators::linear_solver_options(problem.integrator);
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, solver_options);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);

  std::string output_path = options.output_path.empty() ? problem.output.path : options.output_path;
  if (output_path.empty()) output_path = file_stem(options.model_path) + ".h5";
  refuse_overwriting_input(output_path, options.model_path, "-o");
  refuse_overwriting_input(options.summary_path, options.model_path, "--summary");
  const int every = options.every > 0 ? options.every : problem.output.every;
  std::unique_ptr<results::TrajectoryOutput> output;
  if (!options.no_output)
    output = std::make_unique<results::TrajectoryOutput>(assembler, integrators::describe_run(problem.integrator), output_path, every,
                                                    options.xdmf && problem.output.xdmf);

  if (root && !options.quiet) {
    std::printf("flexadj simulate %s%s%s\n", options.model_path.c_str(), model.title.empty() ? "" : "  -- ",
                model.title.c_str());
    std::printf("  model       %s, %zu %s, %d coordinates, %d multipliers\n",
                model.dimension == 2 ? "planar" : "spatial", model.bodies().size(),
                model.bodies().size() == 1 ? "body" : "bodies", model.coordinate_count(), model.multiplier_count());
    const auto& control = problem.integrator.step_control;
    if (problem.integrator.adaptive())
      std::printf("  integrator  %s, error-controlled steps (tolerance %g, absolute %g), first step h = %g s\n",
                  integrator->description().c_str(), control.tolerance,
                  control.absolute_tolerance > 0.0 ? control.absolute_tolerance : control.tolerance,
                  problem.integrator.step_size);
    else
      std::printf("  integrator  %s, h = %g s, %lld steps%s\n", integrator->description().c_str(),
                  problem.integrator.step_size, problem.integrator.step_count(),
                  problem.integrator.end_condition ? " at most (end condition)" : "");
    std::printf("  parallel    %d rank(s), bodies by %s (%lld of %zu components couple two ranks), linear solver %s\n",
                comm->getSize(), problem.integrator.partition.c_str(),
                assembly::cut_components(model, assembler.dofs().body_ranks()),
                model.force_elements().size() + model.constraints().size(),
                integrator->linear_solver().description().c_str());
    std::fflush(stdout);
  }

  integrators::SimulationOptions simulation_options;
  simulation_options.progress = !options.quiet;
  std::vector<integrators::StepObserver> observers;
  if (output)
    observers.push_back([&](long long n, double t, const assembly::State& s) { output->observe(n, t, s); });
  integrators::SimulationSummary summary;
  try {
    summary = integrators::simulate(assembler, *integrator, state, simulation_options, observers);
  } catch (const SolverError&) {
    if (output) output->finish();  // keep the steps done so far readable
    throw;
  }
  // An end condition or step control ends the run at a step not known before: written whatever --every says
  // (`state` is that step).
  if (output && (problem.integrator.end_condition || problem.integrator.adaptive()))
    output->observe_final(summary.steps, summary.end_time, state);
  if (output) output->finish();
  const integrators::RankCosts costs = integrators::gather_rank_costs(assembler, integrator->linear_solver());
  const std::vector<double>& peak_rss_mib = costs.peak_rss_mib;

  if (root && !options.quiet) {
    std::printf("summary\n");
    std::printf("  steps       %lld to t = %g s, Newton iterations %lld (%.2f per step, at most %d)\n", summary.steps,
                summary.end_time, summary.newton_iterations,
                summary.steps ? double(summary.newton_iterations) / double(summary.steps) : 0.0,
                summary.max_newton_iterations);
    if (problem.integrator.adaptive())
      std::printf("  step sizes  %.4g .. %.4g s, %lld step(s) rejected and taken again smaller\n",
                  summary.smallest_step, summary.largest_step, summary.rejected_steps);
    const linalg::SolveCounts& solves = integrator->linear_solver().counts();
    if (solves.iterative)
      std::printf("  linear      %lld solves, GMRES iterations per solve %.1f on average, at most %d\n", solves.solves,
                  solves.mean_iterations(), solves.max_iterations);
    std::printf("  constraints max |C(q)| over all steps = %.3e\n", summary.max_constraint_residual);
    if (summary.energy_tracked)
      std::printf("  energy      E0 = %.10g J, max |E - E0| = %.3e J\n", summary.initial_energy,
                  summary.max_energy_deviation);
    else
      std::printf("  energy      not conserved by this model (dampers, loads or prescribed motion): drift not reported\n");
    if (peak_rss_mib.size() > 1) {
      std::vector<double> sorted = peak_rss_mib;
      std::sort(sorted.begin(), sorted.end());
      std::printf("  memory      peak RSS per rank: rank 0 %.0f MiB, median %.0f MiB, largest %.0f MiB\n",
                  peak_rss_mib[0], sorted[sorted.size() / 2], sorted.back());
    }
    std::printf("  wall time   %.3f s (%.1f steps/s); rank 0: assembly %.3f s, factorization %.3f s, solves %.3f s\n",
                summary.wall_seconds, summary.wall_seconds > 0 ? double(summary.steps) / summary.wall_seconds : 0.0,
                costs.assembly_seconds[0], costs.factorization_seconds[0], costs.solve_seconds[0]);
    if (output) {
      std::printf("  output      %s", output->path().c_str());
      if (options.xdmf && problem.output.xdmf) std::printf(", %s (open in ParaView; %s for its XDMF Reader)", output->xdmf_path().c_str(),
                    results::XdmfWriter::legacy_path(output->xdmf_path()).c_str());
      std::printf("\n");
    }
  }
  if (root && summary.energy_untrustworthy())
    std::fprintf(stderr,
                 "flexadj simulate: warning: the energy of this conservative model changed by up to %.3e J, more "
                 "than its energy scale %.3e J (|E0| or the largest kinetic energy): the results are not "
                 "trustworthy (a step too large for the model's fastest motion, or parameters whose scales differ "
                 "by many orders of magnitude); try a smaller integrator.step_size\n",
                 summary.max_energy_deviation, summary.energy_scale());
  if (root && !options.summary_path.empty())
    integrators::write_summary_json(options.summary_path, model, summary, comm->getSize(), integrator->linear_solver(),
                       costs, output ? output->path() : "");
  return kSuccess;
}

}  // namespace flexadj::app
