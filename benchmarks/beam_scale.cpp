// Scale benchmark of the geometrically exact beam: forward and discrete-adjoint time per step against the number
// of elements, for a cantilever of length 10 clamped at one end, released straight under gravity (steel-like
// section, so that Newton needs a few iterations per step). Run it at np 1 and np 2 (mpirun); prints a table and
// writes JSON with --json.
//
//   flexadj_benchmark_beams [--counts 100,1000,10000] [--steps 10] [--solver auto|direct|iterative]
//                           [--no-adjoint] [--json results/beams_np1.json]
//                           [--formulation geometrically_exact|dual_quaternion] [--parameters all|none]
//                           [--gradient-out gradient.txt]
// --formulation dual_quaternion: the dual-quaternion beam (Schubert et al. 2024) with the variational integrator (the
// only one it runs with) on the very flexible beam's section (docs/results.md, sec. 4.6), elements of 0.1 and h = 1e-4,
// whose trapezoidal rule in time needs omega h < 2 (the steel section's thickness-shear mode would need h < 2e-6);
// --formulation geometrically_exact_variational runs the geometrically exact beam on the same model and integrator
// for comparison. Per space-time cell: the forward and adjoint time per step and element.
// --parameters: the gradient in every parameter of every element (all, the default) or in none of them (none: the
// sweep's state adjoint alone, the cost of a design of controls or initial states).
// --gradient-out: the objective and the gradient (parameters, initial coordinates and velocities) of the last count,
// one value a line with 17 digits, to compare the gradients of two builds.
// Each count runs with S = --steps and 2 S steps, three times each (the minimum counts; a process's first run also
// pays for its first touch of memory): besides the time of the S-step run per step, the marginal time per step
// (T(2 S) - T(S)) / S, without what a run pays once (the first factorizations, the initial state's projections and
// their adjoint), which dominates short runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/core/runtime.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Row {
  int elements = 0;
  long long unknowns = 0, steps = 0, newton_iterations = 0;
  double setup = 0.0, forward = 0.0, adjoint = 0.0;
  double forward_marginal = 0.0, adjoint_marginal = 0.0;  // per step, (T(2 S) - T(S)) / S
  std::string solver;
};

std::string cantilever(int elements, int steps, const std::string& formulation) {
  std::ostringstream yaml;
  if (formulation != "geometrically_exact") {
    yaml << "dimension: 3\n"
            "gravity: [0, -9.81, 0]\n"
            "integrator: {type: variational, end_time: "
         << 1e-4 * steps
         << ", step_size: 1.0e-4}\n"
            "beams:\n"
            "  - name: beam\n"
            "    formulation: "
         << (formulation == "dual_quaternion" ? "dual_quaternion" : "geometrically_exact")
         << "\n"
            "    section: {E: 5.0e7, nu: 0.35, rho: 1000, A: 0.0025, I2: 5.208333333e-7, I3: 5.208333333e-7,\n"
            "              shear_viscosity: 0.1, bulk_viscosity: 0.01}\n"
            "    elements: "
         << elements << "\n    line: {start: [0, 0, 0], end: [" << 0.1 * elements
         << ", 0, 0]}\n"
            "joints:\n"
            "  - {type: fixed, bodies: [ground, beam.start], point: [0, 0, 0]}\n";
    return yaml.str();
  }
  yaml << "dimension: 3\n"
          "gravity: [0, -9.81, 0]\n"
          "integrator: {end_time: "
       << 1e-3 * steps
       << ", step_size: 1.0e-3, spectral_radius: 0.8}\n"
          "beams:\n"
          "  - name: beam\n"
          "    section: {E: 2.1e11, nu: 0.3, rho: 7850, A: 1.0e-4, I2: 8.33e-10, I3: 8.33e-10,\n"
          "              shear_factor: 0.8333, shear_viscosity: 1.0e3, bulk_viscosity: 1.0e2}\n"
          "    elements: "
       << elements
       << "\n"
          "    line: {start: [0, 0, 0], end: [10, 0, 0]}\n"
          "joints:\n"
          "  - {type: fixed, bodies: [ground, beam.start], point: [0, 0, 0]}\n";
  return yaml.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flexadj;
  const Runtime runtime(argv);
  auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::vector<int> counts{100, 1000, 10000};
  int steps = 10;
  bool with_adjoint = true;
  std::string gradient_path;
  std::string json_path, solver = "auto", formulation = "geometrically_exact", parameters = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--counts" && i + 1 < argc) {
      counts.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) counts.push_back(std::stoi(item));
    } else if (a == "--steps" && i + 1 < argc) steps = std::stoi(argv[++i]);
    else if (a == "--solver" && i + 1 < argc) solver = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--gradient-out" && i + 1 < argc) gradient_path = argv[++i];
    else if (a == "--no-adjoint") with_adjoint = false;
    else if (a == "--parameters" && i + 1 < argc) {
      parameters = argv[++i];
      if (parameters != "all" && parameters != "none") {
        if (root) std::fprintf(stderr, "--parameters: expected all or none, got '%s'\n", parameters.c_str());
        return 2;
      }
    }
    else if (a == "--formulation" && i + 1 < argc) {
      formulation = argv[++i];
      if (formulation != "geometrically_exact" && formulation != "dual_quaternion" &&
          formulation != "geometrically_exact_variational") {
        if (root)
          std::fprintf(stderr, "--formulation: expected geometrically_exact, geometrically_exact_variational or "
                               "dual_quaternion, got '%s'\n", formulation.c_str());
        return 2;
      }
    }
    else {
      if (root) std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::vector<Row> rows;
  try {
    for (int elements : counts) {
      Row row;
      row.elements = elements;
      constexpr int kRepeats = 3;
      double forward_twice = 0.0, adjoint_twice = 0.0;  // the run of 2 S steps
      for (int run = 0; run < 2 * kRepeats; ++run) {
        const bool first_run = run % 2 == 0, first_time = run < 2;
        const int run_steps = first_run ? steps : 2 * steps;
        const auto start = Clock::now();
        auto problem = io::read_problem_string(cantilever(elements, run_steps, formulation), "beam_scale.yaml");
        const model::Model& model = *problem.model;
        // J = y(tip)^2 at the end; --no-adjoint runs the forward run alone (which sums J on the way).
        objectives::ObjectiveTerm tip;
        tip.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
        tip.coordinate = model.body_offset(model.find_body("beam.end")) + 1;
        problem.objective_terms = {tip};
        // --parameters none: a design of one initial value, so that the sweep wants no parameter derivative.
        problem.design_variables.clear();
        if (parameters == "none") problem.design_variables = {"initial_velocity:beam.end.y"};
        problem.integrator.linear_solver = solver;
        GradientProblem gradient(std::move(problem), comm, "benchmark");
        gradient.prepare();
        const double setup = seconds_since(start);
        const double forward = gradient.forward().forward_seconds;
        double adjoint = 0.0;
        if (with_adjoint) {
          const GradientEvaluation result = gradient.adjoint();
          adjoint = result.adjoint_seconds;
          const adjoint::Gradient& g = result.sensitivities;
          if (root && first_run && !gradient_path.empty()) {
            std::ofstream out(gradient_path);
            out.precision(17);
            out << g.objective << "\n";
            for (const auto* part : {&g.parameters, &g.initial_coordinates, &g.initial_velocities})
              for (double value : *part) out << value << "\n";
          }
        }
        auto keep_least = [first_time](double& kept, double value) { kept = first_time ? value : std::min(kept, value); };
        if (first_run) {
          row.unknowns = gradient.model().coordinate_count() + gradient.model().multiplier_count();
          row.solver = gradient.integrator().linear_solver().description();
          row.steps = static_cast<long long>(gradient.step_times().size()) - 1;
          keep_least(row.setup, setup);
          keep_least(row.forward, forward);
          keep_least(row.adjoint, adjoint);
        } else {
          keep_least(forward_twice, forward);
          keep_least(adjoint_twice, adjoint);
        }
      }
      row.forward_marginal = (forward_twice - row.forward) / double(row.steps);
      row.adjoint_marginal = (adjoint_twice - row.adjoint) / double(row.steps);
      rows.push_back(row);
      if (root) std::fprintf(stderr, "%d elements done\n", elements);
    }
  } catch (const std::exception& error) {
    if (root) std::fprintf(stderr, "benchmark failed: %s\n", error.what());
    return 1;
  }
  if (!root) return 0;
  std::printf("%s beam, cantilever under gravity, %d rank(s), gradient in %s element parameters\n",
              formulation == "dual_quaternion"                  ? "dual-quaternion (variational integrator)"
              : formulation == "geometrically_exact_variational" ? "geometrically exact (variational integrator)"
                                                                 : "geometrically exact",
              comm->getSize(), parameters == "all" ? "all" : "no");
  std::printf("%9s %10s %6s %9s %14s %14s %14s %14s %8s %14s %14s %8s  %s\n", "elements", "unknowns", "steps",
              "setup s", "forward s/step", "adjoint s/step", "fwd us/elem/st", "adj us/elem/st", "adj/fwd",
              "marginal fwd", "marginal adj", "adj/fwd", "linear solver");
  for (const Row& r : rows)
    std::printf("%9d %10lld %6lld %9.3f %14.5f %14.5f %14.2f %14.2f %8.2f %14.5f %14.5f %8.2f  %s\n", r.elements,
                r.unknowns, r.steps, r.setup, r.forward / double(r.steps), r.adjoint / double(r.steps),
                1e6 * r.forward / double(r.steps) / double(r.elements),
                1e6 * r.adjoint / double(r.steps) / double(r.elements), r.adjoint / r.forward, r.forward_marginal,
                r.adjoint_marginal, r.adjoint_marginal / r.forward_marginal, r.solver.c_str());
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\n  \"benchmark\": \"beam_scale\",\n  \"formulation\": \"" << formulation << "\",\n  \"ranks\": "
        << comm->getSize() << ",\n  \"element_parameters\": \"" << parameters << "\",\n  \"runs\": [\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      out << "    {\"elements\": " << r.elements << ", \"unknowns\": " << r.unknowns << ", \"steps\": " << r.steps
          << ", \"setup_seconds\": " << r.setup << ", \"forward_seconds_per_step\": " << r.forward / double(r.steps)
          << ", \"adjoint_seconds_per_step\": " << r.adjoint / double(r.steps)
          << ", \"forward_marginal_seconds_per_step\": " << r.forward_marginal
          << ", \"adjoint_marginal_seconds_per_step\": " << r.adjoint_marginal << ", \"linear_solver\": \""
          << r.solver << "\"}" << (k + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
