#include "flexadj/integrators/summary_file.hpp"

#include <fstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/memory_usage.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/renamed_output.hpp"

namespace flexadj::integrators {

namespace {

std::vector<double> on_root(double mine, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<double> all(rank == 0 ? ranks : 0);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm);
  return all;
}

void write_array(std::ostream& out, const char* name, const std::vector<double>& values) {
  out << ",\n  \"" << name << "\": [";
  for (std::size_t r = 0; r < values.size(); ++r) out << (r ? ", " : "") << values[r];
  out << "]";
}

}  // namespace

RankCosts gather_rank_costs(const assembly::Assembler& assembler, const linalg::LinearSolver& solver) {
  const MPI_Comm comm = raw_mpi_comm(*assembler.comm());
  RankCosts costs;
  costs.peak_rss_mib = peak_rss_per_rank_mib(comm);
  costs.assembly_seconds = on_root(assembler.assembly_seconds(), comm);
  costs.factorization_seconds = on_root(solver.counts().update_seconds, comm);
  costs.solve_seconds = on_root(solver.counts().solve_seconds, comm);
  return costs;
}

void write_summary_json(const std::string& path, const model::Model& model, const SimulationSummary& s, int ranks,
                        const linalg::LinearSolver& solver, const RankCosts& costs, const std::string& output) {
  RenamedOutput renamed(path, MPI_COMM_SELF);
  std::ofstream out(renamed.temporary());
  if (!out) throw InputError(path, "--summary", "cannot write the summary file");
  out.precision(17);
  out << "{\n  \"model\": \"" << model.source_file << "\",\n  \"ranks\": " << ranks
      << ",\n  \"coordinates\": " << model.coordinate_count() << ",\n  \"multipliers\": " << model.multiplier_count()
      << ",\n  \"steps\": " << s.steps << ",\n  \"end_time\": " << s.end_time
      << ",\n  \"newton_iterations\": " << s.newton_iterations << ",\n  \"max_newton_iterations\": "
      << s.max_newton_iterations << ",\n  \"max_constraint_residual\": " << s.max_constraint_residual
      << ",\n  \"energy_tracked\": " << (s.energy_tracked ? "true" : "false")
      << ",\n  \"initial_energy\": " << s.initial_energy << ",\n  \"max_energy_deviation\": " << s.max_energy_deviation
      << ",\n  \"energy_warning\": " << (s.energy_untrustworthy() ? "true" : "false")
      << ",\n  \"wall_seconds\": " << s.wall_seconds << ",\n  \"linear_solver\": \"" << solver.description()
      << "\",\n  \"linear_solves\": " << solver.counts().solves;
  if (solver.counts().iterative)
    out << ",\n  \"krylov_iterations_mean\": " << solver.counts().mean_iterations()
        << ",\n  \"krylov_iterations_max\": " << solver.counts().max_iterations;
  write_array(out, "peak_rss_mib_per_rank", costs.peak_rss_mib);
  write_array(out, "assembly_seconds_per_rank", costs.assembly_seconds);
  write_array(out, "factorization_seconds_per_rank", costs.factorization_seconds);
  write_array(out, "solve_seconds_per_rank", costs.solve_seconds);
  out << ",\n  \"output\": \"" << output << "\"\n}\n";
  out.close();  // a full disk shows only when the buffer is written
  if (!out) throw OutputError(path + ": writing the summary file failed (is the disk full?)");
  renamed.commit();
}

}  // namespace flexadj::integrators
