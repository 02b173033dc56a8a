#include "flexadj/core/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <utility>

namespace flexadj {

Progress::Progress(bool enabled, int rank, long long total_steps, std::string label)
    : enabled_(enabled && rank == 0), terminal_(isatty(fileno(stderr)) != 0), total_(total_steps),
      label_(label.empty() ? std::string() : label + " "), start_(Clock::now()), last_(start_) {}

Progress::Progress(bool enabled, int rank, double start_time, double end_time, std::string label)
    : Progress(enabled, rank, -1, std::move(label)) {
  start_time_ = start_time;
  end_time_ = end_time;
}

void Progress::update(long long step, double t, int newton_iterations, double krylov_per_solve) {
  if (!enabled_) return;
  const bool in_time = total_ < 0;
  const double done = in_time ? (t - start_time_) / (end_time_ - start_time_)
                              : double(step) / double(total_ > 0 ? total_ : 1);
  const bool last = in_time ? done >= 1.0 : step == total_;
  const auto now = Clock::now();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (since_last < (terminal_ ? 0.5 : 5.0) && !last) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = done > 0.0 ? elapsed * (1.0 - done) / done : 0.0;
  char newton[64] = "", steps[64];
  if (newton_iterations >= 0) std::snprintf(newton, sizeof newton, "  Newton %2d", newton_iterations);
  if (krylov_per_solve >= 0.0)
    std::snprintf(newton + std::strlen(newton), sizeof newton - std::strlen(newton), "  GMRES %.1f/solve",
                  krylov_per_solve);
  if (in_time) std::snprintf(steps, sizeof steps, "step %lld (%3.0f%% of the time)", step, 100.0 * done);
  else std::snprintf(steps, sizeof steps, "step %lld/%lld (%3.0f%%)", step, total_, 100.0 * done);
  std::fprintf(stderr, "%s%s%s  t = %-12.6g%s  elapsed %.1f s  ETA %.1f s%s", terminal_ ? "\r" : "",
               label_.c_str(), steps, t, newton, elapsed, eta, terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && printed_ && terminal_) std::fprintf(stderr, "\n");
}

}  // namespace flexadj
