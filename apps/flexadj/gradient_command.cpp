// flexadj gradient: the objective of a model file and its adjoint gradient (discrete or continuous) with
// respect to the model's design variables.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <Teuchos_CommHelpers.hpp>

#include "commands.hpp"
#include "adjoint_options.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/renamed_output.hpp"
#include "flexadj/gradient/gradient_files.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/integrators/registry.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace flexadj::app {
namespace {

using Kind = problem::DesignSpace::Kind;

struct GradientOptions {
  std::string model_path, csv_path, h5_path, violation_path;
  std::vector<std::string> overrides;
  AdjointSettings adjoint;
  bool quiet = false;
  bool print_schedule = false;
};

GradientOptions parse(const std::vector<std::string>& arguments) {
  GradientOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj gradient --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" || a == "--output") options.csv_path = value_of(i);
    else if (a == "--h5") options.h5_path = value_of(i);
    else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (a == "--adjoint") options.adjoint.mode = value_of(i);
    else if (a == "--print-schedule") options.print_schedule = true;
    else if (a == "--restart") options.adjoint.restart = true;
    else if (a == "--bdf-order") options.adjoint.bdf_order = parse_positive<int>(a, value_of(i), true);
    else if (a == "--adjoint-steps") options.adjoint.adjoint_steps = parse_positive<long long>(a, value_of(i), true);
    else if (a == "--continuous-form") options.adjoint.continuous_form = value_of(i);
    else if (a == "--adjoint-violation") {
      options.violation_path = value_of(i);
      options.adjoint.adjoint_constraint_history = true;
    }
    else if (read_trajectory_option(arguments, i, options.adjoint)) continue;
    else if (read_spacetime_option(arguments, i, options.adjoint)) continue;
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj gradient --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj gradient --help'");
  return options;
}

void print_header(const GradientOptions& options, const GradientProblem& problem, const Comm& comm,
                  const storage::BinomialSchedule* schedule) {
  const model::Model& m = problem.model();
  const integrators::IntegratorSettings& run = problem.problem().integrator;
  std::printf("flexadj gradient %s%s%s\n", options.model_path.c_str(), m.title.empty() ? "" : "  -- ", m.title.c_str());
  std::printf("  model       %s, %zu %s, %d coordinate(s), %d multiplier(s); %d rank(s)\n",
              m.dimension == 2 ? "planar" : "spatial", m.bodies().size(), m.bodies().size() == 1 ? "body" : "bodies",
              m.coordinate_count(), m.multiplier_count(), comm.getSize());
  // With an end condition the count is an upper bound.
  const char* at_most = run.end_condition ? " at most (end condition)" : "";
  const integrators::IntegratorKind& kind = integrators::integrator_kind(run);
  if (kind.can.spectral_radius && run.adaptive())
    std::printf("  integrator  %s, rho_inf = %g, error-controlled steps (tolerance %g; %s), first step h = %g s\n",
                kind.title.c_str(), run.spectral_radius, run.step_control.tolerance,
                problem.adjoint_settings().mode == "continuous"
                    ? "the continuous adjoint takes constant steps of its own"
                    : "the discrete adjoint holds the chosen steps fixed",
                run.step_size);
  else if (kind.can.spectral_radius)
    std::printf("  integrator  %s, rho_inf = %g, h = %g s, %lld steps%s\n", kind.title.c_str(), run.spectral_radius,
                run.step_size, run.step_count(), at_most);
  else
    std::printf("  integrator  %s, h = %g s, %lld steps%s\n", kind.title.c_str(), run.step_size, run.step_count(),
                at_most);
  std::printf("  objective   J = %s\n", problem.describe_objective().c_str());
  std::printf("  adjoint     %s\n", problem.describe_adjoint().c_str());
  const AdjointSettings& a = problem.adjoint_settings();
  if (schedule) {
    const auto steps = static_cast<unsigned long long>(schedule->steps);
    if (schedule->disk_interval > 0 && a.mode == "spacetime")
      std::printf("  trajectory  %llu checkpoints in memory and %llu on disk in %s (one every %llu steps) of %llu + 1 "
                  "states; each time group recomputes its slabs from the file at or below its first slab\n",
                  static_cast<unsigned long long>(schedule->slots),
                  static_cast<unsigned long long>(schedule->disk_writes), a.folder.c_str(),
                  static_cast<unsigned long long>(schedule->disk_interval), steps);
    else if (schedule->disk_interval == 0)
      std::printf("  trajectory  %llu checkpoints in memory of %llu + 1 states (binomial checkpointing); the sweep "
                  "recomputes %llu steps\n", static_cast<unsigned long long>(schedule->slots), steps,
                  static_cast<unsigned long long>(schedule->recomputed_steps));
    else
      std::printf("  trajectory  %llu checkpoints in memory and %llu on disk in %s (one every %llu steps) of %llu + 1 "
                  "states (two-level checkpointing); the sweep recomputes %llu steps and reads %llu files\n",
                  static_cast<unsigned long long>(schedule->slots),
                  static_cast<unsigned long long>(schedule->disk_writes), a.folder.c_str(),
                  static_cast<unsigned long long>(schedule->disk_interval), steps,
                  static_cast<unsigned long long>(schedule->recomputed_steps),
                  static_cast<unsigned long long>(schedule->disk_reads));
  } else {
    std::printf("  trajectory  %s\n", a.storage == "hdf5" ? ("HDF5 file " + a.trajectory_path).c_str() : "memory");
  }
  std::printf("  design      %zu variable(s), %d value(s)%s\n", problem.design().entries().size(),
              problem.design().size(), problem.problem().design_variables.empty() ? " (all component parameters)" : "");
  std::fflush(stdout);
}

// The table: one line per parameter or initial value, one summary line per control signal.
void print_result(const GradientProblem& problem, const GradientEvaluation& e) {
  const std::vector<double> values = problem.values();
  const std::vector<double>& gradient = e.gradient;
  std::size_t width = 16;
  for (const auto& entry : problem.design().entries())
    if (entry.kind != Kind::Control) width = std::max(width, entry.name.size());
  std::printf("J = %.15g\n", e.objective);
  std::printf("  %-*s  %-22s  %s\n", int(width), "design variable", "value", "dJ/d(value)");
  for (const auto& entry : problem.design().entries()) {
    const int i = entry.offset;
    if (entry.kind != Kind::Control) {
      std::printf("  %-*s  %-22.15g  %.15g\n", int(width), entry.name.c_str(), values[i], gradient[i]);
      continue;
    }
    double largest = 0.0;
    for (int k = i; k < i + entry.size; ++k) largest = std::max(largest, std::abs(gradient[k]));
    std::printf("  control %s: %d values, |dJ/du|_max = %.6g\n", entry.control.c_str(), entry.size, largest);
  }
  std::printf("timing  forward %.3f s, adjoint %.3f s, adjoint/forward %.2f\n", e.forward_seconds, e.adjoint_seconds,
              e.forward_seconds > 0.0 ? e.adjoint_seconds / e.forward_seconds : 0.0);
  if (const adjoint::SpacetimeStatistics* s = problem.spacetime_statistics()) {
    if (problem.adjoint_settings().spacetime_solver == "direct")
      std::printf("spacetime  %zu slabs in %zu time groups: direct solve (Amesos2 KLU2), relative residual", s->slabs,
                  s->groups);
    else
      std::printf("spacetime  %zu slabs in %zu time groups: %d GMRES iterations, relative residuals", s->slabs,
                  s->groups, s->iterations);
    for (double r : s->residuals) std::printf(" %.2e", r);
    if (s->attained_residual >= 0.0)
      std::printf(" (the explicit residual |b - A x| / |b| attained %.2e: round-off over the whole run left it above "
                  "the tolerance)", s->attained_residual);
    std::printf("; interface defect %.2e; %zu adjoint steps on rank 0's group (the sequential sweep: %zu)\n",
                s->interface_defect, s->adjoint_steps, s->steps + 1);
    if (s->recomputed) {
      // Per group: the steps it took from its file (adjoint/slab_states.hpp).
      const std::vector<std::size_t>& first = s->group_first_steps;
      std::printf("spacetime  forward states recomputed from checkpoint files: steps recomputed per group");
      bool below = false;
      for (std::size_t g = 0; g < s->groups; ++g) {
        std::printf(" %zu (from step %zu)", s->group_recomputed_steps[g], s->group_checkpoints[g]);
        below = below || s->group_checkpoints[g] < first[g];
      }
      std::printf(below ? "; no disk interval within the file limit divides the groups' first steps: a group starts "
                          "from the file below\n"
                        : "; every group starts at its first step\n");
    } else {
      std::printf("spacetime  forward states from the trajectory (every step read once by all ranks)\n");
    }
    if (!s->kept_refusal.empty())
      std::printf("spacetime  every product assembles and factorizes its steps again: %s\n", s->kept_refusal.c_str());
    else if (s->steps_taken_again > 0)
      std::printf("spacetime  %zu steps kept between products (%.1f MB per rank, the --spacetime-memory limit); %zu "
                  "adjoint steps assembled and factorized again\n",
                  s->kept_steps, s->kept_bytes / 1e6, s->steps_taken_again);
    else
      std::printf("spacetime  %zu steps kept between products (factorizations and element Jacobians, %.1f MB per "
                  "rank): a product costs triangular solves\n",
                  s->kept_steps, s->kept_bytes / 1e6);
  }
  if (const storage::CheckpointStatistics* c = problem.checkpoint_statistics()) {
    std::printf("checkpoints  %llu slots: %llu steps recomputed, %llu checkpoints stored, %llu restores",
                static_cast<unsigned long long>(c->slots), static_cast<unsigned long long>(c->recomputed_steps),
                static_cast<unsigned long long>(c->stores), static_cast<unsigned long long>(c->restores));
    if (c->disk_interval > 0)
      std::printf("; disk: %llu files written, %llu read, %.3f s", static_cast<unsigned long long>(c->disk_writes),
                  static_cast<unsigned long long>(c->disk_reads), c->disk_seconds);
    std::printf("\n");
  }
}

// The Hamiltonian continuous adjoint's constraint violation per step (rank 0 writes), and its largest value.
void write_violation(const GradientProblem& problem, RenamedOutput& file, const Comm& comm, bool report) {
  const adjoint::AdjointConstraintHistory& h = problem.adjoint_constraint_history();
  int written = 0;
  if (comm.getRank() == 0) {
    std::ofstream out(file.temporary());
    out.precision(17);
    out << "time,violation,xi\n";
    for (std::size_t k = 0; k < h.times.size(); ++k)
      out << h.times[k] << ',' << h.violations[k] << ',' << h.magnitudes[k] << '\n';
    out.close();
    written = static_cast<bool>(out);
  }
  Teuchos::broadcast(comm, 0, &written);
  if (!written) throw OutputError(file.path() + ": writing the CSV file failed on rank 0");
  file.commit();
  if (report && !h.times.empty()) {
    const auto worst = std::max_element(h.violations.begin(), h.violations.end()) - h.violations.begin();
    std::printf("adjoint constraint  max |C_q xi| = %.3e at t = %g s (max |xi| = %.3e over the run)\n",
                h.violations[worst], h.times[worst], *std::max_element(h.magnitudes.begin(), h.magnitudes.end()));
  }
}

}  // namespace

std::string gradient_help() {
  return "usage: flexadj gradient MODEL.yaml [options]\n"
         "\n"
         "Computes the objective J of MODEL.yaml (section objective) and its gradient with respect to the\n"
         "design variables (section design_variables; default: all component parameters) by an adjoint\n"
         "method: one forward run, one backward sweep with the transposed matrices and the model's linear\n"
         "solver (integrator.linear_solver, as the forward run). Prints J, a table of design variable / value /\n"
         "dJ/d(value) (a control signal as one line with its number of values and max |dJ/du|) and the forward\n"
         "and adjoint times.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE.csv  write every design scalar: columns name,value,gradient (a control's values\n"
         "                         are named control:F[k])\n"
         "  --h5 FILE.h5           write /objective, /design/names, /design/values, /design/gradient and\n"
         "                         /controls/<name>/times, /values, /gradient\n"
         "  --set KEY=VALUE        override a model-file value, e.g. --set integrator.step_size=1e-4\n"
         "                         or --set design_variables=[spring.stiffness] (repeatable)\n"
         "  --adjoint MODE         discrete (default): the discrete adjoint of the model's integrator\n"
         "                         (generalized-alpha, HHT, variational, state_space or hamiltonian), the exact\n"
         "                         gradient of the discrete J; continuous (not with variational): the adjoint DAE of\n"
         "                         Nachbagauer et al. 2015 integrated backwards by BDF, the gradient of the continuous\n"
         "                         J to the integration error (docs/adjoint.md); with integrator type state_space the\n"
         "                         adjoint ODE of Held and Seifried's QR state-space form (dense QR: one rank, at most\n"
         "                         24 coordinates); with type hamiltonian and coordinates: joint the joint-coordinate\n"
         "                         adjoint ODE of Maciag et al. 2022 (one rank); spacetime: the discrete adjoint's\n"
         "                         equations of all steps as one system, solved by GMRES over time slabs in parallel\n"
         "                         (the discrete J's gradient to the GMRES tolerance)\n"
         "  --continuous-form F    continuous adjoint with integrator type hamiltonian (absolute coordinates):\n"
         "                         dae (default) the adjoint DAE above; hamiltonian the redundant-coordinate\n"
         "                         adjoint of the constrained Hamiltonian equations, Maciag et al. 2022 eqs.\n"
         "                         (21a)-(21c); hamiltonian_index1 the same in the paper's index-1 form (22a)/(22b)\n"
         "                         (both Heun backwards on the forward grid)\n"
         "  --adjoint-violation FILE.csv\n"
         "                         with --continuous-form hamiltonian or hamiltonian_index1 (or coordinates:\n"
         "                         joint): write the adjoint's constraint violation\n"
         "                         per step, columns time,violation,xi (max |C_q xi| and max |xi|; C_q xi = 0 holds\n"
         "                         for the exact adjoint)\n"
         "  --bdf-order K          continuous adjoint: BDF order 1..4 (default 2; the result is at most second\n"
         "                         order, as the forward run)\n"
         "  --adjoint-steps N      continuous adjoint: N constant steps of its own over [t0, t1], the forward\n"
         "                         states (q, v, a, lambda) interpolated at its times by the cubic through the\n"
         "                         four nearest stored steps (default: the forward grid if its steps are constant,\n"
         "                         else as many steps as the forward run: error-controlled steps, an end condition)\n"
         + spacetime_options_help() + trajectory_options_help() +
         "  --print-schedule       print the checkpoint schedule, action by action, before the run (over\n"
         "                         100000 steps: its counts only)\n"
         "  --restart              resume a run that was killed, from its disk checkpoints (the folder of\n"
         "                         --disk-checkpoints / --checkpoint-folder, with the same model, options and\n"
         "                         rank count): the backward sweep from its last restart file, else the forward\n"
         "                         run from its last disk checkpoint; the same gradient bit for bit. Without\n"
         "                         --restart a run removes the files it finds in its folder\n"
         "  -q, --quiet            print nothing (files only)\n"
         "  -h, --help             this text\n"
         "\n" + integrator_kinds_help() +
         "\n"
         "Exit codes: 0 success, 2 bad input (also: no objective), 3 the solver failed.\n";
}

int gradient_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, gradient_help(), root)) return kSuccess;
  const GradientOptions options = parse(arguments);
  GradientProblem problem(io::read_problem_file(options.model_path, options.overrides), comm, "gradient");
  problem.set_adjoint(options.adjoint);
  refuse_overwriting_input(options.csv_path, options.model_path, "-o");
  refuse_overwriting_input(options.h5_path, options.model_path, "--h5");
  refuse_overwriting_input(options.adjoint.trajectory_path, options.model_path, "--trajectory-file");
  if (problem.adjoint_settings().storage == "hdf5") {  // the trajectory file is written and kept
    const std::string& trajectory = problem.adjoint_settings().trajectory_path;
    refuse_same_file(options.csv_path, "-o", trajectory, "--trajectory-file (the forward states)");
    refuse_same_file(options.h5_path, "--h5", trajectory, "--trajectory-file (the forward states)");
  }
  refuse_same_file(options.csv_path, "-o", options.h5_path, "--h5");
  refuse_overwriting_input(options.violation_path, options.model_path, "--adjoint-violation");
  refuse_same_file(options.violation_path, "--adjoint-violation", options.csv_path, "-o");
  refuse_same_file(options.violation_path, "--adjoint-violation", options.h5_path, "--h5");
  GradientFiles files(options.csv_path, options.h5_path, *comm);
  RenamedOutput violation_file(options.violation_path, raw_mpi_comm(*comm));
  if (!options.violation_path.empty()) {
    int ok = root ? static_cast<bool>(std::ofstream(violation_file.temporary())) : 0;
    Teuchos::broadcast(*comm, 0, &ok);
    if (!ok) throw InputError(options.violation_path, "--adjoint-violation", "cannot write the CSV file (does its folder exist?)");
  }
  const bool report = root && !options.quiet;
  // Collective (it may build the assembler to size the checkpoints): before the rank-0 header.
  const std::unique_ptr<storage::BinomialSchedule> schedule = problem.checkpoint_schedule(options.print_schedule);
  if (report) print_header(options, problem, *comm, schedule.get());
  if (root && schedule && !schedule->recomputation_warning().empty())
    std::fprintf(stderr, "flexadj gradient: warning: %s\n", schedule->recomputation_warning().c_str());
  problem.set_progress(!options.quiet);
  if (options.print_schedule) {
    if (!schedule) throw InputError("", "--print-schedule", "needs --trajectory checkpoints (there is no schedule)");
    if (report) std::printf("%s", schedule->describe().c_str());
    std::fflush(stdout);
  }

  const GradientEvaluation e = problem.evaluate(true);
  if (report) print_result(problem, e);
  files.write(problem, e.objective, e.gradient);
  if (!options.violation_path.empty()) write_violation(problem, violation_file, *comm, report);
  if (report) {
    std::string written = options.csv_path;
    if (!options.h5_path.empty()) written += (written.empty() ? "" : ", ") + options.h5_path;
    if (!options.violation_path.empty()) written += (written.empty() ? "" : ", ") + options.violation_path;
    if (!written.empty()) std::printf("output  %s\n", written.c_str());
  }
  return kSuccess;
}

}  // namespace flexadj::app
