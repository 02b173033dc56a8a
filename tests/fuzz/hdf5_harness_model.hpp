#pragma once
// The model whose HDF5 files seed the HDF5 fuzz harness (fuzz_hdf5.cpp); tests/mpi/test_damaged_files.cpp writes the
// same files again to damage them as the harness's findings did.
namespace flexadj::fuzzing {

inline const char* const kHdf5HarnessModel = R"(
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.5, step_size: 0.1}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 1,
     free_length: 1}
joints:
  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}
)";

}  // namespace flexadj::fuzzing
