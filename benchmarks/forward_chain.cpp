// Forward-dynamics benchmark: the rigid chain of meshes/rigid_chain.yaml with N links.
// Prints a table and writes JSON (one record per N) for the rank count it runs on; scripts/benchmark.sh
// runs it at np 1 and np 2 and puts the two side by side.
//
//   flexadj_benchmark_forward [--model meshes/rigid_chain.yaml] [--counts 10,100,1000,10000]
//                             [--step-budget 2000] [--solver auto|direct|iterative]
//                             [--json results/forward_chain_np1.json]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/runtime.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Record {
  int links = 0;
  long long unknowns = 0, steps = 0, newton_iterations = 0;
  double setup_seconds = 0.0, forward_seconds = 0.0, max_constraint_residual = 0.0;
};

std::vector<int> parse_counts(const std::string& text) {
  std::vector<int> counts;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) counts.push_back(std::stoi(item));
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  const flexadj::Runtime runtime(argv);
  auto comm = runtime.comm();
  const bool root = comm->getRank() == 0;
  std::string model_path = std::string(FLEXADJ_SOURCE_DIR) + "/meshes/rigid_chain.yaml";
  std::string json_path, solver = "auto";
  std::vector<int> counts{10, 100, 1000, 10000};
  long long step_budget = 2000;  // link-steps per run are about step_budget * 10
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) model_path = argv[++i];
    else if (a == "--counts" && i + 1 < argc) counts = parse_counts(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--step-budget" && i + 1 < argc) step_budget = std::stoll(argv[++i]);
    else if (a == "--solver" && i + 1 < argc) solver = argv[++i];
    else {
      if (root) std::fprintf(stderr, "usage: %s [--model FILE] [--counts 10,100,...] [--step-budget N] [--solver KIND] [--json FILE]\n", argv[0]);
      return 2;
    }
  }

  std::vector<Record> records;
  try {
    for (int links : counts) {
      // Fewer steps for longer chains: about the same work per row of the table.
      const long long steps = std::max<long long>(5, step_budget * 10 / links);
      const double h = 2e-3;
      auto problem = flexadj::io::read_problem_file(
          model_path,
          {"chain.count=" + std::to_string(links), "integrator.step_size=" + std::to_string(h),
           "integrator.end_time=" + std::to_string(h * double(steps)), "integrator.linear_solver=" + solver});
      auto& model = *problem.model;
      Record record;
      record.links = links;
      record.unknowns = model.coordinate_count() + model.multiplier_count();
      const auto setup_start = Clock::now();
      flexadj::assembly::Assembler assembler(model, comm);
      flexadj::linalg::LinearSolverOptions options;
      options.kind = problem.integrator.linear_solver;
      const auto integrator = flexadj::integrators::make_time_integrator(assembler, problem.integrator, options);
      auto state = assembler.make_state();
      assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
      record.setup_seconds = std::chrono::duration<double>(Clock::now() - setup_start).count();
      // A bare simulation with no objective, counting Newton iterations and the constraint residual: not a
      // gradient problem (GradientProblem needs an objective and reports neither count).
      flexadj::integrators::SimulationOptions simulation;
      simulation.progress = false;
      simulation.track_energy = false;
      const auto summary = flexadj::integrators::simulate(assembler, *integrator, state, simulation, {});
      record.forward_seconds = summary.wall_seconds;
      record.steps = summary.steps;
      record.newton_iterations = summary.newton_iterations;
      record.max_constraint_residual = summary.max_constraint_residual;
      records.push_back(record);
      if (root)
        std::printf("links %6d  unknowns %7lld  steps %5lld  %9.1f steps/s  Newton/step %.2f  setup %.3f s  max|C| %.1e\n",
                    links, record.unknowns, record.steps, double(record.steps) / record.forward_seconds,
                    double(record.newton_iterations) / double(record.steps), record.setup_seconds,
                    record.max_constraint_residual);
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    if (root) std::fprintf(stderr, "benchmark failed: %s\n", error.what());
    return 1;
  }
  if (root && !json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\n  \"benchmark\": \"forward_chain\",\n  \"ranks\": " << comm->getSize() << ",\n  \"linear_solver\": \""
        << solver << "\",\n  \"runs\": [\n";
    for (std::size_t k = 0; k < records.size(); ++k) {
      const Record& r = records[k];
      out << "    {\"links\": " << r.links << ", \"unknowns\": " << r.unknowns << ", \"steps\": " << r.steps
          << ", \"forward_seconds\": " << r.forward_seconds << ", \"steps_per_second\": "
          << double(r.steps) / r.forward_seconds << ", \"newton_iterations_per_step\": "
          << double(r.newton_iterations) / double(r.steps) << ", \"setup_seconds\": " << r.setup_seconds
          << ", \"max_constraint_residual\": " << r.max_constraint_residual << "}"
          << (k + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
