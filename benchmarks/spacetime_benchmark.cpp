// Spacetime adjoint benchmark (adjoint/spacetime_adjoint.hpp): the gradient of the rigid chain of
// meshes/rigid_chain.yaml (objective of the file) by the sequential sweep and by the spacetime adjoint, in one
// process, each after a forward run kept in memory (flexadj::GradientProblem; the same states every time).
//   iterations: GMRES iterations and adjoint steps (work) against N and P, slab and two-level preconditioners
//   timing:     wall time of the sequential sweep and of the spacetime adjoint (P = slabs) at this rank count, and
//               their ratio; each row times the adjoint alone
//   --kept-memory:  bytes per rank for the steps kept between products (integrators/kept_adjoint_steps.hpp), a
//               list: each value gives a row (timing mode: 2e9 and 0, kept and assembled afresh)
// Prints a table on rank 0; --json FILE writes the rows.
//   flexadj_benchmark_spacetime [--mode iterations|timing] [--links L] [--scheme generalized_alpha|variational]
//                               [--steps 100,1000,10000] [--slabs 1,2,4,...] [--coarsening K]
//                               [--solvers gmres-slab,gmres-two-level,gmres-two-level-fcf]
//                               [--kept-memory 2e9,0] [--json FILE]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/runtime.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<long long> parse_list(const std::string& text) {
  std::vector<long long> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(std::stoll(item));
  return values;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst / std::max(scale, 1e-300);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flexadj;
  const Runtime runtime(argv);
  const auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::string mode = "iterations", scheme = "generalized_alpha", json_path;
  long long links = 4, coarsening = 4;
  std::vector<long long> steps = {100, 1000, 10000}, slabs = {1, 2, 4, 8, 16, 32, 64};
  std::vector<std::string> solvers = {"gmres-slab", "gmres-two-level"};
  std::vector<double> kept_memories;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], value = argv[i + 1];
    if (a == "--mode") mode = value;
    else if (a == "--links") links = std::stoll(value);
    else if (a == "--scheme") scheme = value;
    else if (a == "--steps") steps = parse_list(value);
    else if (a == "--slabs") slabs = parse_list(value);
    else if (a == "--coarsening") coarsening = std::stoll(value);
    else if (a == "--json") json_path = value;
    else if (a == "--kept-memory")
      for (long long bytes : parse_list(value)) kept_memories.push_back(double(bytes));
    else if (a == "--solvers") {
      solvers.clear();
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) solvers.push_back(item);
    }
  }
  if (mode == "timing" && slabs.size() == 7) slabs = {comm->getSize(), 2 * comm->getSize()};
  if (kept_memories.empty()) kept_memories = mode == "timing" ? std::vector<double>{2e9, 0.0} : std::vector<double>{2e9};
  std::ostringstream json;
  json << "[";
  if (root) {
    std::printf("spacetime adjoint, rigid chain of %lld links, %s, %d rank(s)\n", links, scheme.c_str(),
                comm->getSize());
    std::printf("%7s %5s %-16s %6s %6s %11s %6s %9s %9s %9s %7s %10s\n", "steps", "P", "solver", "groups", "iter",
                "adj. steps", "kept", "seq. s", "st. s", "st./seq.", "defect", "max diff");
  }
  bool first_row = true;
  for (long long n : steps) {
    const double h = 2e-3;
    // The model file without its spectral radius (which the variational integrator refuses).
    std::ifstream file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/rigid_chain.yaml");
    std::string text, line;
    while (std::getline(file, line))
      if (line.find("spectral_radius") == std::string::npos) text += line + "\n";
    auto problem = io::read_problem_string(
        text, "rigid_chain.yaml",
        {"chain.count=" + std::to_string(links), "integrator.step_size=2e-3", "integrator.type=" + scheme,
         "integrator.end_time=" + std::to_string(h * double(n)), "integrator.newton_tolerance=1e-12"});
    problem.integrator.linear_solver = "direct";
    problem.design_variables.clear();  // all component parameters
    GradientProblem gradient_problem(std::move(problem), comm, "benchmark");
    gradient_problem.prepare();
    gradient_problem.forward();
    const GradientEvaluation sequential_run = gradient_problem.adjoint();
    const adjoint::Gradient& sequential = sequential_run.sensitivities;
    const double sequential_seconds = sequential_run.adjoint_seconds;
    for (long long p : slabs) {
      if (p > n) continue;
      for (const std::string& solver : solvers)
      for (double kept_memory : kept_memories) {
        if (p == 1 && solver != "gmres-slab") continue;
        AdjointSettings settings;
        settings.mode = "spacetime";
        settings.storage = "memory";
        settings.time_slabs = static_cast<std::size_t>(p);
        settings.spacetime_solver = solver;
        settings.spacetime_coarsening = static_cast<std::size_t>(coarsening);
        settings.spacetime_max_iterations = int(2 * p + 40);
        settings.spacetime_memory = kept_memory;
        gradient_problem.set_adjoint(settings);  // drops the recorded run: record it again
        gradient_problem.forward();
        // Timed here rather than by adjoint_seconds: a solve that does not converge is timed too.
        comm->barrier();
        const auto start = Clock::now();
        adjoint::Gradient gradient;
        bool converged = true;
        try {
          gradient = gradient_problem.adjoint().sensitivities;
        } catch (const SolverError&) {
          converged = false;
        }
        comm->barrier();
        const double seconds = seconds_since(start);
        // The statistics of the solve, also of one that did not converge.
        const adjoint::SpacetimeStatistics* reported = gradient_problem.spacetime_statistics();
        const adjoint::SpacetimeStatistics statistics = reported ? *reported : adjoint::SpacetimeStatistics{};
        const double difference = converged ? relative_difference(gradient.parameters, sequential.parameters) : -1.0;
        if (root)
          std::printf("%7lld %5lld %-16s %6zu %6d %11zu %6zu %9.3f %9.3f %9.2f %7.1e %10.1e%s\n", n, p,
                      solver.c_str(), statistics.groups, statistics.iterations, statistics.adjoint_steps,
                      statistics.kept_steps, sequential_seconds, seconds,
                      seconds / sequential_seconds, statistics.interface_defect, difference,
                      converged ? "" : "  (not converged)");
        json << (first_row ? "" : ",") << "\n  {\"links\": " << links << ", \"scheme\": \"" << scheme
             << "\", \"ranks\": " << comm->getSize() << ", \"steps\": " << n << ", \"slabs\": " << p
             << ", \"groups\": " << statistics.groups << ", \"solver\": \"" << solver
             << "\", \"coarsening\": " << coarsening << ", \"converged\": " << (converged ? "true" : "false")
             << ", \"iterations\": " << statistics.iterations << ", \"adjoint_steps\": " << statistics.adjoint_steps
             << ", \"kept_memory\": " << kept_memory << ", \"kept_steps\": " << statistics.kept_steps
             << ", \"kept_bytes\": " << statistics.kept_bytes
             << ", \"sequential_s\": " << sequential_seconds << ", \"spacetime_s\": " << seconds
             << ", \"setup_s\": " << statistics.setup_seconds << ", \"solve_s\": " << statistics.solve_seconds
             << ", \"gradient_s\": " << statistics.gradient_seconds << ", \"max_relative_difference\": "
             << difference << "}";
        first_row = false;
        std::fflush(stdout);
      }
    }
  }
  json << "\n]\n";
  if (root && !json_path.empty()) std::ofstream(json_path) << json.str();
  return 0;
}
