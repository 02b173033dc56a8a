#pragma once
// The backward sweep's restart files: after the adjoint step of every disk checkpoint step n = k m (k >= 1), the
// discrete adjoint writes what it carries to step n - 1 (the integrator's adjoint variables, the objective's parts
// of steps n .. N and the rank-local gradient sums) to folder/adjoint_<n>.h5 (storage/checkpoint_file.hpp: header,
// CRC-32, written under a temporary name), and removes the one before. A sweep started again with the latest file
// continues at step n - 1 and gives the same gradient bit for bit.
#include <optional>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/assembly/local_gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/checkpoint_folder.hpp"

namespace flexadj::adjoint {

class SweepCheckpoints {
 public:
  // `disk`: the run's folder, identity and interval m (> 0).
  SweepCheckpoints(const assembly::Assembler& assembler, storage::DiskCheckpoints disk);

  // Whether the sweep writes a file after the adjoint step of `step`: once per disk interval m, at the step s with
  // TimeIntegrator::resumable_after(s) (a multiple of kFreshAdjointPivotsEvery) just at or below a multiple of m.
  bool due(std::size_t step) const {
    constexpr std::size_t every = integrators::TimeIntegrator::kFreshAdjointPivotsEvery;
    const std::size_t m = disk_.interval;
    return integrators::TimeIntegrator::resumable_after(step) && (step + every - 1) / m != (step - 1) / m;
  }
  // Collective. OutputError if the file cannot be written.
  void save(std::size_t step, double t, const integrators::TimeIntegrator& integrator,
            const std::vector<double>& objective_parts, const assembly::LocalGradient& gradient);
  // The step of the latest file (the lowest step) in the folder, if any. Collective.
  std::optional<std::size_t> latest() const;
  // Reads the file of `step` (after integrator.begin_adjoint()). Collective; InputError if it is refused.
  void load(std::size_t step, double t, integrators::TimeIntegrator& integrator, std::vector<double>& objective_parts,
            assembly::LocalGradient& gradient);
  // Removes the sweep's file (the sweep is complete). Collective.
  void finish();

 private:
  const assembly::Assembler& assembler_;
  storage::DiskCheckpoints disk_;
  std::optional<std::size_t> written_;  // the step of the file on disk
  std::vector<double> integrator_data_;
};

}  // namespace flexadj::adjoint
