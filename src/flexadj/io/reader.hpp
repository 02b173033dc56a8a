#pragma once
// The reader of a model file (internal to io/): one Reader per file, its sections read by the member functions
// defined in read_settings.cpp, read_controls.cpp, read_bodies.cpp, read_beams.cpp, read_components.cpp,
// read_forces.cpp, read_joints.cpp and read_problem.cpp; the entry points are in problem_reader.cpp.
#include "flexadj/io/reader_value.hpp"

namespace flexadj::io::reader {

class Reader {
 public:
  Reader(const Context& context, problem::Problem& problem)
      : context_(context), problem_(problem), model_(*problem.model) {}
  void read(const Value& root);

 private:
  // ---- run settings
  void read_static(const Value& v);

  // ---- beams (geometrically exact elements)
  const Keys kSectionKeys = {"name", "E", "G", "nu", "rho", "A", "I", "I2", "I3", "J", "shear_factor",
                             "shear_viscosity", "bulk_viscosity", "rotary_inertia"};
  elements::BeamSectionData read_section(const Value& v) const;

  void read_sections(const Value& list);

  void read_beams(const Value& list);

  void read_beam(const Value& v);

  // A text file of points, one "x y z" (or "x, y, z") per line; '#' starts a comment.
  std::vector<Point> read_points_file(const Value& v) const;

  static Point section_axis(const Value& v, const Point& fallback);

  // ---- ANCF beams: planar (dimension 2), cable and full (dimension 3)
  void read_ancf_beams(const Value& list);

  void read_ancf_beam(const Value& v);

  void read_integrator(const Value& v);

  void read_output(const Value& v);

  void read_trajectory(const Value& v);

  // ---- controls
  void read_controls(const Value& list);

  void read_control(const Value& v);

  std::shared_ptr<functions::ControlSignal> make_signal(const Value& v, const std::string& name,
                                                        std::vector<double> t, std::vector<double> u,
                                                        functions::Interpolation kind);

  // A generator's count (Value::generated_count), also bounded with all the model's other generators: ten beams
  // of 10^7 elements each are as much too large as one of 10^8.
  int generated_count(const Value& v, int lo);

  // The one key of `keys` that is given in the map v.
  static std::string exactly_one_of(const Value& v, const Keys& keys);

  static std::vector<double> numbers_of_list(const Value& v);

  // A file named by `v`: relative paths resolve against the model file's folder, or against the working
  // directory when the value comes from a command-line override (--set key=file).
  fs::path resolve(const Value& v, const std::string& file) const;

  // ---- bodies
  BodyKind body_kind(const std::string& type) const;

  void read_bodies(const Value& list);

  void read_body(const Value& v);

  // Model::find_body is a linear search: a chain of 10^5 links needs the map.
  static constexpr int kUnknown = -2;
  int find_body(const std::string& name) const;

  int add_body(const Body& body);

  void check_body_name(const Value& at, const std::string& name) const;

  // Planar: Izz > 0. Spatial: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], symmetric positive definite, or {principal: [..]}.
  std::array<double, 6> read_inertia(const Value& v, BodyKind kind) const;

  // {euler_parameters: [e0, e1, e2, e3]} or {axis: [..], angle: rad}; identity if not given.
  static std::array<double, 4> read_euler_parameters(const Value& v);

  // de/dt = 1/2 E(e)^T w, w in global axes; Nikravesh 1988, eq. (6.104).
  static std::array<double, 4> euler_parameter_rates(const std::array<double, 4>& e, const Point& w);

  static Point unit_vector(const Value& v, int dimension);

  // ---- chain generator
  void read_chain(const Value& v);

  // Euler parameters of the smallest rotation taking the x axis onto the unit vector d.
  static std::array<double, 4> rotation_from_x_to(const Point& d);

  // ---- references to bodies and shared helpers for forces and joints
  std::string body_list() const;

  int body_ref(const Value& v, bool allow_ground) const;

  // bodies: [a, b], two different bodies, at most one of them ground.
  std::array<int, 2> body_pair(const Value& v) const;

  Point centre_of_mass(int body) const;

  // The global point of body `body` at t = 0 given in v, by default its centre of mass (ground: required).
  Point point_or_centre(const Value& v, int body) const;

  // points: [[on a], [on b]] global at t = 0; default: the centres of mass (required if one body is ground).
  std::array<Point, 2> point_pair(const Value& v, const std::array<int, 2>& ids) const;

  std::array<BodyKind, 2> kinds_of(const std::array<int, 2>& ids) const;

  // Force and joint names are unique; the default is "<type><index>".
  std::string component_name(const Value& v, const std::string& type, std::size_t index);

  void claim_component_name(const Value& at, const std::string& name);

  // Reads `type` and checks the map's keys against those of that type.
  static std::string typed_entry(const Value& v, const std::vector<std::pair<std::string, Keys>>& types);

  // ---- forces
  // Reads each entry of a list of components with read(entry, index); a component that refuses its bodies
  // (std::invalid_argument, model/component_ad.hpp) is an input error of its entry.
  template <class Read> void read_components(const Value& list, const char* expected, Read read) {
    const std::size_t n = list.list_size(expected);
    for (std::size_t i = 0; i < n; ++i) {
      const Value entry = list.item(i);
      try {
        read(entry, i);
      } catch (const std::invalid_argument& e) {
        entry.fail(e.what());
      }
    }
  }

  void read_forces(const Value& list);

  void read_force(const Value& v, std::size_t index);

  void read_spring_damper(const Value& v, const std::string& name);

  void read_rotational_spring_damper(const Value& v, const std::string& name);

  void read_angle_spring_damper(const Value& v, const std::string& name);

  void read_load(const Value& v, const std::string& name);

  // ---- joints
  void read_joints(const Value& list);

  void read_joint(const Value& v, std::size_t index);

  void read_lower_pair(const Value& v, const std::string& name, const std::string& type);

  void read_distance(const Value& v, const std::string& name);

  // A non-holonomic knife edge (planar models, generalized-alpha/HHT only).
  void read_knife_edge(const Value& v, const std::string& name);

  void read_winch(const Value& v, const std::string& name);

  void read_prescribed_motion(const Value& v, const std::string& name);

  void read_prescribed_coordinate(const Value& v, const std::string& name);

  // ---- gradient problems
  void read_objective(const Value& list);

  objectives::ObjectiveTerm read_objective_term(const Value& v) const;

  // The `constraints` section (read_constraints.cpp): final values, path values, control effort, final time.
  void read_constraints(const Value& list);
  objectives::ConstraintTerm read_constraint(const Value& v) const;

  // sensor: {body, point (global at t = 0; default the centre of mass), component: x | y | z} with quantity
  // position | velocity | angular_velocity | direction; for direction, `direction` (global at t = 0) instead
  // of `point`.
  void read_sensor(const Value& v, const Value& quantity, objectives::ObjectiveTerm& term) const;

  // The quantity x of a term or of the end condition: coordinate (relative_to, quantity) or sensor.
  void read_measured_quantity(const Value& v, objectives::ObjectiveTerm& term) const;
  void read_momentum_sensor(const Value& v, const Value& quantity, objectives::ObjectiveTerm& term) const;

  // integrator.end_condition (after the bodies and joints, whose coordinates it names).
  void read_end_condition(const Value& v);
  // integrator.step_control (within read_integrator(), after type, times and step_size).
  void read_step_control(const Value& v);
  // An implicit or free final time needs a model without explicit time dependence (checked last).
  void check_final_time_model(const Value& root) const;

  // "<body>.<coordinate>" -> global coordinate id.
  long long coordinate_ref(const Value& v) const;

  // Stored as names that problem::DesignSpace resolves: "spring.stiffness", "initial_velocity:mass.x", ...
  void read_design_variables(const Value& list);

  // ---- optimization (flexadj optimize); after design_variables, whose names the bounds refer to
  void read_optimization(const Value& v);
  void read_momentum_target_iteration(const Value& v);

  // A parameter name, {initial_position: <coordinate>}, {initial_velocity: <coordinate>} or {control: <name>}:
  // the value that names it (for messages) and the design-variable name.
  static std::pair<Value, std::string> design_variable(const Value& v);

  const Context& context_;
  problem::Problem& problem_;  // run settings, objective, design variables, optimisation
  model::Model& model_;        // the mechanical system: *problem_.model
  int dimension_ = 3;
  std::unordered_set<std::string> component_names_;
  std::unordered_map<std::string, int> body_index_;
  std::map<std::string, elements::BeamSectionData> sections_;
  std::map<std::string, int> beam_nodes_;  // beam name -> number of nodes
  long long generated_ = 0;                // items made by generators so far
};

}  // namespace flexadj::io::reader
