#include "flexadj/integrators/summary_file.hpp"

#include <fstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/renamed_output.hpp"

namespace flexadj::integrators {

void write_summary_json(const std::string& path, const model::Model& model, const SimulationSummary& s, int ranks,
                        const linalg::LinearSolver& solver, const std::vector<double>& peak_rss_mib,
                        const std::string& output) {
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
  out << ",\n  \"peak_rss_mib_per_rank\": [";
  for (std::size_t r = 0; r < peak_rss_mib.size(); ++r) out << (r ? ", " : "") << peak_rss_mib[r];
  out << "],\n  \"output\": \"" << output << "\"\n}\n";
  out.close();  // a full disk shows only when the buffer is written
  if (!out) throw OutputError(path + ": writing the summary file failed (is the disk full?)");
  renamed.commit();
}

}  // namespace flexadj::integrators
