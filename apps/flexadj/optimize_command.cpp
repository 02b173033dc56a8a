// flexadj optimize: minimises the objective of a model file over its design variables with the exact
// discrete-adjoint gradient (optimization::minimize: ROL, the gradient method of Nachbagauer et al. 2015,
// Barzilai-Borwein, on optimization::GradientProblemFunction), with per-iteration progress, history, design values,
// restart file and final trajectory. This file reads the options, prints and writes the files.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "adjoint_options.hpp"
#include "commands.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/optimization/design_settings.hpp"
#include "flexadj/optimization/gradient_problem_function.hpp"
#include "flexadj/optimization/momentum_target_iteration.hpp"
#include "flexadj/optimization/optimization_files.hpp"
#include "flexadj/optimization/restart_file.hpp"
#include "flexadj/results/trajectory_output.hpp"

namespace flexadj::app {
namespace {

using Kind = problem::DesignSpace::Kind;

struct OptimizeOptions {
  std::string model_path, prefix, method;
  std::vector<std::string> overrides;
  int max_iterations = -1;
  bool quiet = false, restart = false, trajectory = true;
  AdjointSettings adjoint;  // where each iterate's forward states wait for its sweep (memory by default)
};

int parse_count(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const long x = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || x < 0 || x > 100000000)
    throw InputError("", option, "expected an integer >= 0, got '" + text + "'");
  return static_cast<int>(x);
}

OptimizeOptions parse(const std::vector<std::string>& arguments) {
  OptimizeOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj optimize --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" || a == "--output") options.prefix = value_of(i);
    else if (a == "--method") options.method = value_of(i);
    else if (a == "--max-iterations") options.max_iterations = parse_count(a, value_of(i));
    else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (a == "--restart") options.restart = true;
    else if (a == "--no-trajectory") options.trajectory = false;
    else if (a == "--adjoint") options.adjoint.mode = value_of(i);
    else if (read_trajectory_option(arguments, i, options.adjoint)) continue;
    else if (read_spacetime_option(arguments, i, options.adjoint)) continue;
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj optimize --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj optimize --help'");
  const std::vector<std::string> methods = {"lbfgs", "trust_region", "newton_krylov", "gauss_newton", "gradient",
                                            "barzilai_borwein"};
  if (!options.method.empty() && std::find(methods.begin(), methods.end(), options.method) == methods.end())
    throw InputError("", "--method",
                     "expected one of: lbfgs, trust_region, newton_krylov, gauss_newton, gradient, barzilai_borwein; got '" + options.method + "'");
  if (options.adjoint.mode != "discrete" && options.adjoint.mode != "spacetime")
    throw InputError("", "--adjoint", "expected discrete or spacetime, got '" + options.adjoint.mode + "'");
  if (options.prefix.empty()) options.prefix = file_stem(options.model_path) + "_opt";
  return options;
}

// A vector of momenta as "[a, b]".
std::string momenta(const std::vector<double>& p) {
  std::string text = "[";
  char number[32];
  for (std::size_t k = 0; k < p.size(); ++k) {
    std::snprintf(number, sizeof number, "%.10g", p[k]);
    text += (k == 0 ? "" : ", ") + std::string(number);
  }
  return text + "]";
}

// The model file's optimization section with the command line's method and iteration limit.
optimization::Settings settings_of(const GradientProblem& problem, const OptimizeOptions& options) {
  optimization::Settings s = optimization::design_settings(problem.problem(), problem.design());
  if (!options.method.empty()) s.method = options.method;
  if (options.max_iterations >= 0) s.max_iterations = options.max_iterations;
  return s;
}

}  // namespace

std::string optimize_help() {
  return "usage: flexadj optimize MODEL.yaml [options]\n"
         "\n"
         "Minimises the objective J of MODEL.yaml (section objective) over its design variables (section\n"
         "design_variables) with the exact discrete-adjoint gradient. Method, bounds and stopping rules come\n"
         "from the section optimization (docs/model-format.md). Prints one line per iteration on rank 0:\n"
         "iteration, J, |grad| (projected onto the bounds), step |x_k - x_k-1|, forward and adjoint runs so far,\n"
         "elapsed seconds; for newton_krylov and gauss_newton also the Hessian (Gauss-Newton) products since the\n"
         "previous line, one per truncated CG iteration of the iteration's trust-region steps (with bounds also\n"
         "Lin-More's Cauchy-point products; after a restart the first line counts the replayed ones too).\n"
         "\n"
         "methods (optimization.method or --method):\n"
         "  lbfgs             ROL line search with L-BFGS directions; with bounds ROL's projected quasi-Newton\n"
         "                    method (default)\n"
         "  trust_region      ROL trust region with an L-BFGS model; with bounds ROL's Lin-More algorithm\n"
         "  newton_krylov     ROL trust region, truncated CG on exact Hessian-vector products (second-order\n"
         "                    adjoint); with bounds ROL's Lin-More algorithm. Needs an integrator with the\n"
         "                    second-order adjoint (generalized_alpha, hht or variational in absolute\n"
         "                    coordinates; docs/user-guide.md, flexadj hessian)\n"
         "  gauss_newton      as newton_krylov on Gauss-Newton products J_r^T J_r v (one tangent and one adjoint\n"
         "                    sweep each; positive semidefinite), for least-squares objectives only (terms\n"
         "                    tracking, final_square, penalty, control_effort with weights >= 0); needs what\n"
         "                    newton_krylov needs\n"
         "  gradient          steepest descent, step of Nachbagauer et al. 2015 eqs. (56)/(57) (a fraction\n"
         "                    step_fraction of J), with an Armijo line search unless line_search: none\n"
         "  barzilai_borwein  two-point step size gradient method (Barzilai-Borwein), as in Schubert et al. 2024\n"
         "\n"
         "options:\n"
         "  -o, --output PREFIX     output files (default: MODEL-stem_opt):\n"
         "                            PREFIX_history.csv  one row per iteration (written as it runs, as\n"
         "                                                PREFIX_history.csv.tmp until the end)\n"
         "                            PREFIX_history.h5   /history/*, /design/{names,values,lower,upper},\n"
         "                                                /controls/<name>/{times,values}\n"
         "                            PREFIX_design.yaml  the design values of the result, the iterate of\n"
         "                                                lowest J (while it runs: of the last iterate, in\n"
         "                                                PREFIX_design.yaml.tmp);\n"
         "                                                read back with --set optimization.start_from=PREFIX_design.yaml\n"
         "                            PREFIX_restart.txt  state for --restart (exact, rewritten every iteration)\n"
         "                            PREFIX.h5, PREFIX.xmf the trajectory of the final design (ParaView; PREFIX.xmf2\n"
         "                                                for its XDMF Reader)\n"
         "                          a run that fails leaves the history, design and trajectory files of an\n"
         "                          earlier run as they were\n"
         "  --method NAME           overrides optimization.method\n"
         "  --max-iterations N      overrides optimization.max_iterations (iterations in total, also after a\n"
         "                          restart)\n"
         "  --restart               continue from PREFIX_restart.txt, exactly: the gradient and Barzilai-Borwein\n"
         "                          methods from their saved state, ROL's methods by running again from the start\n"
         "                          with the recorded evaluations of J and its gradient (no forward runs) up to\n"
         "                          the last saved iterate\n"
         "  --set KEY=VALUE         override a model-file value (repeatable), e.g. --set optimization.method=gradient\n"
         "                          or --set optimization.momentum_target_iteration={iterations: 5, tolerance: 1e-3}\n"
         "  --no-trajectory         do not write PREFIX.h5 / PREFIX.xmf / PREFIX.xmf2\n"
         "  --adjoint MODE          discrete (default): the sequential backward sweep; spacetime: all steps as one\n"
         "                          system solved by GMRES over time slabs (the same gradient to the tolerance)\n"
         + spacetime_options_help() +
         "  -q, --quiet             print nothing (files only)\n"
         "  -h, --help              this text\n"
         "where each iterate's forward states wait for its backward sweep (as in flexadj gradient):\n" +
         trajectory_options_help() +
         "\n"
         "optimization.momentum_target_iteration {iterations: K, tolerance: TOL} (Schubert et al. 2024, Remark 1):\n"
         "a sequence of optimisations, each from the design of the one before and with the stopping rules above:\n"
         "the first without the end-momentum terms (final_square on quantity momentum or angular_momentum, S_p = 0),\n"
         "the second with S_p and p~^N = p^N, then each with p~^N += p^N - p_N of the one before, at most K before\n"
         "the final one with the model's p^N, which follows once |p_N - p^N| <= TOL. After each a line 'target':\n"
         "p~^N, p_N, |p_N - p^N|, J of that optimisation and J(p^N) of the model's objective there. The history\n"
         "has a column target_iteration (the optimisation); no restart file (--restart is refused).\n"
         "\n"
         "Exit codes: 0 finished (a tolerance, the target or the iteration limit: the line 'stopped' says which),\n"
         "2 bad input, 3 the solver failed at an accepted iterate.\n";
}

int optimize_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, optimize_help(), root)) return kSuccess;
  const OptimizeOptions options = parse(arguments);
  GradientProblem problem(io::read_problem_file(options.model_path, options.overrides), comm, "optimize");
  problem.set_adjoint(options.adjoint);
  const optimization::Settings settings = settings_of(problem, options);
  // newton_krylov needs the Hessian-vector products, gauss_newton the Gauss-Newton products: exit 2 naming what is
  // missing, before any work.
  if (settings.method == "newton_krylov" || settings.method == "gauss_newton") {
    try {
      if (settings.method == "gauss_newton") problem.check_gauss_newton();
      else problem.check_second_order();
    } catch (const InputError& e) {  // the same error, saying which method asked for the second-order adjoint
      const std::string prefix = (e.file().empty() ? "" : e.file() + ": ") + (e.key().empty() ? "" : e.key() + ": ");
      throw InputError(e.file(), e.key(),
                       "optimization.method " + settings.method + ": " + std::string(e.what()).substr(prefix.size()));
    }
  }
  // The truncated CG's tolerance serves only the methods with Hessian or Gauss-Newton products: given with
  // another method (from the file or --method), the user asked for two things that contradict.
  if (problem.problem().optimization.krylov_tolerance_given && settings.method != "newton_krylov" &&
      settings.method != "gauss_newton")
    throw InputError(problem.model().source_file, "optimization.krylov_tolerance",
                     "applies to the methods newton_krylov and gauss_newton only, not to method '" + settings.method +
                         "' (" + (options.method.empty() ? "optimization.method" : "--method") +
                         "); remove it or choose one of those methods");
  // Constraints: ROL's augmented Lagrangian on the discrete adjoint; no restart (exit 2 before any work).
  const objectives::ConstraintSet* constraints = problem.constraints();
  if (constraints) {
    const std::string& file = problem.model().source_file;
    if (settings.method != "lbfgs" && settings.method != "trust_region")
      throw InputError(file, options.method.empty() ? "optimization.method" : "--method",
                       "'" + settings.method + "' takes no constraints; with a constraints section use lbfgs or "
                       "trust_region (the subproblems of ROL's augmented Lagrangian method)");
    if (problem.adjoint_settings().mode != "discrete")
      throw InputError(file, "--adjoint", "constraint gradients need the discrete adjoint, not '" +
                                              problem.adjoint_settings().mode + "'");
    if (options.restart)
      throw InputError(file, "--restart", "a run with constraints cannot restart (ROL keeps the multipliers and the "
                                          "penalty); start again from PREFIX_design.yaml with --set "
                                          "optimization.start_from=PREFIX_design.yaml");
  }
  // Schubert et al. 2024, Remark 1: the restart file holds one optimisation's state, not the iteration's.
  const problem::MomentumTargetIteration& target_iteration = problem.problem().optimization.momentum_target_iteration;
  if (target_iteration.enabled() && options.restart)
    throw InputError(problem.model().source_file, "--restart",
                     "optimization.momentum_target_iteration cannot restart (a restart file holds one optimisation, "
                     "not the iteration); start again from PREFIX_design.yaml with --set "
                     "optimization.start_from=PREFIX_design.yaml");
  // The final trajectory's name is checked before the work, not when it is written at the end.
  if (options.trajectory)
    results::check_trajectory_name(options.prefix + ".h5", problem.problem().output.xdmf, "-o",
                              "--no-trajectory, or --set output.xdmf=false");
  if (problem.adjoint_settings().storage == "hdf5")  // the trajectory file is written and kept
    for (const char* output : {"_history.csv", "_history.h5", "_design.yaml", "_restart.txt", ".h5"})
      refuse_same_file(options.prefix + output, "-o", problem.adjoint_settings().trajectory_path,
                       "--trajectory-file (the forward states of each iterate)");
  optimization::RestartState restart;
  const std::string run = problem.run_identity();  // collective; before any design values change
  if (options.restart)
    restart = optimization::read_restart(options.prefix + "_restart.txt", settings.method, run, problem.design().size());
  optimization::OptimizationFiles files(options.prefix, problem, settings, run, restart.history,
                                        "flexadj optimize " + options.model_path);
  const bool report = root && !options.quiet;
  const bool products = settings.method == "newton_krylov" || settings.method == "gauss_newton";
  const model::Model& m = problem.model();
  if (report) {
    std::printf("flexadj optimize %s%s%s\n", options.model_path.c_str(), m.title.empty() ? "" : "  -- ", m.title.c_str());
    std::printf("  objective   J = %s\n", problem.describe_objective().c_str());
    std::printf("  design      %zu variable(s), %d value(s)%s; %d rank(s)\n", problem.design().entries().size(),
                problem.design().size(), settings.lower.empty() ? "" : ", bounded", comm->getSize());
    std::printf("  method      %s, at most %d iterations%s\n", settings.method.c_str(), settings.max_iterations,
                options.restart ? (", restarted at iteration " + std::to_string(restart.iteration)).c_str() : "");
    if (target_iteration.enabled())
      std::printf("  momentum    target iteration of Schubert et al. 2024, Remark 1: at most %d optimisation(s) until "
                  "|p_N - p^N| <= %g, then one with the model's p^N\n",
                  target_iteration.iterations, target_iteration.tolerance);
    if (constraints)
      std::printf("  constraints %zu, %zu value(s); ROL's augmented Lagrangian, %s subproblems; |grad| of the "
                  "augmented Lagrangian, violation max(c - upper, lower - c, 0)\n",
                  constraints->terms().size(), constraints->size(), settings.method.c_str());
    std::printf("%5s  %-23s  %-11s  %-11s  %7s  %7s  %9s%s%s\n", "iter", "J", "|grad|", "step", "forward", "adjoint",
                "seconds", products ? "  products" : "", constraints ? "  violation" : "");
    std::fflush(stdout);
  }

  optimization::GradientProblemFunction function(problem);
  long products_before = 0;  // Hessian (Gauss-Newton) products at the previous line
  const optimization::Observer observer = [&](const optimization::Iteration& h, const std::vector<double>& x,
                                              const optimization::RestartState& state) {
    if (root && !options.quiet) {
      std::printf("%5d  %-23.16e  %-11.4e  %-11.4e  %7ld  %7ld  %9.2f", h.iteration, h.objective, h.gradient_norm,
                  h.step, h.forward_runs, h.adjoint_runs, h.seconds);
      if (products) std::printf("  %8ld", function.hessian_products() - products_before);
      if (constraints) std::printf("  %.4e", h.constraint_violation);
      std::printf("\n");
      std::fflush(stdout);
    }
    products_before = function.hessian_products();
    files.observe(h, x, state);
  };
  optimization::MomentumTargetReport target_report;
  if (report) {
    target_report.starting = [&](const optimization::MomentumTargetStep& step) {
      std::printf("optimisation %d: %s, target p~^N = %s\n", step.optimisation,
                  !step.momentum_weighted ? "S_p = 0" : step.final ? "final, the model's S_p and p^N" : "S_p",
                  momenta(step.target).c_str());
      std::fflush(stdout);
    };
    target_report.finished = [&](const optimization::MomentumTargetStep& step) {
      std::printf("target %d  p~^N = %s  p_N = %s  |p_N - p^N| = %.6e  J = %.10e  J(p^N) = %.10e\n",
                  step.optimisation, momenta(step.target).c_str(), momenta(step.momentum).c_str(), step.distance,
                  step.objective, step.model_objective);
      std::fflush(stdout);
    };
  }
  optimization::Result result;
  optimization::MomentumTargetResult iterated;
  try {
    if (target_iteration.enabled()) {
      iterated = optimization::iterate_momentum_target(problem, function, problem.values(), settings, target_iteration,
                                                       observer, target_report);
      result = iterated.result;
    } else {
      result = optimization::minimize(function, problem.values(), settings, observer,
                                      options.restart ? &restart : nullptr);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(m.source_file, "optimization", e.what());
  }

  // The final design's trajectory (the forward run is served from the cache if it was the last one).
  function.value(result.x);
  if (options.trajectory) problem.write_trajectory(options.prefix + ".h5", problem.problem().output.xdmf);
  files.finish(result);
  if (report) {
    // With the momentum target iteration: J0 and the iterations of the final optimisation (the model's objective).
    const int last_target = result.history.back().target_iteration;
    const auto& first = *std::find_if(result.history.begin(), result.history.end(), [&](const auto& h) {
      return h.target_iteration == last_target;
    });
    std::printf("stopped     %s after %d iteration(s)%s\n", result.stop_reason.c_str(), result.iterations,
                target_iteration.enabled() ? " of the final optimisation" : "");
    std::printf("result      J = %.16e (J/J0 = %.3e), forward runs %ld, adjoint runs %ld, %.2f s\n",
                result.objective, first.objective != 0.0 ? result.objective / first.objective : 0.0,
                function.forward_runs(), function.adjoint_runs(), result.history.back().seconds);
    if (target_iteration.enabled())
      std::printf("momentum    |p_N - p^N| = %.6e after %zu optimisation(s); tolerance %g %s\n",
                  iterated.steps.back().distance, iterated.steps.size(), target_iteration.tolerance,
                  iterated.reached ? "reached before the final one" : "not reached (iteration limit)");
    if (constraints)
      std::printf("constraints violation %.4e at the result (constraint_tolerance %.1e)\n",
                  result.history.back().constraint_violation, settings.constraint_tolerance);
    std::printf("output      %s, %s, %s%s%s\n", files.history_csv().c_str(), files.history_h5().c_str(),
                files.design_yaml().c_str(), target_iteration.enabled() ? "" : (", " + files.restart_file()).c_str(),
                options.trajectory ? (", " + options.prefix + ".h5").c_str() : "");
  }
  return kSuccess;
}

}  // namespace flexadj::app
