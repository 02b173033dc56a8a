#include "flexadj/results/trajectory_output.hpp"

#include <Teuchos_DefaultMpiComm.hpp>

#include <array>
#include <filesystem>
#include <stdexcept>

#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/checksum.hpp"
#include "flexadj/core/error.hpp"

#include "flexadj/results/hdf5_results_file.hpp"
#include "flexadj/core/renamed_output.hpp"
#include "flexadj/results/state_reader.hpp"
#include "flexadj/results/xdmf_writer.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::results {
namespace {

// (N, Q2, Q3, T, M2, M3) per beam element.
constexpr int kBeamResultants = 6;
// The longest file name (not path) of common file systems (NAME_MAX of ext4, xfs, Lustre, GPFS).
constexpr std::size_t kMaxFileName = 255;

std::vector<std::string> coordinate_names(const model::Model& model) {
  std::vector<std::string> names;
  for (long long id = 0; id < model.coordinate_count(); ++id) names.push_back(model::coordinate_name(model, id));
  return names;
}

int find_parameter(const model::Component& component, const std::string& name) {
  const auto& names = component.parameter_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string xdmf_path_of(const std::string& path) {
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_extension ? path.substr(0, dot) : path) + ".xmf";
}

void check_trajectory_name(const std::string& path, bool xdmf, const std::string& option, const std::string& instead) {
  // Every file is written under a temporary name and renamed (NAME.h5.tmp, NAME.xmf.tmp, NAME.xmf2.tmp): their
  // names must fit the file system's limit too.
  std::string longest_name = std::filesystem::path(temporary_name(path)).filename().string();
  if (xdmf) {
    const std::string xdmf_name =
        std::filesystem::path(temporary_name(XdmfWriter::legacy_path(xdmf_path_of(path)))).filename().string();
    if (xdmf_name.size() > longest_name.size()) longest_name = xdmf_name;
  }
  if (longest_name.size() > kMaxFileName)
    throw InputError(path, option, "the file name is too long (" + std::to_string(longest_name.size()) +
                                       " characters with the .tmp suffix it is written under; at most " +
                                       std::to_string(kMaxFileName) + ")");
  // XDMF refers to a dataset as "file:dataset" (XDMF 3: "file:dataset|selection").
  const std::string name = std::filesystem::path(path).filename().string();
  if (xdmf && name.find_first_of(":|") != std::string::npos)
    throw InputError(path, option, "a ':' or '|' in the file name cannot be referred to from the XDMF files that "
                                   "ParaView reads; rename the output or write none (" + instead + ")");
}

TrajectoryOutput::TrajectoryOutput(assembly::Assembler& assembler, const RunDescription& run, const std::string& path,
                                   int every, bool xdmf)
    : assembler_(assembler),
      path_(path),
      every_(std::max(every, 1)),
      xdmf_(xdmf),
      run_(run),
      last_step_(run.last_step) {
  const auto& model = assembler_.model();
  check_trajectory_name(path_, xdmf_, "", "--no-xdmf");
  const auto& dofs = assembler_.dofs();
  renamed_ = std::make_unique<RenamedOutput>(path_, raw_mpi_comm(*assembler_.comm()));
  file_ = std::make_unique<ResultsFile>(raw_mpi_comm(*assembler_.comm()), renamed_->temporary());

  joint_of_constraint_.assign(model.constraints().size(), -1);
  for (std::size_t i = 0; i < model.constraints().size(); ++i) {
    // The unit conditions of Euler parameters and dual quaternions are not joints.
    const std::string type = model.constraints()[i]->type();
    if (type == "unit_quaternion" || type == "unit_dual_quaternion") continue;
    joint_of_constraint_[i] = static_cast<int>(joints_.size());
    joints_.push_back(static_cast<int>(i));
    // The joint is drawn at its point on the first body: parameter point_a (two-body joints) or point.
    int point = find_parameter(*model.constraints()[i], "point_a_x");
    if (point < 0) point = find_parameter(*model.constraints()[i], "point_x");
    joint_point_parameter_.push_back(point);
  }
  for (int i : dofs.local_constraints())
    if (joint_of_constraint_[i] >= 0) local_joints_.push_back(joint_of_constraint_[i]);

  std::vector<long long> multiplier_items;
  for (long long gid : dofs.owned_multipliers()) multiplier_items.push_back(gid - dofs.coordinate_count());
  std::vector<long long> body_items(dofs.owned_bodies().begin(), dofs.owned_bodies().end());
  const long long bodies = static_cast<long long>(model.bodies().size());
  const long long joints = static_cast<long long>(joints_.size());

  q_field_ = file_->define_field(state_datasets::kCoordinates, dofs.coordinate_count(), 1, dofs.owned_coordinates());
  v_field_ = file_->define_field(state_datasets::kVelocities, dofs.coordinate_count(), 1, dofs.owned_coordinates());
  a_field_ = file_->define_field(state_datasets::kAccelerations, dofs.coordinate_count(), 1, dofs.owned_coordinates());
  // A model without multipliers (no joints, no unit-quaternion bodies) has no /state/lambda.
  const bool multipliers = dofs.multiplier_count() > 0;
  if (multipliers)
    lambda_field_ = file_->define_field(state_datasets::kMultipliers, dofs.multiplier_count(), 1, multiplier_items);
  position_field_ = file_->define_field("/bodies/position", bodies, 3, body_items);
  const char* axes[3] = {"/bodies/axis_x", "/bodies/axis_y", "/bodies/axis_z"};
  for (int k = 0; k < 3; ++k) axis_fields_[k] = file_->define_field(axes[k], bodies, 3, body_items);
  velocity_field_ = file_->define_field("/bodies/velocity", bodies, 3, body_items);
  if (joints > 0) {
    joint_position_field_ = file_->define_field("/joints/position", joints, 3, local_joints_);
    joint_force_field_ = file_->define_field("/joints/force", joints, 3, local_joints_);
  }
  // Beam elements (the two-node elements with stress resultants: geometrically exact and ANCF) as line segments
  // between their nodes (indices into /bodies/position).
  beam_of_element_.assign(model.force_elements().size(), -1);
  for (std::size_t i = 0; i < model.force_elements().size(); ++i) {
    const auto& element = *model.force_elements()[i];
    if (element.resultant_count() == 0) continue;
    if (element.resultant_count() != kBeamResultants || element.bodies().size() != 2)
      throw std::logic_error("beam output: element '" + element.name() + "' is not a two-node element with " +
                             std::to_string(kBeamResultants) + " resultants");
    beam_of_element_[i] = static_cast<long long>(beam_connectivity_.size() / 2);
    for (int body : element.bodies()) beam_connectivity_.push_back(body);
  }
  const long long beam_elements = static_cast<long long>(beam_connectivity_.size() / 2);
  if (beam_elements > 0) {
    file_->write_static_int64("/beams/connectivity", beam_connectivity_, {beam_elements, 2});
    // Stress resultants at the element midpoints, evaluated by the rank that evaluates the element.
    for (int i : dofs.local_force_elements())
      if (beam_of_element_[i] >= 0) local_beams_.push_back(beam_of_element_[i]);
    beam_midpoint_field_ = file_->define_field("/beams/midpoint", beam_elements, 3, local_beams_);
    beam_force_field_ = file_->define_field("/beams/force", beam_elements, 3, local_beams_);
    beam_moment_field_ = file_->define_field("/beams/moment", beam_elements, 3, local_beams_);
  }

  std::vector<std::string> body_names, body_types, joint_names, joint_types, multiplier_names;
  for (const auto& body : model.bodies()) {
    body_names.push_back(body.name);
    body_types.push_back(model::to_string(body.kind));
  }
  for (int i : joints_) {
    joint_names.push_back(model.constraints()[i]->name());
    joint_types.push_back(model.constraints()[i]->type());
  }
  for (const auto& constraint : model.constraints())
    for (int k = 0; k < constraint->equation_count(); ++k)
      multiplier_names.push_back(constraint->name() + "[" + std::to_string(k) + "]");
  file_->write_strings("/model/body_names", body_names);
  file_->write_strings("/model/body_types", body_types);
  if (!joint_names.empty()) {  // HDF5 cannot write an empty list of strings
    file_->write_strings("/model/joint_names", joint_names);
    file_->write_strings("/model/joint_types", joint_types);
  }
  file_->write_strings("/model/coordinate_names", coordinate_names(model));
  if (!multiplier_names.empty()) file_->write_strings("/model/multiplier_names", multiplier_names);
  file_->write_attribute("/", "program", "flexadj");
  file_->write_attribute("/", "model_file", model.source_file);
  file_->write_attribute("/", "title", model.title);
  file_->write_attribute("/", "dimension", double(model.dimension));
  file_->write_attribute("/", "step_size", run_.step_size);
  file_->write_attribute("/", "spectral_radius", run_.spectral_radius);
  file_->write_attribute("/", "output_every", double(every_));
  // Per step and rank the CRC-32 of the rank's q, v, a and lambda rows (state_reader.hpp checks them).
  const int ranks = assembler_.comm()->getSize();
  file_->write_attribute("/", "ranks", double(ranks));
  checksum_field_ = file_->define_field(state_datasets::kChecksums, ranks, 1, {assembler_.comm()->getRank()});

  const std::size_t coordinates = dofs.owned_coordinates().size(), owned_multipliers = dofs.owned_multipliers().size();
  const std::size_t body_values = 3 * dofs.owned_bodies().size(), joint_values = 3 * local_joints_.size();
  buffers_ = {{q_field_, coordinates, {}},        {v_field_, coordinates, {}},
              {a_field_, coordinates, {}},        {position_field_, body_values, {}},
              {axis_fields_[0], body_values, {}}, {axis_fields_[1], body_values, {}},
              {axis_fields_[2], body_values, {}}, {velocity_field_, body_values, {}}};
  if (multipliers) buffers_.push_back({lambda_field_, owned_multipliers, {}});
  buffers_.push_back({checksum_field_, 1, {}});
  if (joints > 0) {
    buffers_.push_back({joint_position_field_, joint_values, {}});
    buffers_.push_back({joint_force_field_, joint_values, {}});
  }
  const std::size_t beam_values = 3 * local_beams_.size();
  if (beam_elements > 0) {
    buffers_.push_back({beam_midpoint_field_, beam_values, {}});
    buffers_.push_back({beam_force_field_, beam_values, {}});
    buffers_.push_back({beam_moment_field_, beam_values, {}});
  }
  beam_data_.resize(3 * beam_values);
  // Blocks of up to 64 steps, at most about 8 MB of buffers per rank.
  std::size_t per_step = 0;
  for (const auto& buffer : buffers_) per_step += buffer.values_per_step;
  block_steps_ = std::max<long long>(1, std::min<long long>(64, (1LL << 20) / std::max<std::size_t>(per_step, 1)));
  for (auto& buffer : buffers_) buffer.data.reserve(buffer.values_per_step * block_steps_);
  pending_times_.reserve(block_steps_);
  body_data_.resize(5 * body_values);
  joint_data_.resize(2 * joint_values);
}

// An unfinished file is closed before its temporary is removed (RenamedOutput).
TrajectoryOutput::~TrajectoryOutput() { file_.reset(); }

std::string TrajectoryOutput::xdmf_path() const { return xdmf_path_of(path_); }

void TrajectoryOutput::observe(long long step, double t, const assembly::State& state) {
  if (step % every_ != 0 && step != last_step_) return;
  const auto& model = assembler_.model();
  const auto& dofs = assembler_.dofs();
  if (pending_times_.empty()) first_pending_ = written_;
  ++written_;
  times_.push_back(t);
  pending_times_.push_back(t);

  // Bodies: centre of mass, frame axes, velocity.
  const auto& owned = dofs.owned_bodies();
  const std::size_t n = owned.size() * 3;
  double* position = body_data_.data();
  double* axes[3] = {position + n, position + 2 * n, position + 3 * n};
  double* velocity = position + 4 * n;
  const int first_offset = owned.empty() ? 0 : model.body_offset(owned.front());
  for (std::size_t i = 0; i < owned.size(); ++i) {
    const auto kind = model.body(owned[i]).kind;
    const double* q = state.q.data() + (model.body_offset(owned[i]) - first_offset);
    const double* v = state.v.data() + (model.body_offset(owned[i]) - first_offset);
    const model::Vec3<double> origin{0.0, 0.0, 0.0};
    const auto x = model::point_position(kind, q, origin);
    const auto u = model::point_velocity(kind, q, v, origin);
    const auto R = model::section_frame(kind, q);
    for (int c = 0; c < 3; ++c) {
      position[3 * i + c] = x[c];
      velocity[3 * i + c] = u[c];
      for (int axis = 0; axis < 3; ++axis) axes[axis][3 * i + c] = R[3 * c + axis];
    }
  }

  // Joints: point on the first body and constraint force on the translation of the first moving body.
  const std::size_t m = local_joints_.size() * 3;
  std::fill(joint_data_.begin(), joint_data_.end(), 0.0);
  std::size_t j = 0;
  assembler_.visit_local_constraints(state, t, [&](int index, const double* q, const double* lambda, const double* Cq) {
    if (joint_of_constraint_[index] < 0) return;
    const auto& constraint = *model.constraints()[index];
    const int point = joint_point_parameter_[joint_of_constraint_[index]];
    const auto& p = constraint.parameters();
    const model::Vec3<double> s = point >= 0 ? model::Vec3<double>{p[point], p[point + 1], p[point + 2]}
                                             : model::Vec3<double>{0.0, 0.0, 0.0};
    const auto x = model::point_position(constraint.kinds()[0], q, s);
    int slot = 0;
    while (constraint.kinds()[slot] == model::BodyKind::Ground) ++slot;
    const int offset = constraint.local_offset(slot), coordinates = constraint.coordinate_count();
    for (int c = 0; c < 3; ++c) {
      joint_data_[3 * j + c] = x[c];
      if (c >= model::translation_count(constraint.kinds()[slot])) continue;
      double force = 0.0;
      for (int e = 0; e < constraint.equation_count(); ++e) force -= Cq[e * coordinates + offset + c] * lambda[e];
      joint_data_[m + 3 * j + c] = force;
    }
    ++j;
  });

  // Beams: midpoint, normal and shear forces (N, Q2, Q3), torsion and bending moments (T, M2, M3) in the section
  // frame at the midpoint.
  const std::size_t b = 3 * local_beams_.size();
  if (!beam_connectivity_.empty()) {
    std::size_t k = 0;
    std::array<double, kBeamResultants> values;
    assembler_.visit_local_force_elements(state, [&](int index, const double* q, const double* v) {
      if (beam_of_element_[index] < 0) return;
      const auto& element = *model.force_elements()[index];
      element.resultants(q, v, values.data());
      element.section_point(q, beam_data_.data() + 3 * k);
      for (int c = 0; c < 3; ++c) {
        beam_data_[b + 3 * k + c] = values[c];
        beam_data_[2 * b + 3 * k + c] = values[3 + c];
      }
      ++k;
    });
  }

  // In the order of buffers_ (multiplier, joint and beam fields only when the model has them).
  const double* sources[15] = {state.q.data(), state.v.data(), state.a.data(), position, axes[0], axes[1], axes[2],
                               velocity};
  std::size_t count = 8;
  if (lambda_field_ >= 0) sources[count++] = state.lambda.data();
  const double crc = state_checksum(state);
  sources[count++] = &crc;
  if (!joints_.empty()) {
    sources[count++] = joint_data_.data();
    sources[count++] = joint_data_.data() + m;
  }
  if (!beam_connectivity_.empty())
    for (int k = 0; k < 3; ++k) sources[count++] = beam_data_.data() + k * b;
  for (std::size_t k = 0; k < buffers_.size(); ++k)
    buffers_[k].data.insert(buffers_[k].data.end(), sources[k], sources[k] + buffers_[k].values_per_step);
  if (static_cast<long long>(pending_times_.size()) >= block_steps_) flush();
}

void TrajectoryOutput::flush() {
  if (pending_times_.empty()) return;
  const long long count = static_cast<long long>(pending_times_.size());
  file_->write_times(first_pending_, pending_times_);
  for (auto& buffer : buffers_) {
    file_->write_steps(buffer.field, first_pending_, count, buffer.data.data());
    buffer.data.clear();
  }
  pending_times_.clear();
}

// The XDMF files refer to the HDF5 file by its final name; it is renamed last, when all are complete.
void TrajectoryOutput::finish() {
  if (!file_) return;
  flush();
  file_->close();
  file_.reset();
  if (xdmf_) write_xdmf();
  renamed_->commit();
}

void TrajectoryOutput::write_xdmf() const {
  const auto& model = assembler_.model();
  XdmfWriter xdmf(raw_mpi_comm(*assembler_.comm()));
  xdmf.add_point_set("bodies", "/bodies/position", static_cast<long long>(model.bodies().size()));
  xdmf.add_attribute("bodies", "velocity", "/bodies/velocity", 3);
  xdmf.add_attribute("bodies", "axis_x", "/bodies/axis_x", 3);
  xdmf.add_attribute("bodies", "axis_y", "/bodies/axis_y", 3);
  xdmf.add_attribute("bodies", "axis_z", "/bodies/axis_z", 3);
  if (!joints_.empty()) {
    xdmf.add_point_set("joints", "/joints/position", static_cast<long long>(joints_.size()));
    xdmf.add_attribute("joints", "force", "/joints/force", 3);
  }
  if (!beam_connectivity_.empty()) {
    // Beams as polylines through the nodes, with the section frames (axis_x along the beam).
    xdmf.add_point_set("beams", "/bodies/position", static_cast<long long>(model.bodies().size()));
    xdmf.set_polyline_connectivity("beams", "/beams/connectivity", static_cast<long long>(beam_connectivity_.size() / 2));
    for (const char* axis : {"axis_x", "axis_y", "axis_z"})
      xdmf.add_attribute("beams", axis, std::string("/bodies/") + axis, 3);
    xdmf.add_attribute("beams", "velocity", "/bodies/velocity", 3);
    // The section resultants of each element, on its segment of the line and at its midpoint.
    xdmf.add_cell_attribute("beams", "force", "/beams/force", 3);
    xdmf.add_cell_attribute("beams", "moment", "/beams/moment", 3);
    xdmf.add_point_set("beam_sections", "/beams/midpoint", static_cast<long long>(beam_connectivity_.size() / 2));
    xdmf.add_attribute("beam_sections", "force", "/beams/force", 3);
    xdmf.add_attribute("beam_sections", "moment", "/beams/moment", 3);
  }
  xdmf.write(xdmf_path(), path_, times_);
}

}  // namespace flexadj::results
