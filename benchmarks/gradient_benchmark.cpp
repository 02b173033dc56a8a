// Gradient benchmark: forward run (trajectory kept in memory) against the discrete-adjoint sweep (and the
// continuous adjoint, BDF-2, for comparison), for
//   - the rigid chain of meshes/rigid_chain.yaml (N links; gradient for all component parameters), and
//   - the overhead crane of meshes/overhead_crane.yaml with K values per control signal (2K controls).
// Prints forward and adjoint seconds, their ratio, and the speed-up over central finite differences:
// measured (2 forward runs per design variable) on the small cases, extrapolated from the forward time by
// count on the large ones (marked). Writes JSON with --json.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "flexadj/core/runtime.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Row {
  std::string problem;
  long long size = 0, design_variables = 0, steps = 0;
  double forward = 0.0, adjoint = 0.0, continuous = 0.0, finite_differences = 0.0;
  bool measured_fd = false;
};

// One forward run and one adjoint sweep (flexadj::GradientProblem, all component parameters); optionally the
// forward runs central differences would need.
Row run(const std::string& problem, const std::string& path, const std::vector<std::string>& overrides,
        const flexadj::objectives::Objective& objective, long long size, long long measured_fd_limit,
        const flexadj::RCP<const flexadj::Comm>& comm) {
  using namespace flexadj;
  auto model_problem = io::read_problem_file(path, overrides);
  model_problem.objective_terms = objective.terms();
  model_problem.design_variables.clear();
  model_problem.integrator.linear_solver = "direct";
  GradientProblem gradient(std::move(model_problem), comm, "benchmark");
  gradient.prepare();
  Row row;
  row.problem = problem;
  row.size = size;
  row.design_variables = gradient.design().parameters().size();
  for (const auto& [name, signal] : gradient.model().controls())
    row.design_variables += static_cast<long long>(signal->size());
  row.forward = gradient.forward().forward_seconds;
  row.steps = static_cast<long long>(gradient.step_times().size()) - 1;
  row.adjoint = gradient.adjoint().adjoint_seconds;
  AdjointSettings continuous;
  continuous.mode = "continuous";
  gradient.set_adjoint(continuous);
  gradient.forward();
  row.continuous = gradient.adjoint().adjoint_seconds;
  row.measured_fd = row.design_variables <= measured_fd_limit;
  if (row.measured_fd) {
    const auto start = Clock::now();
    for (long long k = 0; k < 2 * row.design_variables; ++k) gradient.forward();
    row.finite_differences = seconds_since(start);
  } else {
    row.finite_differences = 2.0 * double(row.design_variables) * row.forward;
  }
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const flexadj::Runtime runtime(argv);
  auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::string json_path;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json_path = argv[++i];
  const std::string meshes = std::string(FLEXADJ_SOURCE_DIR) + "/meshes/";
  std::vector<Row> rows;
  try {
    for (int links : {10, 100, 1000, 10000}) {
      flexadj::objectives::Objective objective;
      flexadj::objectives::ObjectiveTerm term;
      term.kind = flexadj::objectives::ObjectiveTerm::Kind::FinalSquare;
      term.coordinate = 7LL * (links - 1);  // x of the last link
      objective.add(term);
      const long long steps = std::max(10, 20000 / links);
      rows.push_back(run("rigid chain (links)", meshes + "rigid_chain.yaml",
                         {"chain.count=" + std::to_string(links), "integrator.step_size=2e-3",
                          "integrator.end_time=" + std::to_string(2e-3 * double(steps))},
                         objective, links, 60, comm));
      if (root) std::fprintf(stderr, "chain %d done\n", links);
    }
    for (int values : {10, 100, 1000, 10000}) {
      flexadj::objectives::Objective objective;
      flexadj::objectives::ObjectiveTerm term;
      term.kind = flexadj::objectives::ObjectiveTerm::Kind::Tracking;
      term.coordinate = 3;  // load.x
      term.reference = flexadj::functions::Expression::parse("5*(t/3)^2");
      objective.add(term);
      rows.push_back(run("overhead crane (values per control)", meshes + "overhead_crane.yaml",
                         {"controls[0].grid.count=" + std::to_string(values),
                          "controls[1].grid.count=" + std::to_string(values), "controls[0].value=100",
                          "integrator.step_size=1e-3"},
                         objective, values, 60, comm));
      if (root) std::fprintf(stderr, "crane %d done\n", values);
    }
  } catch (const std::exception& error) {
    if (root) std::fprintf(stderr, "benchmark failed: %s\n", error.what());
    return 1;
  }
  if (!root) return 0;
  std::printf("%-36s %7s %8s %6s %10s %10s %8s %9s %14s\n", "problem", "size", "design", "steps", "forward s",
              "adjoint s", "adj/fwd", "cont/fwd", "speed-up vs FD");
  for (const Row& r : rows)
    std::printf("%-36s %7lld %8lld %6lld %10.3f %10.3f %8.2f %9.2f %12.1f%s\n", r.problem.c_str(), r.size,
                r.design_variables, r.steps, r.forward, r.adjoint, r.adjoint / r.forward, r.continuous / r.forward,
                r.finite_differences / (r.forward + r.adjoint), r.measured_fd ? " m" : " e");
  std::printf("speed-up: m = central differences measured (2 forward runs per design variable), e = extrapolated "
              "from the forward time by count; cont/fwd: the continuous adjoint (BDF-2); ranks: %d\n",
              comm->getSize());
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\n  \"benchmark\": \"gradient\",\n  \"ranks\": " << comm->getSize() << ",\n  \"runs\": [\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      out << "    {\"problem\": \"" << r.problem << "\", \"size\": " << r.size << ", \"design_variables\": "
          << r.design_variables << ", \"steps\": " << r.steps << ", \"forward_seconds\": " << r.forward
          << ", \"adjoint_seconds\": " << r.adjoint << ", \"adjoint_over_forward\": " << r.adjoint / r.forward
          << ", \"continuous_adjoint_seconds\": " << r.continuous
          << ", \"finite_difference_seconds\": " << r.finite_differences << ", \"finite_differences_measured\": "
          << (r.measured_fd ? "true" : "false") << "}" << (k + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
