#include "flexadj/adjoint/sweep_checkpoints.hpp"

#include <filesystem>

#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/storage/checkpoint_file.hpp"

namespace flexadj::adjoint {
namespace {

constexpr const char* kKind = "adjoint sweep";

}  // namespace

SweepCheckpoints::SweepCheckpoints(const assembly::Assembler& assembler, storage::DiskCheckpoints disk)
    : assembler_(assembler), disk_(std::move(disk)) {
  if (disk_.interval == 0) throw std::invalid_argument("SweepCheckpoints needs a disk interval");
}

void SweepCheckpoints::save(std::size_t step, double t, const integrators::TimeIntegrator& integrator,
                            const std::vector<double>& objective_parts, const assembly::LocalGradient& gradient) {
  integrator.save_adjoint_data(integrator_data_);
  std::vector<storage::CheckpointField> fields = {{"integrator", &integrator_data_},
                                                  {"objective_parts", &objective_parts},
                                                  {"parameters", &gradient.parameters}};
  for (const auto& [name, values] : gradient.controls) fields.push_back({"control " + name, &values});
  const auto n = static_cast<long long>(step);
  storage::write_checkpoint_fields(disk_.adjoint_path(n), raw_mpi_comm(*assembler_.comm()),
                                   {disk_.run, n, t, kKind}, fields);
  // The file of the step before is superseded once this one is complete.
  if (written_ && assembler_.comm()->getRank() == 0) {
    std::error_code ignored;
    std::filesystem::remove(disk_.adjoint_path(static_cast<long long>(*written_)), ignored);
  }
  written_ = step;
}

std::optional<std::size_t> SweepCheckpoints::latest() const {
  const std::vector<long long> steps = disk_.adjoint_steps(*assembler_.comm());
  if (steps.empty()) return std::nullopt;
  return static_cast<std::size_t>(steps.front());
}

void SweepCheckpoints::load(std::size_t step, double t, integrators::TimeIntegrator& integrator,
                            std::vector<double>& objective_parts, assembly::LocalGradient& gradient) {
  const auto fixed = [](const std::vector<double>& v) { return static_cast<long long>(v.size()); };
  std::vector<storage::CheckpointTarget> fields = {{"integrator", &integrator_data_, -1},
                                                   {"objective_parts", &objective_parts, fixed(objective_parts)},
                                                   {"parameters", &gradient.parameters, fixed(gradient.parameters)}};
  for (auto& [name, values] : gradient.controls) fields.push_back({"control " + name, &values, fixed(values)});
  const auto n = static_cast<long long>(step);
  storage::read_checkpoint_fields(disk_.adjoint_path(n), raw_mpi_comm(*assembler_.comm()), {disk_.run, n, t, kKind},
                                  fields);
  integrator.load_adjoint_data(integrator_data_);
  written_ = step;
}

void SweepCheckpoints::finish() {
  if (written_ && assembler_.comm()->getRank() == 0) {
    std::error_code ignored;
    std::filesystem::remove(disk_.adjoint_path(static_cast<long long>(*written_)), ignored);
  }
  written_.reset();
  assembler_.comm()->barrier();
}

}  // namespace flexadj::adjoint
