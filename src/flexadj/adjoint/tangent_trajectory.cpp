#include "flexadj/adjoint/tangent_trajectory.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <stdexcept>

#include "flexadj/integrators/simulation.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"

namespace flexadj::adjoint {
namespace {

// The direction in the sweep's layout: p_dot by component, u_dot by signal.
void set_direction(const Gradient& direction, assembly::LocalGradient& along) {
  std::copy(direction.parameters.begin(), direction.parameters.end(), along.parameters.begin());
  for (auto& [name, values] : along.controls)
    if (const auto it = direction.controls.find(name); it != direction.controls.end()) values = it->second;
}

// The tangent of step 0 of a run from `state` (the given initial state's direction, then the start's equations).
void initial_tangent(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator, const Gradient& direction,
                     const assembly::State& state, double t0, const assembly::LocalGradient& along,
                     assembly::State& tangent) {
  assembler.scatter_global(direction.initial_coordinates, direction.initial_velocities, tangent);
  integrator.tangent_initialize(state, t0, along, tangent);
}

// Memory or HDF5: the tangents recorded like the states, in a trajectory of the same kind.
class StoredTangents final : public TangentTrajectory {
 public:
  StoredTangents(storage::Trajectory& states, std::unique_ptr<storage::Trajectory> tangents, std::string file)
      : states_(states), tangents_(std::move(tangents)), file_(std::move(file)) {}
  ~StoredTangents() override {
    tangents_.reset();  // closes the file
    if (!file_.empty()) {
      std::error_code ignored;
      std::filesystem::remove(file_, ignored);
    }
  }
  storage::Trajectory& states() override { return states_; }
  const assembly::State& tangent(std::size_t n) override { return tangents_->step(n); }
  storage::Trajectory& tangents() { return *tangents_; }

 private:
  storage::Trajectory& states_;
  std::unique_ptr<storage::Trajectory> tangents_;
  std::string file_;  // the tangents' HDF5 file, which rank 0 removes (empty: none, or not rank 0)
};

// Checkpoints: the integrator's steps with the tangent step after each, the tangent saved and restored with the
// integrator's restart data ([integrator's data, q_dot, v_dot, a_dot, aux_dot, lambda_dot, size of the
// integrator's data]), so that the checkpointed trajectory recomputes both.
class RecomputedTangents final : public TangentTrajectory, private storage::StepRecomputer {
 public:
  RecomputedTangents(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                     const storage::CheckpointedTrajectory& gradient_checkpoints, std::size_t slots,
                     const Gradient& direction, const assembly::LocalGradient& along)
      : assembler_(assembler),
        integrator_(integrator),
        direction_(direction),
        along_(along),
        tangent_(assembler.make_state()),
        served_(assembler.make_state()),
        folder_(gradient_checkpoints.disk().interval > 0
                    ? (std::filesystem::path(gradient_checkpoints.disk().folder) / "tangents").string()
                    : std::string()),
        checkpoints_(std::make_unique<storage::CheckpointedTrajectory>(
            assembler, static_cast<storage::StepRecomputer&>(*this),
            slots > 0 ? slots : gradient_checkpoints.statistics().slots,
            storage::DiskCheckpoints{gradient_checkpoints.disk().interval, folder_, gradient_checkpoints.disk().run})) {}
  ~RecomputedTangents() override {
    const bool passing = std::uncaught_exceptions() > 0;
    checkpoints_.reset();  // removes its disk files (kept while an exception passes)
    if (passing || folder_.empty() || assembler_.comm()->getRank() != 0) return;
    std::error_code ignored;
    std::filesystem::remove(folder_, ignored);  // the folder, now empty
  }

  // The forward run again (from the model's initial state), each step followed by its tangent step.
  void run() {
    Recorder recorder(*this);
    assembly::State state = assembler_.make_state();
    assembler_.scatter_global(assembler_.model().initial_coordinates(), assembler_.model().initial_velocities(), state);
    integrators::record_forward_run(assembler_, integrator_, state, recorder, {}, false);
  }

  storage::Trajectory& states() override { return *checkpoints_; }
  const assembly::State& tangent(std::size_t n) override {
    checkpoints_->step(n);  // the state at hand, or a checkpoint's: no recomputation after states().step(n)
    checkpoints_->served_restart_data(data_);
    unpack(data_, served_);
    return served_;
  }

 private:
  // What the forward run records goes to the checkpoints after the tangent step of the same step.
  class Recorder final : public storage::Trajectory {
   public:
    explicit Recorder(RecomputedTangents& owner) : owner_(owner) {}
    void begin_recording() override { owner_.checkpoints_->begin_recording(); }
    void record(long long step, double t, const assembly::State& state) override {
      if (step == 0)
        initial_tangent(owner_.assembler_, owner_.integrator_, owner_.direction_, state, t, owner_.along_,
                        owner_.tangent_);
      else
        owner_.integrator_.tangent_step(previous_, state, t_, t - t_, owner_.along_, owner_.tangent_);
      t_ = t;
      previous_ = state;
      owner_.checkpoints_->record(step, t, state);
    }
    void end_recording() override { owner_.checkpoints_->end_recording(); }
    const std::vector<double>& step_times() const override { return owner_.checkpoints_->step_times(); }
    const assembly::State& step(std::size_t n) override { return owner_.checkpoints_->step(n); }

   private:
    RecomputedTangents& owner_;
    double t_ = 0.0;
    assembly::State previous_;  // the state recorded last
  };

  // storage::StepRecomputer: the integrator's, with the tangent.
  std::vector<double> recorded_step_times() const override { return integrator_.recorded_step_times(); }
  results::RunDescription run_description() const override { return integrator_.run_description(); }
  void save_restart_data(std::vector<double>& data) const override {
    integrator_.save_restart_data(data);
    const std::size_t own = data.size();
    for (const auto* v : {&tangent_.q, &tangent_.v, &tangent_.a, &tangent_.aux, &tangent_.lambda})
      data.insert(data.end(), v->begin(), v->end());
    data.push_back(static_cast<double>(own));
  }
  void load_restart_data(const std::vector<double>& data) override {
    const std::size_t own = unpack(data, tangent_);
    integrator_data_.assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(own));
    integrator_.load_restart_data(integrator_data_);
  }
  void recompute_step(assembly::State& state, double t, double h, long long n) override {
    previous_ = state;
    integrator_.recompute_step(state, t, h, n);
    integrator_.tangent_step(previous_, state, t, h, along_, tangent_);
  }

  // The tangent from restart data (save_restart_data()'s layout); returns the size of the integrator's part.
  std::size_t unpack(const std::vector<double>& data, assembly::State& tangent) const {
    std::size_t tangent_size = 0;
    for (const auto* v : {&tangent.q, &tangent.v, &tangent.a, &tangent.aux, &tangent.lambda}) tangent_size += v->size();
    if (data.empty() || data.size() < tangent_size + 1)
      throw std::logic_error("RecomputedTangents: restart data without a tangent");
    const auto own = static_cast<std::size_t>(data.back());
    if (own + tangent_size + 1 != data.size())
      throw std::logic_error("RecomputedTangents: restart data of another layout");
    auto from = data.begin() + static_cast<std::ptrdiff_t>(own);
    for (auto* v : {&tangent.q, &tangent.v, &tangent.a, &tangent.aux, &tangent.lambda}) {
      std::copy(from, from + static_cast<std::ptrdiff_t>(v->size()), v->begin());
      from += static_cast<std::ptrdiff_t>(v->size());
    }
    return own;
  }

  assembly::Assembler& assembler_;
  integrators::TimeIntegrator& integrator_;
  const Gradient& direction_;
  const assembly::LocalGradient& along_;
  assembly::State tangent_;  // of the step the integrator last took (forward run or recomputation)
  assembly::State previous_;  // the state before that step
  assembly::State served_;   // what tangent() returns
  std::vector<double> data_, integrator_data_;
  std::string folder_;  // the disk checkpoints' (empty: memory only)
  std::unique_ptr<storage::CheckpointedTrajectory> checkpoints_;
};

}  // namespace

std::unique_ptr<TangentTrajectory> tangent_linear_sweep(assembly::Assembler& assembler,
                                                        integrators::TimeIntegrator& integrator,
                                                        storage::Trajectory& trajectory, const Gradient& direction,
                                                        assembly::LocalGradient& along, std::size_t checkpoint_slots) {
  set_direction(direction, along);
  if (const auto* checkpointed = dynamic_cast<const storage::CheckpointedTrajectory*>(&trajectory)) {
    auto tangents =
        std::make_unique<RecomputedTangents>(assembler, integrator, *checkpointed, checkpoint_slots, direction, along);
    tangents->run();
    return tangents;
  }
  std::unique_ptr<StoredTangents> stored;
  if (const auto* file = dynamic_cast<const storage::Hdf5Trajectory*>(&trajectory)) {
    // Beside the states' file: name.h5 -> name.tangents.h5.
    std::filesystem::path path(file->path());
    path.replace_extension(".tangents.h5");
    auto tangents = std::make_unique<storage::Hdf5Trajectory>(path.string(), assembler, integrator.run_description());
    stored = std::make_unique<StoredTangents>(trajectory, std::move(tangents),
                                              assembler.comm()->getRank() == 0 ? path.string() : std::string());
  } else {
    stored = std::make_unique<StoredTangents>(trajectory, std::make_unique<storage::MemoryTrajectory>(), std::string());
  }
  // The tangent steps over the recorded states, in order; the last tangent is carried from step to step.
  storage::Trajectory& tangents = stored->tangents();
  const std::vector<double> times = trajectory.step_times();
  assembly::State tangent = assembler.make_state(), previous = trajectory.step(0), state = previous;
  tangents.begin_recording();
  initial_tangent(assembler, integrator, direction, previous, times[0], along, tangent);
  tangents.record(0, times[0], tangent);
  for (std::size_t k = 1; k < times.size(); ++k) {
    state = trajectory.step(k);
    integrator.tangent_step(previous, state, times[k - 1], times[k] - times[k - 1], along, tangent);
    tangents.record(static_cast<long long>(k), times[k], tangent);
    std::swap(previous, state);
  }
  tangents.end_recording();
  return stored;
}

}  // namespace flexadj::adjoint
