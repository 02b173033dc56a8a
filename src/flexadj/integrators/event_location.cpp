#include "flexadj/integrators/event_location.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "flexadj/core/error.hpp"

namespace flexadj::integrators {

double locate_end(const assembly::Assembler& assembler, TimeIntegrator& integrator, const EndCondition& condition,
                  const assembly::State& previous, const std::vector<double>& restart, double t, double h,
                  double previous_residual, double h_residual, assembly::State& state, long long step_index) {
  if (h_residual == 0.0) return h;
  // Bracket [a, b] of h_last with H(a), H(b) of opposite signs; H(0) is the state at t.
  double a = 0.0, b = h, fa = previous_residual, fb = h_residual;
  const double tolerance = 4.0 * std::numeric_limits<double>::epsilon() * (std::abs(t) + h);
  int side = 0;  // which end the last try replaced (Illinois: halve the other's H after two on the same side)
  constexpr int kMaxTries = 100;
  for (int tries = 1; tries <= kMaxTries; ++tries) {
    double c = b - fb * (b - a) / (fb - fa);
    if (!(c > std::min(a, b) && c < std::max(a, b))) c = 0.5 * (a + b);
    state = previous;
    integrator.load_restart_data(restart);
    integrator.step(state, t, c, step_index);
    const double fc = condition.residual(assembler, state);
    if (fc == 0.0) return c;
    if ((fc > 0.0) == (fb > 0.0)) {
      b = c, fb = fc;
      if (side == -1) fa *= 0.5;
      side = -1;
    } else {
      a = c, fa = fc;
      if (side == 1) fb *= 0.5;
      side = 1;
    }
    if (std::abs(b - a) <= tolerance) return c;  // `state` is the step of size c, an end of the bracket
  }
  std::ostringstream message;
  message.precision(10);
  message << "the end condition " << condition.description() << " was not located in step " << step_index
          << " (from t = " << t << " s, step " << h << " s) after " << kMaxTries << " tries; H(0) = "
          << previous_residual << ", H(h) = " << h_residual;
  throw SolverError(message.str());
}

}  // namespace flexadj::integrators
