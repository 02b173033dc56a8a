// Beam dynamics: conservation laws of the free flight of the flying spaghetti (Simo and Vu-Quoc 1986) and
// the right-angle cantilever of Simo and Vu-Quoc (1988).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "beam_support.hpp"

namespace flexadj::testing {
namespace {

// The flying spaghetti of meshes/flying_spaghetti.yaml (Simo and Vu-Quoc 1986: a load of duration 2.5, then free
// flight, t up to 15) with generalized-alpha at rho_inf = 1 (no numerical dissipation). It conserves linear
// momentum exactly (the internal forces of a free beam sum to zero at every stage), but energy and angular
// momentum only up to O(h^2) for this nonlinear problem (measured: h = 0.05 drifts of 0.48 % and 0.80 %;
// h = 0.025: 0.063 % and 0.091 %; h = 0.0125: 0.016 % and 0.023 %). The variational integrator conserves both
// momenta exactly: test_variational_integrator.cpp.
TEST(BeamDynamics, FlyingSpaghettiConservesMomentaAndEnergyInFreeFlight) {
  const std::vector<std::string> generalized_alpha{"integrator.type=generalized_alpha",
                                                   "integrator.spectral_radius=1"};
  const FreeFlight coarse = flying_spaghetti(0.025, generalized_alpha), fine = flying_spaghetti(0.0125, generalized_alpha);
  for (const auto& d : {coarse, fine}) {
    EXPECT_NEAR(d.impulse, 10.0, 1e-9);  // the impulse of the load: 8 * 1.25 along x
    EXPECT_LT(d.linear_drift, 1e-9);
    EXPECT_GT(d.travelled, 5.0);  // the beam flew and tumbled: a real test
  }
  EXPECT_LT(coarse.angular_drift, 1e-3 * std::abs(coarse.angular));
  EXPECT_LT(coarse.energy_drift, 1.5e-3 * coarse.energy);
  EXPECT_LT(fine.angular_drift, 3e-4 * std::abs(fine.angular));
  EXPECT_LT(fine.energy_drift, 3e-4 * fine.energy);
  // Second order in h.
  EXPECT_GT(std::log2(coarse.angular_drift / fine.angular_drift), 1.8);
  EXPECT_GT(std::log2(coarse.energy_drift / fine.energy_drift), 1.8);
}

// Right-angle cantilever of Simo and Vu-Quoc (1988): two arms of length 10 (clamped at (0, 0, 0) along y, then
// along -x from the elbow (0, 10, 0)), EA = GA = 1e6, EI = GJ = 1e3, rho A = 1, rho J = diag(20, 10, 10);
// out-of-plane force at the elbow, a triangle 0 -> 50 at t = 1 -> 0 at t = 2, then free vibration
// (meshes/right_angle_cantilever.yaml: 20 elements per arm, h = 0.025, rho_inf = 1).
// References for the out-of-plane displacement w:
// - converged values of an independent implementation (Exudyn, J. Gerstmayr 2026, test model
//   geometricallyExactBeamElbowCantilever: consistent mass matrix, 40 elements per arm, h = 0.005): free end
//   +8.25 at t = 7.44 and -9.73 at t = 15.87, elbow -4.06 at t = 10.87. flexadj (lumped mass) with 40 elements
//   and h = 0.005 gives +8.250 at 7.44, -9.727 at 15.88 and -4.061 at 10.87;
// - the paper's curves, digitised: +8.3 at t = 6.6 and -9.2 at t = 14.5-15 (labelled the elbow in our notes; the
//   values are the free end's). Printed, not asserted: they differ from the values above by 0.06 and 0.53 in w
//   and by 0.85 and 1.1 s in time (measured, 20 elements), more than a digitisation error, and the paper's
//   discretisation is not known here; windows wide enough to hold them (0.6, 1.5 s) would hold every value the
//   assertions above allow.
struct CantileverPeaks {
  double tip_max, tip_max_time, tip_min, tip_min_time, elbow_min, elbow_min_time;
};

CantileverPeaks right_angle_cantilever_peaks(int elements_per_arm, double step_size) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/right_angle_cantilever.yaml");
  const std::string yaml_elements = std::to_string(elements_per_arm);
  if (elements_per_arm != 20) {  // the mesh file's discretisation; others are built from the same file
    std::ifstream file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/right_angle_cantilever.yaml");
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    for (std::size_t at = text.find("elements: 20"); at != std::string::npos; at = text.find("elements: 20", at))
      text.replace(at, 12, "elements: " + yaml_elements);
    problem = io::read_problem_string(text, "right_angle_cantilever.yaml");
  }
  problem.integrator.end_time = 16.5;
  problem.integrator.step_size = step_size;
  const Trajectory trajectory = run(problem, world());
  EXPECT_LT(trajectory.summary.max_constraint_residual, 1e-9);  // clamp and elbow joint hold
  const long long tip = problem.model->body_offset(problem.model->find_body("arm2.end")) + 2;
  const long long elbow = problem.model->body_offset(problem.model->find_body("arm1.end")) + 2;
  std::size_t high = 0, low = 0, elbow_low = 0;
  for (std::size_t n = 0; n < trajectory.times.size(); ++n) {
    if (trajectory.q[n][tip] > trajectory.q[high][tip]) high = n;
    if (trajectory.q[n][tip] < trajectory.q[low][tip]) low = n;
    if (trajectory.q[n][elbow] < trajectory.q[elbow_low][elbow]) elbow_low = n;
  }
  const CantileverPeaks peaks{trajectory.q[high][tip],         trajectory.times[high],
                              trajectory.q[low][tip],          trajectory.times[low],
                              trajectory.q[elbow_low][elbow], trajectory.times[elbow_low]};
  std::printf("%d elements per arm, h = %g: free end max %.4f at t = %.3f, min %.4f at t = %.3f; elbow min %.4f at "
              "t = %.3f\n",
              elements_per_arm, step_size, peaks.tip_max, peaks.tip_max_time, peaks.tip_min, peaks.tip_min_time,
              peaks.elbow_min, peaks.elbow_min_time);
  return peaks;
}

TEST(BeamDynamics, RightAngleCantileverPeaksMatchAnIndependentCode) {
  const CantileverPeaks coarse = right_angle_cantilever_peaks(10, 0.05);
  const CantileverPeaks fine = right_angle_cantilever_peaks(20, 0.025);
  // The independent converged values (measured: 20 elements deviate by <= 0.008 in w and 0.01 s in time).
  EXPECT_NEAR(fine.tip_max, 8.25, 0.02);
  EXPECT_NEAR(fine.tip_max_time, 7.44, 0.03);
  EXPECT_NEAR(fine.tip_min, -9.73, 0.02);
  EXPECT_NEAR(fine.tip_min_time, 15.87, 0.03);
  EXPECT_NEAR(fine.elbow_min, -4.06, 0.02);
  EXPECT_NEAR(fine.elbow_min_time, 10.87, 0.03);
  // Refinement approaches them (10 elements and h = 0.05: 8.209, -9.719, -4.067).
  EXPECT_LT(std::abs(fine.tip_max - 8.25), 0.5 * std::abs(coarse.tip_max - 8.25));
  // The paper's digitised curve, for the record (see above).
  std::printf("against the paper's digitised curve: max %+.2f at t %+.2f, min %+.2f at t %+.2f (w, t differences)\n",
              fine.tip_max - 8.3, fine.tip_max_time - 6.6, fine.tip_min + 9.2, fine.tip_min_time - 14.75);
}

// np 1 and np 2: the same trajectory (run under mpirun at both rank counts; the world run is distributed).
TEST(BeamDynamics, RightAngleCantileverIsIndependentOfTheRankCount) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/right_angle_cantilever.yaml");
  problem.integrator.end_time = 4.0;
  const Trajectory distributed = run(problem, world());
  const Trajectory serial = run(problem, self());
  ASSERT_EQ(distributed.q.size(), serial.q.size());
  double q_difference = 0.0, v_difference = 0.0;
  for (std::size_t n = 0; n < serial.q.size(); ++n)
    for (std::size_t i = 0; i < serial.q[n].size(); ++i) {
      q_difference = std::max(q_difference, std::abs(distributed.q[n][i] - serial.q[n][i]));
      v_difference = std::max(v_difference, std::abs(distributed.v[n][i] - serial.v[n][i]));
    }
  EXPECT_LT(q_difference, 1e-10);
  EXPECT_LT(v_difference, 1e-10);
  EXPECT_GT(std::abs(serial.q.back()[problem.model->body_offset(problem.model->find_body("arm1.end")) + 2]),
            1.0);  // it moved
}

}  // namespace
}  // namespace flexadj::testing
