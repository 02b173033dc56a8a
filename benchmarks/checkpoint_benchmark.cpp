// Checkpoint benchmark: the gradient of the rigid chain of meshes/rigid_chain.yaml over N steps with every step in
// memory against binomial checkpointing with s slots (storage/checkpointed_trajectory.hpp) and against two levels,
// s slots in memory and an HDF5 checkpoint file every s steps on disk ("disk"). Each row runs in a
// child process of its own, so that its peak resident memory (getrusage) is its own. Prints per row: the forward
// run alone, the gradient (forward run recorded + backward sweep) over the forward run, the steps the sweep
// recomputed against Griewank's optimum p(N + 1, s) - N, and the peak RSS. Writes JSON with --json.
//   flexadj_benchmark_checkpoints [--links L] [--steps 100,1000,10000] [--slots S (default: ceil(sqrt(N + 1)))]
//                                 [--storages memory,checkpoints,disk] [--folder DIR] [--json FILE]
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/core/runtime.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/storage/binomial_schedule.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

// One row, in this process: prints one JSON line.
int run_row(char** argv, long long links, long long steps, const std::string& storage, std::size_t slots,
            const std::string& folder) {
  using namespace flexadj;
  const Runtime runtime(argv);
  const double h = 2e-3;
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/rigid_chain.yaml",
                                       {"chain.count=" + std::to_string(links), "integrator.step_size=2e-3",
                                        "integrator.end_time=" + std::to_string(h * double(steps))});
  const auto comm = runtime.comm();
  problem.integrator.linear_solver = "direct";
  problem.design_variables.clear();  // all component parameters

  // The forward run alone, recording nothing and summing no J: a bare simulation, which GradientProblem (a forward
  // run that keeps its states for a sweep) does not make; its assembler and integrator are gone before the gradient.
  double forward = 0.0;
  {
    assembly::Assembler assembler(*problem.model, comm);
    const auto integrator = integrators::make_time_integrator(assembler, problem.integrator,
                                                             integrators::linear_solver_options(problem.integrator));
    auto state = assembler.make_state();
    assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
    integrators::SimulationOptions quiet;
    quiet.progress = false;
    quiet.track_energy = false;
    const auto start = Clock::now();
    integrators::simulate(assembler, *integrator, state, quiet, {});
    forward = seconds_since(start);
  }

  const long long unknowns = problem.model->coordinate_count() + problem.model->multiplier_count();
  GradientProblem gradient_problem(std::move(problem), comm, "benchmark");
  AdjointSettings settings;
  settings.storage = storage == "disk" ? "checkpoints" : storage;
  settings.checkpoints = slots;
  if (storage == "disk") settings.folder = folder;  // a disk checkpoint every `slots` steps
  gradient_problem.set_adjoint(settings);
  gradient_problem.prepare();
  const GradientEvaluation gradient = gradient_problem.evaluate(true);
  const double total = gradient.forward_seconds + gradient.adjoint_seconds;
  const storage::CheckpointStatistics* checkpointed = gradient_problem.checkpoint_statistics();
  const unsigned long long recomputed = checkpointed ? checkpointed->recomputed_steps : 0;
  const auto n = static_cast<std::uint64_t>(steps);
  const unsigned long long optimum = !checkpointed      ? 0
                                     : storage == "disk" ? storage::two_level_recomputed_steps(n, slots, slots)
                                                         : storage::optimal_forward_steps(n + 1, slots) - n;
  const unsigned long long disk_files = checkpointed ? checkpointed->disk_writes : 0;
  const double disk_seconds = checkpointed ? checkpointed->disk_seconds : 0.0;
  std::printf("{\"links\": %lld, \"unknowns\": %lld, \"steps\": %lld, \"storage\": \"%s\", \"slots\": %zu, "
              "\"forward_s\": %.4f, \"gradient_s\": %.4f, \"recomputed\": %llu, \"optimum\": %llu, "
              "\"disk_files\": %llu, \"disk_s\": %.4f, \"peak_rss_mb\": %.1f, \"J\": %.17g}\n",
              links, unknowns, steps, storage.c_str(), checkpointed ? slots : 0, forward, total, recomputed, optimum,
              disk_files, disk_seconds, peak_rss_mb(), gradient.objective);
  return 0;
}

std::vector<long long> parse_list(const std::string& text) {
  std::vector<long long> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(std::stoll(item));
  return values;
}

std::string field(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return "";
  const auto begin = at + key.size() + 4;
  return json.substr(begin, json.find_first_of(",}", begin) - begin);
}

}  // namespace

int main(int argc, char** argv) {
  long long links = 100;
  std::vector<long long> steps = {100, 1000, 10000};
  long long fixed_slots = 0;
  std::string json_path, folder = "checkpoint_benchmark_files";
  std::vector<std::string> storages = {"memory", "checkpoints", "disk"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--row" && i + 5 < argc) {
      return run_row(argv, std::stoll(argv[i + 1]), std::stoll(argv[i + 2]), argv[i + 3],
                     static_cast<std::size_t>(std::stoll(argv[i + 4])), argv[i + 5]);
    }
    if (a == "--links" && i + 1 < argc) links = std::stoll(argv[++i]);
    else if (a == "--steps" && i + 1 < argc) steps = parse_list(argv[++i]);
    else if (a == "--slots" && i + 1 < argc) fixed_slots = std::stoll(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--folder" && i + 1 < argc) folder = argv[++i];
    else if (a == "--storages" && i + 1 < argc) {
      storages.clear();
      std::stringstream in(argv[++i]);
      for (std::string item; std::getline(in, item, ',');) storages.push_back(item);
    }
    else {
      std::fprintf(stderr,
                   "usage: %s [--links L] [--steps 100,1000,...] [--slots S] [--storages memory,checkpoints,disk] "
                   "[--folder DIR] [--json FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("checkpoint benchmark: rigid chain of %lld links, gradient of meshes/rigid_chain.yaml's objective, "
              "1 rank\n", links);
  std::printf("%8s %-12s %6s %10s %11s %9s %12s %10s %6s %8s %12s\n", "steps", "storage", "slots", "forward s",
              "gradient s", "grad/fwd", "recomputed", "optimum", "files", "disk s", "peak RSS MB");
  std::vector<std::string> rows;
  for (long long n : steps) {
    const long long slots = fixed_slots > 0 ? fixed_slots : static_cast<long long>(std::ceil(std::sqrt(double(n + 1))));
    for (const std::string& storage : storages) {
      const std::string command = std::string(argv[0]) + " --row " + std::to_string(links) + " " + std::to_string(n) +
                                  " " + storage + " " + std::to_string(slots) + " " + folder;
      FILE* child = popen(command.c_str(), "r");
      std::string line;
      char buffer[4096];
      while (child && std::fgets(buffer, sizeof buffer, child))
        if (buffer[0] == '{') line = buffer;
      if (!child || pclose(child) != 0 || line.empty()) {
        std::fprintf(stderr, "row failed: %s\n", command.c_str());
        return 1;
      }
      while (!line.empty() && line.back() == '\n') line.pop_back();
      rows.push_back(line);
      const double forward = std::stod(field(line, "forward_s")), gradient = std::stod(field(line, "gradient_s"));
      std::printf("%8lld %-12s %6s %10.3f %11.3f %9.2f %12s %10s %6s %8s %12s\n", n, storage.c_str(),
                  storage == "memory" ? "-" : field(line, "slots").c_str(), forward, gradient, gradient / forward,
                  field(line, "recomputed").c_str(), field(line, "optimum").c_str(), field(line, "disk_files").c_str(),
                  field(line, "disk_s").c_str(), field(line, "peak_rss_mb").c_str());
      std::fflush(stdout);
    }
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "[\n";
    for (std::size_t i = 0; i < rows.size(); ++i) out << "  " << rows[i] << (i + 1 < rows.size() ? ",\n" : "\n");
    out << "]\n";
  }
  return 0;
}
