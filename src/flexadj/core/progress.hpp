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
  // `step` of total_steps done, at time t; newton_iterations < 0: not printed (a backward sweep).
  void update(long long step, double t, int newton_iterations);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool terminal_;
  long long total_;
  std::string label_;
  Clock::time_point start_, last_;
  bool printed_ = false;
};

}  // namespace flexadj
