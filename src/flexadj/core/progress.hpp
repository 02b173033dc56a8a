#pragma once
// Progress line for long runs, printed by rank 0 to stderr: rewritten in place on a terminal, one line
// every few seconds otherwise (batch-job logs).
#include <chrono>
#include <string>

namespace flexadj {

class Progress {
 public:
  Progress(bool enabled, int rank, long long total_steps);
  void update(long long step, double t, int newton_iterations);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool terminal_;
  long long total_;
  Clock::time_point start_, last_;
  bool printed_ = false;
};

}  // namespace flexadj
