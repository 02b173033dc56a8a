// State-space benchmark: the state-space integrator of Held and Seifried on the saddle-point path
// (integrators/state_space.hpp) against generalized-alpha, forward run and discrete-adjoint sweep, on the rigid
// chain of meshes/rigid_chain.yaml (N links, gradient for all component parameters). Cost per step is marginal:
// (T(2 S) - T(S)) / S from runs of S and 2 S steps, so the one-off parts (initial projection, symbolic
// factorizations) drop out; both integrators run in the same process, alternately, so their ratio is measured in one
// run. Prints a table; writes JSON with --json. Options: --counts 10,100,... (default 10,100,1000,10000).
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

struct Timing {
  double forward = 0.0, adjoint = 0.0;
};

struct Row {
  std::string scheme;
  long long links = 0, unknowns = 0, steps = 0;
  double forward_per_step = 0.0, adjoint_per_step = 0.0;
};

// One forward run of `steps` steps (trajectory in memory) and its discrete-adjoint sweep (flexadj::GradientProblem,
// all component parameters).
Timing run(const std::string& scheme, int links, long long steps, long long& unknowns,
           const flexadj::RCP<const flexadj::Comm>& comm) {
  using namespace flexadj;
  const double h = 1e-4;  // resolves the chain's highest frequency for the explicit state-space step
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/rigid_chain.yaml",
                                       {"chain.count=" + std::to_string(links),
                                        "integrator.step_size=" + std::to_string(h),
                                        "integrator.end_time=" + std::to_string(h * double(steps))});
  problem.integrator.scheme = scheme;  // the file's spectral_radius (0.9) is generalized-alpha's
  problem.integrator.linear_solver = "direct";
  objectives::ObjectiveTerm term;
  term.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
  term.coordinate = 7LL * (links - 1);  // x of the last link
  problem.objective_terms = {term};
  problem.design_variables.clear();
  unknowns = problem.model->coordinate_count() + problem.model->multiplier_count();
  GradientProblem gradient(std::move(problem), comm, "benchmark");
  gradient.prepare();
  Timing t;
  t.forward = gradient.forward().forward_seconds;
  t.adjoint = gradient.adjoint().adjoint_seconds;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const flexadj::Runtime runtime(argv);
  auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::string json_path;
  std::vector<int> counts{10, 100, 1000, 10000};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if (a == "--counts" && i + 1 < argc) {
      counts.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) counts.push_back(std::stoi(item));
    } else {
      if (root) std::fprintf(stderr, "usage: flexadj_benchmark_state_space [--counts 10,100] [--json FILE]\n");
      return 2;
    }
  }
  std::vector<Row> rows;
  try {
    for (int links : counts) {
      // S steps and 2 S: about 2 s of state-space forward run at S on the development machine.
      const long long steps = std::clamp<long long>(20000 / links, 4, 200);
      for (const std::string scheme : {"state_space", "generalized_alpha"}) {
        Row row;
        row.scheme = scheme;
        row.links = links;
        row.steps = steps;
        const Timing one = run(scheme, links, steps, row.unknowns, comm);
        const Timing two = run(scheme, links, 2 * steps, row.unknowns, comm);
        row.forward_per_step = (two.forward - one.forward) / double(steps);
        row.adjoint_per_step = (two.adjoint - one.adjoint) / double(steps);
        rows.push_back(row);
        if (root) std::fprintf(stderr, "%s, %d links done\n", scheme.c_str(), links);
      }
    }
  } catch (const std::exception& error) {
    if (root) std::fprintf(stderr, "benchmark failed: %s\n", error.what());
    return 1;
  }
  if (!root) return 0;
  std::printf("%-18s %7s %9s %6s %14s %14s %14s\n", "integrator", "links", "unknowns", "steps", "forward s/step",
              "adjoint s/step", "gradient s/step");
  for (const Row& r : rows)
    std::printf("%-18s %7lld %9lld %6lld %14.3e %14.3e %14.3e\n", r.scheme.c_str(), r.links, r.unknowns, r.steps,
                r.forward_per_step, r.adjoint_per_step, r.forward_per_step + r.adjoint_per_step);
  std::printf("marginal per step from runs of S and 2 S steps (h = 1e-4 s); gradient = forward + discrete adjoint; "
              "ranks: %d\n", comm->getSize());
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\n  \"benchmark\": \"state_space\",\n  \"ranks\": " << comm->getSize() << ",\n  \"runs\": [\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      out << "    {\"integrator\": \"" << r.scheme << "\", \"links\": " << r.links << ", \"unknowns\": " << r.unknowns
          << ", \"steps\": " << r.steps << ", \"forward_seconds_per_step\": " << r.forward_per_step
          << ", \"adjoint_seconds_per_step\": " << r.adjoint_per_step << "}" << (k + 1 < rows.size() ? "," : "")
          << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
