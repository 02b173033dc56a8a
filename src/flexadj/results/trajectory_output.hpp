#pragma once
// Writes a simulation to one HDF5 file (collectively, each rank its own rows) and an XDMF file next
// to it that ParaView opens as a time series:
//   /time                       [steps]
//   /state/q, /state/v, /state/a [steps, coordinates]      /state/lambda [steps, multipliers] (results/state_reader.hpp;
//                                                          absent for a model without multipliers)
//   /bodies/position            [steps, bodies, 3]  centre of mass
//   /bodies/axis_x|y|z          [steps, bodies, 3]  body-frame axes in global coordinates (ANCF nodes: the section
//                                                   frame of their gradients, model::section_frame)
//   /bodies/velocity            [steps, bodies, 3]
//   /joints/position            [steps, joints, 3]  the joint point on its first body
//   /joints/force               [steps, joints, 3]  constraint force on the translation of that body
//   /beams/connectivity         [elements, 2]       node (body) indices of the beam elements (geometrically
//                                                   exact and ANCF: the elements with stress resultants)
//   /beams/midpoint             [steps, elements, 3] the element's section point (ForceElement::section_point)
//   /beams/force, /beams/moment [steps, elements, 3] (N, Q2, Q3) and (T, M2, M3) in its section frame
//   /model/...                  names of bodies, joints, coordinates and multipliers; attributes with
//                               the model file, title, dimension and integrator settings
#include <memory>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj {
class RenamedOutput;
}

namespace flexadj::results {

class ResultsFile;

// NAME.xmf beside NAME.h5 (the XDMF file of a trajectory file).
std::string xdmf_path_of(const std::string& path);

// InputError(path, option, ...) unless `path` can be written as a trajectory file: its name (with the .tmp it is
// written under, and its XDMF files' names) fits the file system, and with XDMF files it has no ':' or '|' (which
// XDMF cannot refer to). `instead`: how to write no XDMF files, for the message. Checked by the constructor; a
// command checks its names with it before its work.
void check_trajectory_name(const std::string& path, bool xdmf, const std::string& option, const std::string& instead);

// What a trajectory file says of the run that wrote it (integrators::describe_run() makes it from the settings).
struct RunDescription {
  double step_size = 0.0;        // the first step (root attribute)
  double spectral_radius = 0.0;  // generalized-alpha's rho_infinity (root attribute)
  long long last_step = -1;      // always written; -1: known only at the end (error-controlled steps; observe_final)
};

class TrajectoryOutput {
 public:
  TrajectoryOutput(assembly::Assembler& assembler, const RunDescription& run, const std::string& path, int every,
                   bool xdmf);
  ~TrajectoryOutput();
  // Writes step n if n is a multiple of `every` or the last step (collective).
  void observe(long long step, double t, const assembly::State& state);
  // A run that ended before its last step (an end condition): writes that step if observe() did not.
  void observe_final(long long step, double t, const assembly::State& state) {
    if (step % every_ == 0 || step == last_step_) return;  // written already
    last_step_ = step;
    observe(step, t, state);
  }
  // Writes buffered steps, closes the HDF5 file, writes the XDMF description and renames the HDF5 file from its
  // temporary name (collective). Without finish() (a failed run) the temporary is removed: an earlier file of the
  // same name stays as it was.
  void finish();
  const std::string& path() const { return path_; }
  std::string xdmf_path() const;

 private:
  assembly::Assembler& assembler_;
  std::string path_;
  int every_;
  bool xdmf_;
  RunDescription run_;
  long long last_step_;
  long long written_ = 0;
  std::vector<double> times_;
  std::unique_ptr<RenamedOutput> renamed_;  // declared before file_: the file closes before its temporary goes
  std::unique_ptr<ResultsFile> file_;
  int q_field_, v_field_, a_field_, lambda_field_ = -1, position_field_, axis_fields_[3], velocity_field_,
      joint_position_field_, joint_force_field_;
  std::vector<int> joints_;             // constraint indices shown as joints (all but unit quaternions)
  std::vector<int> joint_of_constraint_;  // constraint index -> joint index or -1
  std::vector<int> joint_point_parameter_;  // joint index -> index of its point's x parameter, or -1
  std::vector<long long> local_joints_;
  std::vector<long long> beam_connectivity_;  // node (body) index pairs of the beam elements
  std::vector<long long> beam_of_element_;    // force element index -> beam element index or -1
  std::vector<long long> local_beams_;        // beam element indices evaluated on this rank
  int beam_midpoint_field_ = -1, beam_force_field_ = -1, beam_moment_field_ = -1;
  int checksum_field_ = -1;  // /state/checksum
  std::vector<double> beam_data_;             // midpoints, forces, moments of the local beam elements
  // Steps are buffered and written in blocks: one collective write per field per block.
  void flush();
  void write_xdmf() const;
  struct Buffer {
    int field;
    std::size_t values_per_step;
    std::vector<double> data;
  };
  std::vector<Buffer> buffers_;  // q, v, a, position, axis_x|y|z, velocity, lambda, joint position, force, beams
  std::vector<double> pending_times_;
  long long first_pending_ = 0;
  long long block_steps_ = 64;
  std::vector<double> body_data_, joint_data_;
};

}  // namespace flexadj::results
