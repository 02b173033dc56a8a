#include "flexadj/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace flexadj {

Progress::Progress(bool enabled, int rank, long long total_steps, std::string label)
    : enabled_(enabled && rank == 0), terminal_(isatty(fileno(stderr)) != 0), total_(total_steps),
      label_(label.empty() ? std::string() : label + " "), start_(Clock::now()), last_(start_) {}

void Progress::update(long long step, double t, int newton_iterations) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (since_last < (terminal_ ? 0.5 : 5.0) && step != total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = step > 0 ? elapsed * double(total_ - step) / double(step) : 0.0;
  char newton[32] = "";
  if (newton_iterations >= 0) std::snprintf(newton, sizeof newton, "  Newton %2d", newton_iterations);
  std::fprintf(stderr, "%s%sstep %lld/%lld (%3.0f%%)  t = %-12.6g%s  elapsed %.1f s  ETA %.1f s%s",
               terminal_ ? "\r" : "", label_.c_str(), step, total_,
               100.0 * double(step) / double(total_ > 0 ? total_ : 1), t, newton, elapsed, eta,
               terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && printed_ && terminal_) std::fprintf(stderr, "\n");
}

}  // namespace flexadj
