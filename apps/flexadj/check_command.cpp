// flexadj check: verifies the discrete-adjoint gradient of a model file's objective with the tests of verification/:
// (a) a Taylor test along a random direction (the remainder must fall at second order), (b) central
// differences along random directions, (c) the extrapolated forward differences of Bestle and Eberhard (1992) for
// the first design variables, with adaptive order and an error estimate; (d) the Hessian-vector product; (e) the
// constraints' gradients J_c^T lambda by (a) and (b). This file reads the options and prints.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include "commands.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/verification/central_difference.hpp"
#include "flexadj/verification/extrapolated_difference.hpp"
#include "flexadj/verification/hessian_check.hpp"
#include "flexadj/verification/taylor_test.hpp"
#include "adjoint_options.hpp"
#include "flexadj/gradient/gradient_problem.hpp"

namespace flexadj::app {
namespace {

constexpr int kExtrapolatedVariables = 3;
const std::string kNewtonTolerance = "integrator.newton_tolerance";

struct CheckOptions {
  std::string model_path;
  std::vector<std::string> overrides;
  int directions = 3;
  unsigned long seed = 1;
  std::vector<double> relative_steps = verification::kStepSweep;  // one step if given with --relative-step
  double step0 = 1e-2;  // first step of the Taylor test and of the extrapolated differences
  AdjointSettings adjoint;  // the gradient checked: the discrete adjoint, or the continuous one
  bool quiet = false;
};

CheckOptions parse(const std::vector<std::string>& arguments) {
  CheckOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj check --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "--directions") options.directions = parse_positive<int>(a, value_of(i), true);
    else if (a == "--seed") options.seed = parse_positive<unsigned long>(a, value_of(i), true);
    else if (a == "--relative-step") options.relative_steps = {parse_positive<double>(a, value_of(i), false)};
    else if (a == "--step0") options.step0 = parse_positive<double>(a, value_of(i), false);
    else if (a == "--adjoint") options.adjoint.mode = value_of(i);
    else if (read_spacetime_option(arguments, i, options.adjoint)) continue;
    else if (a == "--bdf-order") options.adjoint.bdf_order = parse_positive<int>(a, value_of(i), true);
    else if (a == "--adjoint-steps") options.adjoint.adjoint_steps = parse_positive<long long>(a, value_of(i), true);
    else if (a == "--continuous-form") options.adjoint.continuous_form = value_of(i);
    else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj check --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj check --help'");
  // Differences of J resolve the gradient only to the accuracy of the converged Newton iterates.
  const bool tolerance_set = std::any_of(options.overrides.begin(), options.overrides.end(), [](const std::string& o) {
    return o.compare(0, kNewtonTolerance.size() + 1, kNewtonTolerance + "=") == 0;
  });
  if (!tolerance_set) options.overrides.push_back(kNewtonTolerance + "=1e-12");
  return options;
}

// The forward runs of the check, numbered for the progress lines; J at given design values.
class Runs {
 public:
  Runs(GradientProblem& problem, int total, bool show) : problem_(problem), total_(total), show_(show) {}
  void add(int runs) { total_ += runs; }  // runs not foreseen (test (b)'s replaced directions)

  GradientEvaluation gradient() {
    announce("J and its gradient (forward and adjoint)");
    return problem_.evaluate(true);
  }

  // The gradient at x, and H v at p (with its forward run), for test (d).
  std::vector<double> gradient_at(const std::vector<double>& x, const std::string& what) {
    announce(what);
    problem_.set_values(x);
    return problem_.evaluate(true).gradient;
  }
  std::vector<double> hessian_vector(const std::vector<double>& p, const std::vector<double>& v) {
    announce("Hessian-vector product (forward, tangent and second-order adjoint)");
    problem_.set_values(p);
    problem_.forward();
    return problem_.hessian_vector(v).product;
  }

  // g(x) = lambda.c(x), the constraint values weighted by fixed multipliers, as the checks take it.
  verification::ObjectiveAt weighted_constraints(const std::vector<double>& lambda) {
    return [this, lambda](const std::vector<double>& x, const std::string& what) {
      announce(what + " (constraints)");
      problem_.set_values(x);
      const std::vector<double> c = problem_.forward().constraints;
      double g = 0.0;
      for (std::size_t i = 0; i < c.size(); ++i) g += lambda[i] * c[i];
      return g;
    };
  }
  // J_c^T lambda at p (forward run and one adjoint sweep), with g(p).
  GradientEvaluation constraint_adjoint(const std::vector<double>& p, const std::vector<double>& lambda) {
    announce("constraint values and J_c^T lambda (forward and one adjoint sweep)");
    problem_.set_values(p);
    problem_.forward();
    return problem_.constraint_adjoint(lambda);
  }

  // objective() as the checks of verification/ take it.
  verification::ObjectiveAt objective_at() {
    return [this](const std::vector<double>& x, const std::string& what) { return objective(x, what); };
  }

  double objective(const std::vector<double>& p, const std::string& what) {
    announce(what);
    problem_.set_values(p);
    try {
      return problem_.evaluate(false).objective;
    } catch (const InputError& e) {
      throw InputError("", "", std::string(e.what()) + " (in run " + std::to_string(done_) + " of the check, which "
                                   "perturbs every design variable: initial positions and velocities must be free to "
                                   "move under the constraints)");
    }
  }

 private:
  void announce(const std::string& what) {
    ++done_;
    if (show_) {
      std::fprintf(stderr, "  run %d of %d: %s\n", done_, total_, what.c_str());
      std::fflush(stderr);
    }
  }
  GradientProblem& problem_;
  int done_ = 0, total_;
  bool show_;
};

// (a) The Taylor test (verification/taylor_test.hpp), printed.
// f: the function checked (J, or g = lambda.c for the constraints); tag: the line's label.
bool taylor_test(const verification::ObjectiveAt& f, const std::string& tag, const std::vector<double>& p, double J,
                 const std::vector<double>& gradient,
                 const std::vector<double>& dp, double step0, bool root) {
  const verification::TaylorTest test = verification::taylor_test(f, p, J, gradient, dp, step0);
  if (root) {
    std::printf("%s Taylor test: r(h) = |J(p + h dp) - J(p) - h dJ.dp| along a random dp (|dp_i| <= max(1, |p_i|)), "
                "dJ.dp = %.10g\n", tag.c_str(), test.slope);
    std::printf("    %-12s %-12s %s\n", "h", "r(h)", "order log2(r(2h)/r(h))");
    for (std::size_t k = 0; k < test.steps.size(); ++k) {
      std::string order;
      if (k > 0) {
        char text[64];
        std::snprintf(text, sizeof text, "%.2f%s", test.orders[k], test.round_off[k] ? " (round-off)" : "");
        order = text;
      }
      std::printf("    %-12.4e %-12.4e %s\n", test.steps[k], test.remainders[k], order.c_str());
    }
    std::printf("    %s: %s\n", test.passed ? "passed" : "FAILED",
                test.passed ? "second order over 3 consecutive halvings"
                            : "the remainder does not fall at second order (orders >= 1.9 or round-off < 1e-12 |J| "
                              "over 3 consecutive halvings)");
  }
  return test.passed;
}

// (b) Central differences along `count` random directions (verification/central_difference.hpp), printed. A
// cancelled direction (dJ.dp small against sum_i |g_i dp_i|) is replaced by one drawn from `spare`, at most
// kReplacements times per direction; `spare` leaves `random`, and so the directions of the other tests, as they are.
bool central_differences(Runs& runs, const verification::ObjectiveAt& f, const std::string& tag,
                         std::mt19937_64& random, std::mt19937_64& spare, const std::vector<double>& p,
                         const std::vector<double>& gradient, int count, const std::vector<double>& steps, bool root) {
  const bool sweep = steps.size() > 1;
  if (root) {
    std::printf("%s central differences (J(p + h dp) - J(p - h dp))/2h along random dp (|dp_i| <= max(1, |p_i|)) "
                "against dJ.dp, ", tag.c_str());
    if (sweep)
      std::printf("h = %g .. %g: the pair of consecutive steps that agrees best gives FD and its error estimate e\n",
                  steps.front(), steps.back());
    else
      std::printf("h = %g\n", steps.front());
  }
  bool passed = true;
  for (int d = 1; d <= count; ++d) {
    for (int r = 0;; ++r) {
      const std::vector<double> dp = verification::random_direction(r == 0 ? random : spare, p);
      const std::string name = std::to_string(d) + (r == 0 ? "" : ", replacement " + std::to_string(r));
      const std::string what = "central differences, direction " + std::to_string(d) + " of " + std::to_string(count) +
                               (r == 0 ? "" : ", replacement " + std::to_string(r));
      const verification::CentralDifferenceCheck c =
          verification::check_central_difference(f, p, gradient, dp, steps, what);
      const bool replace = c.cancelled && r < verification::kReplacements;
      if (!replace) passed = passed && c.passed;
      if (root) {
        std::printf("    direction %s: FD %- .12e  adjoint %- .12e  relative error %.2e", name.c_str(), c.difference,
                    c.adjoint, c.error);
        if (sweep) std::printf(" (h = %g, e/|FD| = %.1e, allowed %.1e)", steps[c.step],
                               c.scale > 0 ? c.estimate / c.scale : 0.0, c.allowed);
        else std::printf(" (allowed %.0e)", c.allowed);
        if (replace)
          std::printf("  replaced (cancellation): |dJ.dp| = %.1e T, e = %.1e T, T = sum |g_i dp_i|\n",
                      c.scale / c.terms, c.estimate / c.terms);
        else if (c.passed) std::printf("\n");
        else if (c.error > c.allowed) std::printf("  FAILED%s\n", c.resolved ? "" : " (nor does e resolve dJ.dp)");
        else if (c.cancelled)
          std::printf("  FAILED: differences do not resolve dJ.dp, small by cancellation in all %d directions drawn\n",
                      r + 1);
        else std::printf("  FAILED: differences do not resolve dJ.dp (J too noisy)\n");
      }
      if (!replace) break;
      runs.add(2 * static_cast<int>(steps.size()));
    }
  }
  if (root) std::printf("    %s\n", passed ? "passed" : "FAILED: not every direction agrees within what it allows");
  return passed;
}

// (c) The extrapolated forward differences of Bestle and Eberhard (1992) for the first design values
// (verification/extrapolated_difference.hpp), printed.
bool extrapolated_differences(Runs& runs, const std::vector<double>& p, double J, const std::vector<double>& gradient,
                              const std::vector<std::string>& names, double step0, bool root) {
  const int count = std::min<int>(kExtrapolatedVariables, static_cast<int>(p.size()));
  if (root)
    std::printf("(c) extrapolated forward differences (Bestle and Eberhard 1992): steps dp0/(i+1), dp0 = %g "
                "max(1, |p|), Aitken-Neville to step 0 with adaptive order, error estimate e = |E_k - E_(k-1)|, "
                "round-off floor %g |J| amplified by the weights; first %d design value(s)\n",
                step0, verification::kObjectiveAccuracy, count);
  std::size_t width = 16;
  for (int j = 0; j < count; ++j) width = std::max(width, names[j].size());
  bool passed = true;
  for (int j = 0; j < count; ++j) {
    const verification::ExtrapolatedDifferenceCheck c =
        verification::check_extrapolated_difference(runs.objective_at(), p, J, gradient, j, names[j], step0);
    passed = passed && c.passed;
    const verification::Extrapolant& e = c.extrapolant;
    if (root)
      std::printf("    %-*s  extrapolated FD %- .12e  adjoint %- .12e  |difference| %.2e  (order %d of %zu points, "
                  "estimate %.1e + floor %.1e)%s\n",
                  int(width), names[j].c_str(), e.value, gradient[j], c.error, e.order, c.points, e.estimate, e.noise,
                  c.passed ? "" : "  FAILED");
  }
  if (root)
    std::printf("    %s\n", passed ? "passed" : "FAILED: an adjoint value lies outside the estimate plus floor of its "
                                                "extrapolated difference");
  return passed;
}

}  // namespace

std::string check_help() {
  return "usage: flexadj check MODEL.yaml [options]\n"
         "\n"
         "Checks the discrete-adjoint gradient of the objective of MODEL.yaml (as computed by 'flexadj gradient')\n"
         "against differences of J over all design variables p, each direction entry scaled by max(1, |p_i|):\n"
         "  (a) Taylor test: r(h) = |J(p + h dp) - J(p) - h dJ.dp| for h = step0 2^-k, k = 0..6, along a random dp;\n"
         "      passes if the observed orders log2(r(2h)/r(h)) are >= 1.9 over 3 consecutive halvings (an order\n"
         "      whose remainder is below 1e-12 |J|, round-off, counts as passed);\n"
         "  (b) central differences of J along random directions at h = 1e-4, 1e-5, 1e-6: the consecutive pair\n"
         "      that agrees best gives FD = D(h) at its larger step and the error estimate e = |D(h) - D(h/10)|\n"
         "      (where truncation and J's round-off balance); passes if e <= 1e-5 max(|FD|, |dJ.dp|) and\n"
         "      |FD - dJ.dp| <= 1e-6 max(|FD|, |dJ.dp|) + 3 e for every direction (with --relative-step H: one\n"
         "      step, relative error <= 1e-6); a direction nearly orthogonal to the gradient, whose FD agrees within\n"
         "      what it allows and whose e misses 1e-5 max(|FD|, |dJ.dp|) but not 1e-5 sum_i |g_i dp_i| (dJ.dp\n"
         "      small by cancellation), is replaced by another (at most 3 times, each printed) held to the same bars;\n"
         "  (c) the extrapolated forward differences of Bestle and Eberhard (1992) for the first 3 design values:\n"
         "      D_i = (J(p + h_i e_j) - J(p))/h_i at h_i = dp0/(i+1), dp0 = step0 max(1, |p_j|), extrapolated to\n"
         "      step 0 (Aitken-Neville) with adaptive order: steps are added (at most 7) while the error estimate\n"
         "      e = |E_k - E_(k-1)|, the difference of the last two extrapolants, falls, and the order with the\n"
         "      smallest e + floor is taken, the floor being J's round-off (1e-12 |J|) amplified by the\n"
         "      extrapolation weights; passes if |E - dJ/dp_j| <= e + floor for each of them;\n"
         "  (d) where the model has the second-order adjoint ('flexadj hessian'; else a note says why not): the\n"
         "      Hessian-vector product H dp along a random dp against symmetry, |u.H dp - dp.H u| <= 1e-10\n"
         "      (|u| |H dp| + |dp| |H u|) for a second random u, and central differences of the exact gradients at\n"
         "      the steps of (b), per component: with s = max(|H dp|, |FD|)_inf, passes if e <= 1e-5 s and\n"
         "      |FD_i - (H dp)_i| <= 1e-6 s + 3 e for every i;\n"
         "  (e) where the model has a constraints section: the constraints' gradients, as the products J_c^T lambda\n"
         "      the optimiser takes (one adjoint sweep of g = lambda.c for all constraints), for a random lambda\n"
         "      (|lambda_i| <= 1), by the Taylor test (e1) and the central differences (e2) of g, as (a) and (b).\n"
         "The Newton tolerance is set to 1e-12 unless given with --set integrator.newton_tolerance=...\n"
         "With --adjoint continuous the gradient checked is the continuous adjoint's, which approximates the\n"
         "derivative of the discrete J to the integration error only: the check measures that error (and fails\n"
         "where it exceeds the tests' tolerances).\n"
         "Initial positions and velocities are the given ones, projected onto the constraints before integrating.\n"
         "\n"
         "options:\n"
         "  --directions N         random directions of test (b) (default 3)\n"
         "  --seed S               seed of the random directions (default 1)\n"
         "  --relative-step H      one step h for the central differences instead of the sweep 1e-4, 1e-5, 1e-6\n"
         "  --step0 H              first step of tests (a) and (c) (default 1e-2)\n"
         "  --adjoint MODE         discrete (default), continuous or spacetime: which gradient to check, as for\n"
         "                         gradient\n"
         "  --bdf-order K          continuous adjoint: BDF order 1..4 (default 2)\n"
         "  --adjoint-steps N      continuous adjoint: N steps of its own, as for gradient\n"
         "  --continuous-form F    continuous adjoint with type hamiltonian: dae, hamiltonian or\n"
         "                         hamiltonian_index1, as for gradient\n"
         + spacetime_options_help() +
         "  --set KEY=VALUE        override a model-file value (repeatable), as for simulate\n"
         "  -q, --quiet            no progress lines (\"run k of n\" on stderr)\n"
         "  -h, --help             this text\n"
         "\n"
         "Exit codes: 0 tests (a), (b), (c) (and (d)) passed, 4 the gradient (or H dp) failed the check, 2 bad input, 3 the solver failed.\n";
}

// (d) The Hessian-vector product (verification/hessian_check.hpp), where the model has the second-order adjoint.
// Why the model has none (empty: it has one).
std::string second_order_unavailable(const GradientProblem& problem) {
  try {
    problem.check_second_order();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool hessian_check(Runs& runs, GradientProblem& problem, std::mt19937_64& random, const std::vector<double>& p,
                   const std::vector<double>& steps, bool root) {
  if (const std::string unavailable = second_order_unavailable(problem); !unavailable.empty()) {
    if (root) std::printf("(d) Hessian-vector product: not checked (%s)\n", unavailable.c_str());
    return true;
  }
  const std::vector<double> dp = verification::random_direction(random, p), u = verification::random_direction(random, p);
  const verification::HessianCheck c = verification::check_hessian(
      [&](const std::vector<double>& x, const std::string& what) { return runs.gradient_at(x, what); },
      [&](const std::vector<double>& v) { return runs.hessian_vector(p, v); }, p, dp, u, steps);
  if (root) {
    std::printf("(d) Hessian-vector product H dp (second-order adjoint) along a random direction\n");
    std::printf("    symmetry |u.H dp - dp.H u| / (|u| |H dp| + |dp| |H u|) = %.2e (allowed %.0e)\n", c.symmetry,
                verification::kSymmetryTolerance);
    std::printf("    central differences of gradients: max_i |FD_i - (H dp)_i| / max |H dp| = %.2e (allowed %.2e, "
                "largest at %s, error estimate %.2e)\n", c.error, c.allowed, problem.design().names()[c.worst].c_str(),
                c.estimate);
    std::printf("    %s\n", c.passed ? "passed" : !c.resolved ? "FAILED: differences do not resolve H dp (gradients too noisy)"
                                                                : "FAILED");
  }
  return c.passed;
}

// (e) The constraints' gradients: J_c^T lambda for a random lambda (|lambda_i| <= 1), one adjoint sweep of
// g = lambda.c, by the Taylor test and central differences of g, as (a) and (b) check J.
bool constraint_check(Runs& runs, GradientProblem& problem, std::mt19937_64& random, std::mt19937_64& spare,
                      const std::vector<double>& p, const CheckOptions& options, bool root) {
  const objectives::ConstraintSet* constraints = problem.constraints();
  if (!constraints) return true;
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> lambda(constraints->size());
  for (double& l : lambda) l = uniform(random);
  const GradientEvaluation product = runs.constraint_adjoint(p, lambda);
  if (root)
    std::printf("(e) constraints: %zu constraint(s), %zu value(s); g = lambda.c for a random lambda (|lambda_i| <= 1), "
                "its gradient J_c^T lambda by one adjoint sweep; g = %.15g\n",
                constraints->terms().size(), constraints->size(), product.objective);
  const std::vector<double> dp = verification::random_direction(random, p);
  const verification::ObjectiveAt g = runs.weighted_constraints(lambda);
  const bool taylor = taylor_test(g, "(e1)", p, product.objective, product.gradient, dp, options.step0, root);
  const bool differences = central_differences(runs, g, "(e2)", random, spare, p, product.gradient, options.directions,
                                               options.relative_steps, root);
  return taylor && differences;
}

int check_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, check_help(), root)) return kSuccess;
  const CheckOptions options = parse(arguments);
  GradientProblem problem(io::read_problem_file(options.model_path, options.overrides), comm, "check");
  problem.set_adjoint(options.adjoint);
  const std::vector<double> p = problem.values();
  const std::vector<std::string> names = problem.design().names();
  const int extrapolated_count = std::min<int>(kExtrapolatedVariables, static_cast<int>(p.size()));
  Runs runs(problem,
            1 + verification::kTaylorSteps + 2 * options.directions * static_cast<int>(options.relative_steps.size()) +
                verification::kExtrapolationSteps * extrapolated_count +
                (second_order_unavailable(problem).empty() ? 2 + 2 * static_cast<int>(options.relative_steps.size()) : 0) +
                (problem.constraints() ? 1 + verification::kTaylorSteps +
                                             2 * options.directions * static_cast<int>(options.relative_steps.size())
                                       : 0),
            root && !options.quiet);
  if (root) {
    const model::Model& m = problem.model();
    const integrators::IntegratorSettings& run = problem.problem().integrator;
    std::printf("flexadj check %s%s%s\n", options.model_path.c_str(), m.title.empty() ? "" : "  -- ", m.title.c_str());
    std::printf("  objective   J = %s\n", problem.describe_objective().c_str());
    std::printf("  design      %zu variable(s), %d value(s)%s\n", problem.design().entries().size(),
                problem.design().size(),
                problem.problem().design_variables.empty() ? " (all component parameters)" : "");
    if (run.adaptive())
      std::printf("  settings    Newton tolerance %g, error-controlled steps (tolerance %g), seed %lu, %s adjoint\n",
                  run.newton_tolerance, run.step_control.tolerance, options.seed, options.adjoint.mode.c_str());
    else
      std::printf("  settings    Newton tolerance %g, %lld steps%s, seed %lu, %s adjoint\n", run.newton_tolerance,
                  run.step_count(), run.end_condition ? " at most (end condition)" : "", options.seed,
                  options.adjoint.mode.c_str());
    std::fflush(stdout);
  }
  const GradientEvaluation base = runs.gradient();
  if (root) std::printf("J = %.15g\n", base.objective);
  // Error-controlled steps: the differences take this run's steps, which the discrete adjoint holds fixed.
  if (problem.problem().integrator.step_control.enabled()) {
    problem.hold_steps();
    if (root)
      std::printf("  steps       error-controlled: the %lld steps of this run are held fixed in every run below, as "
                  "the discrete adjoint holds them (docs/adjoint.md, \"Error-controlled steps\")\n",
                  problem.problem().integrator.step_count());
  }

  std::mt19937_64 random(options.seed);
  std::mt19937_64 spare(options.seed ^ 0x9e3779b97f4a7c15ULL);  // test (b)'s replaced directions
  const std::vector<double> dp = verification::random_direction(random, p);
  const bool taylor = taylor_test(runs.objective_at(), "(a)", p, base.objective, base.gradient, dp, options.step0, root);
  const bool differences = central_differences(runs, runs.objective_at(), "(b)", random, spare, p, base.gradient,
                                               options.directions, options.relative_steps, root);
  const bool extrapolated = extrapolated_differences(runs, p, base.objective, base.gradient, names, options.step0, root);
  const bool hessian = hessian_check(runs, problem, random, p, options.relative_steps, root);
  const bool constraints = constraint_check(runs, problem, random, spare, p, options, root);
  problem.set_values(p);

  const bool passed = taylor && differences && extrapolated && hessian && constraints;
  if (root) {
    if (passed) std::printf("check passed: (a) Taylor test, (b) central differences and (c) extrapolated differences%s%s\n",
                            second_order_unavailable(problem).empty() ? ", (d) Hessian-vector product" : "",
                            problem.constraints() ? ", (e) constraint gradients" : "");
    else std::printf("check FAILED:%s%s%s%s%s\n", taylor ? "" : " (a) Taylor test", differences ? "" : " (b) central differences",
                     extrapolated ? "" : " (c) extrapolated differences",
                     hessian ? "" : " (d) Hessian-vector product", constraints ? "" : " (e) constraint gradients");
    std::fflush(stdout);
  }
  return passed ? kSuccess : kCheckFailed;
}

}  // namespace flexadj::app
