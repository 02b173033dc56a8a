#pragma once
// Progress line for long runs, printed by rank 0 to stderr: rewritten in place on a terminal, one line
// every few seconds otherwise (batch-job logs).
#include <chrono>
#include <string>

namespace flexadj {

class Progress {
 public:
  // `label` (e.g. "forward", "adjoint") starts the line when given.
  Progress(bool enabled, int rank, long long total_steps, std::string label = "");
  // A run whose step count is not known in advance (error-controlled steps): progress is the fraction of
  // [start_time, end_time] done.
  Progress(bool enabled, int rank, double start_time, double end_time, std::string label = "");
  // `step` of total_steps done, at time t; newton_iterations < 0: not printed (a backward sweep);
  // krylov_per_solve < 0: not printed (a direct solver), else the mean Krylov iterations of the linear solves.
  void update(long long step, double t, int newton_iterations, double krylov_per_solve = -1.0);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool terminal_;
  long long total_;
  double start_time_ = 0.0, end_time_ = 0.0;  // total_ < 0: progress in time
  std::string label_;
  Clock::time_point start_, last_;
  bool printed_ = false;
};

}  // namespace flexadj
