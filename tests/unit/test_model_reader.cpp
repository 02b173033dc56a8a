// Model-file reader: valid planar and spatial models, command-line overrides, the chain generator and every
// kind of input error (InputError naming the file, the key path and what was expected).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

namespace fs = std::filesystem;
using flexadj::InputError;
using flexadj::io::read_problem_file;
using flexadj::io::read_problem_string;
using flexadj::model::BodyKind;
using flexadj::model::Model;
using flexadj::problem::Problem;

const char* const kPlanar = R"yaml(
title: cart with pendulum
dimension: 2
gravity: [0, -9.81]
integrator:
  end_time: 2
  step_size: 1e-3
controls:
  - name: F
    times: [0, 1, 2]
    values: [0, 10, 0]
  - name: G
    interpolation: constant
    grid: {start: 0, end: 2, count: 5}
    value: 3
bodies:
  - name: cart
    type: point_mass
    mass: 2
    position: [0, 0]
    velocity: [1, 0]
  - name: pendulum
    type: rigid_body
    mass: 0.5
    inertia: 0.01
    position: [0, -0.5]
    orientation: 0.1
    angular_velocity: 2
forces:
  - name: spring
    type: spring_damper
    bodies: [ground, cart]
    points: [[-1, 0], [0, 0]]
    stiffness: 100
    damping: 1
  - type: load
    body: cart
    force: [0, "sin(t)"]
    control: {name: F, force_direction: [1, 0]}
  - type: rotational_spring_damper
    bodies: [pendulum, ground]
    damping: 0.1
joints:
  - name: rail
    type: prismatic
    bodies: [ground, cart]
    axis: [1, 0]
  - name: pivot
    type: revolute
    bodies: [cart, pendulum]
    point: [0, 0]
)yaml";

const char* const kSpatial = R"yaml(
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 1, step_size: 0.01, spectral_radius: 0.5, linear_solver: direct}
output: {path: out.h5, every: 10, xdmf: false}
bodies:
  - name: rotor
    type: rigid_body
    mass: 3
    inertia: [0.2, 0.3, 0.4, 0.01, 0, 0]
    position: [1, 2, 3]
    orientation: {axis: [0, 0, 2], angle: 0.5}
    angular_velocity: [0.1, -0.2, 3]
  - name: arm
    type: rigid_body
    mass: 1
    inertia: {principal: [0.1, 0.1, 0.02]}
    position: [1, 2, 2]
    orientation: {euler_parameters: [0.9999, 0, 0, 0]}
  - name: ball
    type: point_mass
    mass: 0.1
    position: [1, 2, 1]
joints:
  - {name: bearing, type: revolute, bodies: [ground, rotor], point: [1, 2, 3], axis: [0, 0, 1]}
  - {type: spherical, bodies: [rotor, arm], point: [1, 2, 2.5]}
  - {type: distance, bodies: [arm, ball]}
  - {type: prescribed_motion, body: ball, path: [free, "2 + 0.1*t", free]}
forces:
  - {type: rotational_spring_damper, bodies: [ground, rotor], axis: [0, 0, 1], damping: 0.01}
  - {type: load, body: arm, moment: [0, 0, "2*t"], frame: body}
)yaml";

const char* const kChain = R"yaml(
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 1, step_size: 0.01}
chain:
  count: 2
  type: rigid_body
  mass: 1
  inertia: {principal: [0.001, 0.1, 0.1]}
  length: 0.5
  anchor: [0, 0, 1]
)yaml";

Problem read(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return read_problem_string(yaml, "test.yaml", overrides);
}

// Replaces the one occurrence of `from` in `text`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Expects `action` to throw an InputError whose message contains every one of `parts`.
template <class Action>
void expect_input_error(Action action, const std::vector<std::string>& parts) {
  try {
    action();
    ADD_FAILURE() << "no InputError; expected one mentioning '" << parts.back() << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& part : parts) EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
  }
}

// Reading `yaml` fails with a message naming test.yaml, the key path and the expected text.
void expect_error(const std::string& yaml, const std::string& key, const std::string& expected,
                  const std::vector<std::string>& overrides = {}) {
  SCOPED_TRACE(key + ": " + expected);
  try {
    read(yaml, overrides);
    ADD_FAILURE() << "no InputError; expected '" << expected << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "test.yaml");
    EXPECT_EQ(e.key(), key) << what;
    EXPECT_NE(what.find("test.yaml: "), std::string::npos) << what;
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

// A scratch folder for file-based cases, removed at the end of the test.
class TempFolder {
 public:
  TempFolder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("flexadj_reader_" + std::to_string(::getpid()) + "_" + info->name());
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }

 private:
  fs::path path_;
};

const flexadj::model::Component* find_component(const Model& model, const std::string& name) {
  for (const auto& f : model.force_elements())
    if (f->name() == name) return f.get();
  for (const auto& c : model.constraints())
    if (c->name() == name) return c.get();
  return nullptr;
}

double parameter(const flexadj::model::Component& component, const std::string& name) {
  const auto& names = component.parameter_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return component.parameters()[i];
  ADD_FAILURE() << component.name() << " has no parameter " << name;
  return NAN;
}

int count_constraints(const Model& model, const std::string& type) {
  int n = 0;
  for (const auto& c : model.constraints()) n += type == c->type();
  return n;
}

// ---- valid models ------------------------------------------------------------------------------

TEST(ModelReader, PlanarModel) {
  const auto problem = read(kPlanar);
  EXPECT_EQ(problem.model->source_file, "test.yaml");
  EXPECT_EQ(problem.model->title, "cart with pendulum");
  EXPECT_EQ(problem.model->dimension, 2);
  EXPECT_DOUBLE_EQ(problem.model->gravity[1], -9.81);
  EXPECT_DOUBLE_EQ(problem.integrator.end_time, 2.0);
  EXPECT_DOUBLE_EQ(problem.integrator.step_size, 1e-3);
  EXPECT_DOUBLE_EQ(problem.integrator.spectral_radius, 0.9);  // default
  EXPECT_EQ(problem.integrator.linear_solver, "auto");
  EXPECT_EQ(problem.output.path, "");

  ASSERT_EQ(problem.model->bodies().size(), 2u);
  EXPECT_EQ(problem.model->body(0).kind, BodyKind::PointMass2D);
  EXPECT_EQ(problem.model->body(1).kind, BodyKind::PlanarRigid);
  EXPECT_DOUBLE_EQ(problem.model->body(1).inertia[2], 0.01);
  EXPECT_EQ(problem.model->coordinate_count(), 5);
  // prismatic ground-point mass: 1, planar revolute: 2
  EXPECT_EQ(problem.model->multiplier_count(), 3);
  EXPECT_EQ(problem.model->initial_coordinates(), (std::vector<double>{0, 0, 0, -0.5, 0.1}));
  EXPECT_EQ(problem.model->initial_velocities(), (std::vector<double>{1, 0, 0, 0, 2}));

  const auto* rail = dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "rail"));
  const auto* pivot = dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "pivot"));
  ASSERT_TRUE(rail && pivot);
  EXPECT_EQ(rail->equation_count(), 1);
  EXPECT_EQ(pivot->equation_count(), 2);
  // The pivot at the cart's centre: 0.5 above the pendulum's centre, in the pendulum's rotated frame.
  EXPECT_NEAR(parameter(*pivot, "point_b_x"), 0.5 * std::sin(0.1), 1e-12);
  EXPECT_NEAR(parameter(*pivot, "point_b_y"), 0.5 * std::cos(0.1), 1e-12);

  const auto* spring = find_component(*problem.model, "spring");
  ASSERT_TRUE(spring);
  EXPECT_DOUBLE_EQ(parameter(*spring, "stiffness"), 100.0);
  EXPECT_DOUBLE_EQ(parameter(*spring, "damping"), 1.0);
  EXPECT_DOUBLE_EQ(parameter(*spring, "free_length"), 1.0);  // default: the initial distance
  EXPECT_DOUBLE_EQ(parameter(*spring, "point_a_x"), -1.0);   // ground: global

  ASSERT_TRUE(find_component(*problem.model, "load1"));  // default name: <type><index>
  // Given as [pendulum, ground]: swapped to [ground, pendulum] with the rest angle of pendulum relative to ground.
  const auto* friction = find_component(*problem.model, "rotational_spring_damper2");
  ASSERT_TRUE(friction);
  EXPECT_EQ(friction->bodies()[0], flexadj::model::kGround);
  EXPECT_NEAR(parameter(*friction, "rest_angle"), 0.1, 1e-15);

  const auto F = problem.model->find_control("F");
  const auto G = problem.model->find_control("G");
  ASSERT_TRUE(F && G);
  EXPECT_DOUBLE_EQ(F->value(0.5), 5.0);
  EXPECT_DOUBLE_EQ(F->value(1.5), 5.0);
  EXPECT_EQ(G->size(), 5u);
  EXPECT_DOUBLE_EQ(G->times()[1], 0.5);
  EXPECT_DOUBLE_EQ(G->value(1.2), 3.0);
  EXPECT_EQ(G->interpolation(), flexadj::functions::Interpolation::PiecewiseConstant);
}

TEST(ModelReader, SpatialModel) {
  const auto problem = read(kSpatial);
  EXPECT_EQ(problem.model->dimension, 3);
  EXPECT_DOUBLE_EQ(problem.integrator.spectral_radius, 0.5);
  EXPECT_EQ(problem.integrator.linear_solver, "direct");
  EXPECT_EQ(problem.output.path, "out.h5");
  EXPECT_EQ(problem.output.every, 10);
  EXPECT_FALSE(problem.output.xdmf);

  ASSERT_EQ(problem.model->bodies().size(), 3u);
  EXPECT_EQ(problem.model->body(0).kind, BodyKind::SpatialRigid);
  EXPECT_EQ(problem.model->body(1).kind, BodyKind::SpatialRigid);
  EXPECT_EQ(problem.model->body(2).kind, BodyKind::PointMass3D);
  EXPECT_EQ(problem.model->coordinate_count(), 7 + 7 + 3);
  // 2 unit quaternions + revolute 5 + spherical 3 + distance 1 + prescribed y 1
  EXPECT_EQ(problem.model->multiplier_count(), 12);
  EXPECT_EQ(problem.model->body(0).inertia, (std::array<double, 6>{0.2, 0.3, 0.4, 0.01, 0, 0}));
  EXPECT_EQ(problem.model->body(1).inertia, (std::array<double, 6>{0.1, 0.1, 0.02, 0, 0, 0}));

  // Rotor: 0.5 rad about z (the axis is normalised).
  const auto& q = problem.model->body(0).initial_coordinates;
  const auto& v = problem.model->body(0).initial_velocities;
  ASSERT_EQ(q.size(), 7u);
  EXPECT_EQ(std::vector<double>(q.begin(), q.begin() + 3), (std::vector<double>{1, 2, 3}));
  EXPECT_NEAR(q[3], std::cos(0.25), 1e-15);
  EXPECT_NEAR(q[6], std::sin(0.25), 1e-15);
  // Euler-parameter rates of the global angular velocity: 2 G(e) de = R^T w, and e . de = 0.
  const flexadj::model::Vec3<double> w{0.1, -0.2, 3.0};
  const auto body_w = flexadj::model::body_angular_velocity(q.data() + 3, v.data() + 3);
  const auto expected = flexadj::model::multiply_transposed(flexadj::model::rotation_from_euler_parameters(q.data() + 3), w);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(body_w[i], expected[i], 1e-14);
  EXPECT_NEAR(q[3] * v[3] + q[4] * v[4] + q[5] * v[5] + q[6] * v[6], 0.0, 1e-15);

  // Arm: Euler parameters within 1e-3 of unit norm are normalised.
  EXPECT_DOUBLE_EQ(problem.model->body(1).initial_coordinates[3], 1.0);

  const auto* bearing = dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "bearing"));
  const auto* ball_joint =
      dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "spherical1"));
  const auto* rod = find_component(*problem.model, "distance2");
  const auto* path =
      dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "prescribed_motion3"));
  ASSERT_TRUE(bearing && ball_joint && rod && path);
  EXPECT_EQ(bearing->equation_count(), 5);
  EXPECT_EQ(ball_joint->equation_count(), 3);
  EXPECT_EQ(path->equation_count(), 1);
  EXPECT_TRUE(path->rheonomic());
  EXPECT_DOUBLE_EQ(parameter(*rod, "length"), 1.0);  // default: the initial distance of the centres of mass
  // Spherical joint point 0.5 below the rotor's centre, in the rotor's frame (rotated about z: unchanged z).
  EXPECT_NEAR(parameter(*ball_joint, "point_a_z"), -0.5, 1e-14);

  const auto* damper = find_component(*problem.model, "rotational_spring_damper0");
  ASSERT_TRUE(damper);
  EXPECT_DOUBLE_EQ(parameter(*damper, "axis_z"), 1.0);
  EXPECT_FALSE(problem.model->conservative());
}

const char* const kPlanarComponents = R"yaml(
dimension: 2
integrator: {end_time: 1, step_size: 0.01}
bodies:
  - {name: drum, type: rigid_body, mass: 1, inertia: 0.1, position: [0, 2], orientation: 0.3}
  - {name: load, type: point_mass, mass: 1, position: [0, 0]}
  - {name: rod, type: rigid_body, mass: 1, inertia: 0.1, position: [1, 0]}
forces:
  - {type: angle_spring_damper, bodies: [ground, rod], points: [[1, 1], [1, 0]], stiffness: 3}
joints:
  - {type: revolute, bodies: [ground, drum]}
  - {type: winch, bodies: [drum, load], drum: drum, radius: 0.2}
  - {type: prescribed_coordinate, body: drum, coordinate: 2, value: "0.3 + t"}
  - {type: fixed, bodies: [rod, ground]}
)yaml";

TEST(ModelReader, PlanarComponents) {
  const auto problem = read(kPlanarComponents);
  const auto* spring = find_component(*problem.model, "angle_spring_damper0");
  const auto* winch = find_component(*problem.model, "winch1");
  const auto* fixed = dynamic_cast<const flexadj::model::Constraint*>(find_component(*problem.model, "fixed3"));
  ASSERT_TRUE(spring && winch && fixed);
  EXPECT_NEAR(parameter(*spring, "rest_angle"), -M_PI / 2, 1e-15);  // default: the initial direction
  EXPECT_DOUBLE_EQ(parameter(*spring, "stiffness"), 3.0);
  EXPECT_DOUBLE_EQ(parameter(*winch, "initial_length"), 2.0);
  EXPECT_DOUBLE_EQ(parameter(*winch, "initial_drum_angle"), 0.3);
  EXPECT_EQ(winch->bodies(), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(fixed->bodies()[1], 2);  // swapped: b is never ground
  EXPECT_EQ(fixed->equation_count(), 3);
  // revolute 2 + winch 1 + prescribed coordinate 1 + fixed 3
  EXPECT_EQ(problem.model->multiplier_count(), 7);

  expect_error(replaced(kPlanarComponents, "coordinate: 2", "coordinate: 3"), "joints[2].coordinate",
               "expected an integer in [0, 2], got 3");
  expect_error(replaced(kPlanarComponents, "drum: drum", "drum: load"), "joints[1].drum",
               "expected a planar rigid body as drum");
  expect_error(replaced(kPlanarComponents, "radius: 0.2", "radius: -0.2"), "joints[1].radius",
               "expected a positive number, got -0.2");
  expect_error(replaced(kPlanarComponents, "{type: revolute, bodies: [ground, drum]}",
                        "{type: revolute, bodies: [ground, drum], axis: [0, 1]}"),
               "joints[0].axis", "'axis' is not used by a revolute joint in a planar model");
  // Read as a spatial model, the planar inertia is the first thing that does not fit.
  expect_error(replaced(kPlanarComponents, "dimension: 2", "dimension: 3"), "bodies[0].inertia",
               "expected a list of 6 numbers [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or {principal: [I1, I2, I3]}, got 0.1");
}

TEST(ModelReader, ControlFromCsvFileResolvesAgainstTheModelFolder) {
  TempFolder folder;
  folder.write("signal.csv", "t,F,torque\n0,0,1\n1,4,2\n2,0,3\n");
  const std::string yaml = replaced(kPlanar, "    times: [0, 1, 2]\n    values: [0, 10, 0]\n",
                                    "    file: signal.csv\n");
  const auto problem = read_problem_file(folder.write("model.yaml", yaml));
  EXPECT_DOUBLE_EQ(problem.model->find_control("F")->value(0.5), 2.0);  // column defaults to the control's name

  const std::string torque = replaced(yaml, "    file: signal.csv\n", "    file: signal.csv\n    column: torque\n");
  EXPECT_DOUBLE_EQ(read_problem_file(folder.write("model.yaml", torque)).model->find_control("F")->value(1.5), 2.5);

  const std::string missing_column = replaced(yaml, "    file: signal.csv\n", "    file: signal.csv\n    column: X\n");
  expect_input_error([&] { read_problem_file(folder.write("model.yaml", missing_column)); },
                     {"model.yaml: controls[0].file", "no column 'X'"});
}

// ---- overrides and the chain generator -----------------------------------------------------------

TEST(ModelReader, TrajectorySection) {
  EXPECT_EQ(read(kPlanar).trajectory.storage, "memory");  // default
  const auto problem = read(kPlanar, {"trajectory={storage: checkpoints, memory_limit: 4GB}"});
  EXPECT_EQ(problem.trajectory.storage, "checkpoints");
  EXPECT_DOUBLE_EQ(problem.trajectory.memory_limit, 4e9);
  EXPECT_DOUBLE_EQ(read(kPlanar, {"trajectory={storage: checkpoints, memory_limit: 2GiB}"}).trajectory.memory_limit,
                   2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(read(kPlanar, {"trajectory={storage: checkpoints, memory_limit: 1e6}"}).trajectory.memory_limit,
                   1e6);
  EXPECT_EQ(read(kPlanar, {"trajectory={storage: checkpoints, checkpoints: 7}"}).trajectory.checkpoints, 7u);
  EXPECT_EQ(read(kPlanar, {"trajectory={storage: hdf5, file: run.h5}"}).trajectory.file, "run.h5");
  expect_input_error([] { read(kPlanar, {"trajectory={storage: disk}"}); }, {"trajectory.storage", "disk"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, checkpoints: 0}"}); },
                     {"trajectory.checkpoints"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, memory_limit: 4XB}"}); },
                     {"trajectory.memory_limit", "expected a size such as 500MB"});
  expect_input_error([] { read(kPlanar, {"trajectory={checkpoints: 5}"}); },
                     {"trajectory.storage", "need storage: checkpoints"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: memory, file: x.h5}"}); },
                     {"trajectory.storage", "file needs storage: hdf5"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, slots: 5}"}); },
                     {"trajectory", "unknown key 'slots'"});
  const auto disk = read(kPlanar, {"trajectory={storage: checkpoints, disk_checkpoints: 12, folder: run.ckpt}"});
  EXPECT_EQ(disk.trajectory.disk_checkpoints, 12u);
  EXPECT_EQ(disk.trajectory.folder, "run.ckpt");
  EXPECT_EQ(read(kPlanar, {"trajectory={storage: checkpoints, ram_checkpoints: 9}"}).trajectory.checkpoints, 9u);
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, checkpoints: 3, ram_checkpoints: 3}"}); },
                     {"trajectory.ram_checkpoints", "not both"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, disk_checkpoints: 0}"}); },
                     {"trajectory.disk_checkpoints"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: checkpoints, folder: ''}"}); },
                     {"trajectory.folder", "expected a folder name"});
  expect_input_error([] { read(kPlanar, {"trajectory={storage: memory, disk_checkpoints: 3}"}); },
                     {"trajectory.storage", "need storage: checkpoints"});
}

TEST(ModelReader, Overrides) {
  const auto problem = read(kPlanar, {"integrator.step_size=1e-4", "integrator.spectral_radius=0.3", "bodies[1].mass=3",
                                      "gravity=[0, -1]", "forces[2].damping=0.5"});
  EXPECT_DOUBLE_EQ(problem.integrator.step_size, 1e-4);
  EXPECT_DOUBLE_EQ(problem.integrator.spectral_radius, 0.3);  // created: not in the file
  EXPECT_DOUBLE_EQ(problem.model->body(1).mass, 3.0);
  EXPECT_DOUBLE_EQ(problem.model->gravity[1], -1.0);
  EXPECT_DOUBLE_EQ(parameter(*find_component(*problem.model, "rotational_spring_damper2"), "damping"), 0.5);
  // An expression with '=' in it: only the first '=' separates the key.
  const auto with_expression = read(kPlanar, {"forces[1].force[0]=if(t<=1, 1, 0)"});
  EXPECT_EQ(with_expression.model->force_elements().size(), problem.model->force_elements().size());

  const auto chain = read(kChain, {"chain.count=5"});
  EXPECT_EQ(chain.model->bodies().size(), 5u);
}

TEST(ModelReader, OverrideErrorsNameTheOverride) {
  expect_input_error([] { read(kPlanar, {"integrator.stepsize=1e-4"}); },
                     {"test.yaml: integrator.stepsize", "unknown key 'stepsize'", "integrator.stepsize=1e-4"});
  expect_input_error([] { read(kPlanar, {"bodies[0].mass=-1"}); },
                     {"bodies[0].mass", "expected a positive number, got -1", "bodies[0].mass=-1"});
  expect_input_error([] { read(kPlanar, {"bodies[5].mass=1"}); }, {"bodies[5]", "only 2 entries", "bodies[5].mass=1"});
  expect_input_error([] { read(kPlanar, {"title.x=1"}); }, {"title", "cannot set 'x'", "title.x=1"});
  expect_input_error([] { read(kPlanar, {"gravity"}); }, {"invalid command-line override 'gravity'"});
  expect_input_error([] { read(kPlanar, {"bodies[x].mass=1"}); }, {"bodies[x].mass=1", "list index"});
  expect_input_error([] { read(kPlanar, {"dimension="}); }, {"dimension=", "no value"});
  expect_input_error([] { read(kPlanar, {"dimension=4"}); }, {"dimension", "expected an integer in [2, 3], got 4", "dimension=4"});
  // A new section made by an override: its missing keys are blamed on the override.
  expect_input_error([] { read(kPlanar, {"chain.count=5"}); }, {"chain", "missing required key 'type'", "chain.count=5"});
}

TEST(ModelReader, ChainGenerator) {
  {
    const auto problem = read(kChain, {"chain.count=4"});
    ASSERT_EQ(problem.model->bodies().size(), 4u);
    EXPECT_EQ(problem.model->body(3).name, "link4");
    EXPECT_EQ(problem.model->body(0).kind, BodyKind::SpatialRigid);
    EXPECT_EQ(count_constraints(*problem.model, "spherical"), 4);
    EXPECT_EQ(count_constraints(*problem.model, "unit_quaternion"), 4);
    EXPECT_EQ(problem.model->multiplier_count(), 4 * 3 + 4);
    // link k's centre at anchor + (k - 1/2) length direction
    EXPECT_DOUBLE_EQ(problem.model->body(1).initial_coordinates[0], 0.75);
    EXPECT_DOUBLE_EQ(problem.model->body(1).initial_coordinates[2], 1.0);
  }
  {
    // Hanging straight down: the links' body x axes point along the chain.
    const auto problem = read(kChain, {"chain.direction=[0, 0, -2]"});
    const auto& q = problem.model->body(0).initial_coordinates;
    EXPECT_NEAR(q[2], 0.75, 1e-15);
    const auto x = flexadj::model::multiply(flexadj::model::rotation_from_euler_parameters(q.data() + 3),
                                            flexadj::model::Vec3<double>{1.0, 0.0, 0.0});
    EXPECT_NEAR(x[0], 0.0, 1e-15);
    EXPECT_NEAR(x[2], -1.0, 1e-15);
  }
  {
    // A hanging planar chain of points joined by rods; links turned along the chain.
    const auto problem = read(R"yaml(
dimension: 2
integrator: {end_time: 1, step_size: 0.01}
bodies:
  - {name: tip, type: point_mass, mass: 1, position: [5, 5]}
chain: {count: 3, name: bead, type: point_mass, mass: 0.1, length: 0.2, direction: [0, -2], anchor: [1, 0]}
)yaml");
    ASSERT_EQ(problem.model->bodies().size(), 4u);
    EXPECT_EQ(problem.model->body(1).name, "bead1");
    EXPECT_EQ(problem.model->body(3).kind, BodyKind::PointMass2D);
    EXPECT_NEAR(problem.model->body(3).initial_coordinates[1], -0.6, 1e-15);
    EXPECT_EQ(count_constraints(*problem.model, "distance"), 3);
    EXPECT_EQ(problem.model->multiplier_count(), 3);
  }
  {
    const auto problem = read(R"yaml(
dimension: 2
integrator: {end_time: 1, step_size: 0.01}
chain: {count: 3, type: rigid_body, mass: 1, inertia: 0.01, length: 1, direction: [0, -1]}
)yaml");
    EXPECT_EQ(count_constraints(*problem.model, "revolute"), 3);
    EXPECT_EQ(problem.model->multiplier_count(), 6);
    EXPECT_NEAR(problem.model->body(0).initial_coordinates[2], -M_PI / 2, 1e-15);
  }
}

// ---- input errors ------------------------------------------------------------------------------

TEST(ModelReaderErrors, UnknownAndMissingKeys) {
  expect_error(replaced(kPlanar, "    stiffness: 100", "    stifness: 100"), "forces[0].stifness",
               "unknown key 'stifness' (expected one of: name, type, bodies, points, stiffness, damping, free_length)");
  expect_error(std::string(kPlanar) + "extra: 1\n", "extra", "unknown key 'extra'");
  expect_error(replaced(kPlanar, "  end_time: 2\n", ""), "integrator", "missing required key 'end_time'");
  expect_error(replaced(kPlanar, "dimension: 2\n", ""), "", "missing required key 'dimension'");
  expect_error(replaced(kPlanar, "    mass: 2\n", ""), "bodies[0]", "missing required key 'mass'");
  expect_error(replaced(kPlanar, "    mass: 2\n", "    mass: 2\n    mass: 3\n"), "bodies[0].mass", "duplicate key 'mass'");
  expect_error(replaced(kPlanar, "    axis: [1, 0]\n", ""), "joints[0]", "missing required key 'axis'");
  // The line of the offending key or value is given.
  expect_input_error([] { read(replaced(kPlanar, "    stiffness: 100", "    stifness: 100")); }, {"(line 34)"});
}

TEST(ModelReaderErrors, WrongTypes) {
  expect_error(replaced(kPlanar, "gravity: [0, -9.81]", "gravity: {x: 0}"), "gravity",
               "expected a list of 2 numbers, got a map");
  expect_error(replaced(kSpatial, "position: [1, 2, 3]", "position: {x: 1}"), "bodies[0].position",
               "expected a list of 3 numbers, got a map");
  expect_error(replaced(kPlanar, "    mass: 2\n", "    mass: heavy\n"), "bodies[0].mass",
               "expected a number, got 'heavy'");
  expect_error(replaced(kPlanar, "dimension: 2", "dimension: 4"), "dimension", "expected an integer in [2, 3], got 4");
  expect_error(replaced(kPlanar, "    type: point_mass", "    type: particle"), "bodies[0].type",
               "expected one of: point_mass, rigid_body; got 'particle'");
  expect_error(replaced(kPlanar, "    type: spring_damper", "    type: spring"), "forces[0].type",
               "expected one of: spring_damper, rotational_spring_damper, angle_spring_damper, load; got 'spring'");
  expect_error(replaced(kSpatial, "xdmf: false", "xdmf: maybe"), "output.xdmf", "expected true or false, got 'maybe'");
  expect_error(replaced(kSpatial, "every: 10", "every: 0.5"), "output.every", "expected an integer >= 1, got 0.5");
  expect_error("dimension: 2\nintegrator: {end_time: 1, step_size: 0.1}\nbodies: 3\n", "bodies",
               "expected a non-empty list of bodies, got 3");
  expect_error(replaced(kPlanar, "force: [0, \"sin(t)\"]", "force: [0, \"sin(t\"]"), "forces[1].force[1]",
               "sin(t");
  expect_error(replaced(kPlanar, "    inertia: 0.01\n", ""), "bodies[1]", "missing required key 'inertia'");
  expect_error(replaced(kPlanar, "    velocity: [1, 0]\n", "    velocity: [1, 0]\n    inertia: 1\n"),
               "bodies[0].inertia", "'inertia' is not allowed for a point mass");
}

TEST(ModelReaderErrors, Values) {
  expect_error(replaced(kPlanar, "    mass: 0.5", "    mass: -1"), "bodies[1].mass",
               "expected a positive number, got -1");
  expect_error(replaced(kPlanar, "  step_size: 1e-3", "  step_size: 0"), "integrator.step_size",
               "expected a positive number, got 0");
  expect_error(replaced(kPlanar, "  end_time: 2", "  end_time: 2\n  start_time: 2"), "integrator.end_time",
               "expected a number greater than start_time (2), got 2");
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "spectral_radius: 1.5"), "integrator.spectral_radius",
               "expected a number in [0, 1], got 1.5");
  expect_error(replaced(kSpatial, "linear_solver: direct", "linear_solver: lu"), "integrator.linear_solver",
               "expected one of: auto, direct, klu_gathered, iterative; got 'lu'");
  // The variational integrator has no numerical damping to set.
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "type: variational, spectral_radius: 0.5"),
               "integrator.spectral_radius", "not used by type variational");
  EXPECT_EQ(read(replaced(kSpatial, "spectral_radius: 0.5", "type: variational")).integrator.scheme, "variational");
  // Nor has the state-space integrator (explicit Runge-Kutta).
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "type: state_space, spectral_radius: 0.5"),
               "integrator.spectral_radius", "not used by type state_space");
  EXPECT_EQ(read(replaced(kSpatial, "spectral_radius: 0.5", "type: state_space")).integrator.scheme, "state_space");
  // The constrained Hamiltonian integrator (explicit; absolute or joint coordinates).
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian, spectral_radius: 0.5"),
               "integrator.spectral_radius", "not used by type hamiltonian");
  EXPECT_EQ(read(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian, coordinates: absolute")).integrator.scheme,
            "hamiltonian");
  EXPECT_FALSE(read(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian")).integrator.joint_coordinates);
  EXPECT_TRUE(read(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian, coordinates: joint"))
                  .integrator.joint_coordinates);
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian, coordinates: minimal"),
               "integrator.coordinates", "expected one of: absolute, joint, joint_midpoint; got 'minimal'");
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "type: hamiltonian, coordinates: joint_midpoint"),
               "integrator.coordinates", "is a discrete Lagrangian of type variational");
  expect_error(replaced(kSpatial, "spectral_radius: 0.5", "coordinates: absolute"), "integrator.coordinates",
               "only types hamiltonian and variational take coordinates");
  EXPECT_TRUE(read(replaced(kSpatial, "spectral_radius: 0.5", "type: variational, coordinates: joint"))
                  .integrator.joint_coordinates);
  EXPECT_FALSE(read(replaced(kSpatial, "spectral_radius: 0.5", "type: variational, coordinates: joint"))
                   .integrator.joint_midpoint);
  const auto midpoint = read(replaced(kSpatial, "spectral_radius: 0.5", "type: variational, coordinates: joint_midpoint"));
  EXPECT_TRUE(midpoint.integrator.joint_coordinates && midpoint.integrator.joint_midpoint);
  expect_error(replaced(kPlanar, "    damping: 1\n", "    damping: -1\n"), "forces[0].damping",
               "expected a number >= 0, got -1");
  expect_error(replaced(kPlanar, "    position: [0, 0]", "    position: [0, 0, 0]"), "bodies[0].position",
               "expected a list of 2 numbers, got a list of 3 entries");
  expect_error(replaced(kSpatial, "gravity: [0, 0, -9.81]", "gravity: [0, -9.81]"), "gravity",
               "expected a list of 3 numbers, got a list of 2 entries");
  expect_error(replaced(kSpatial, "euler_parameters: [0.9999, 0, 0, 0]", "euler_parameters: [1, 0.1, 0, 0]"),
               "bodies[1].orientation.euler_parameters", "expected Euler parameters of unit norm");
  expect_error(replaced(kSpatial, "axis: [0, 0, 2]", "axis: [0, 0, 0]"), "bodies[0].orientation.axis",
               "expected a non-zero direction");
}

TEST(ModelReaderErrors, Inertia) {
  const std::string message = "inertia tensor is not positive definite (singular or indefinite)";
  expect_error(replaced(kSpatial, "[0.2, 0.3, 0.4, 0.01, 0, 0]", "[1, 1, 0, 0, 0, 0]"), "bodies[0].inertia", message);
  expect_error(replaced(kSpatial, "[0.2, 0.3, 0.4, 0.01, 0, 0]", "[1, 1, 1, 2, 0, 0]"), "bodies[0].inertia", message);
  expect_error(replaced(kSpatial, "[0.2, 0.3, 0.4, 0.01, 0, 0]", "[1, 1, 1]"), "bodies[0].inertia",
               "expected a list of 6 numbers, got a list of 3 entries");
  expect_error(replaced(kSpatial, "principal: [0.1, 0.1, 0.02]", "principal: [0.1, 0, 0.02]"),
               "bodies[1].inertia.principal[1]", "expected a positive number, got 0");
  expect_error(replaced(kPlanar, "inertia: 0.01", "inertia: 0"), "bodies[1].inertia", "expected a positive number, got 0");
}

TEST(ModelReaderErrors, References) {
  expect_error(replaced(kPlanar, "bodies: [cart, pendulum]", "bodies: [cart, cartt]"), "joints[1].bodies[1]",
               "unknown body 'cartt' (bodies are: cart, pendulum)");
  expect_error(replaced(kPlanar, "    body: cart\n", "    body: kart\n"), "forces[1].body",
               "unknown body 'kart' (bodies are: cart, pendulum)");
  expect_error(replaced(kPlanar, "bodies: [cart, pendulum]", "bodies: [ground, ground]"), "joints[1].bodies",
               "both bodies are ground");
  expect_error(replaced(kPlanar, "bodies: [cart, pendulum]", "bodies: [cart, cart]"), "joints[1].bodies",
               "expected two different bodies");
  expect_error(replaced(kPlanar, "{name: F, force_direction", "{name: X, force_direction"), "forces[1].control.name",
               "unknown control 'X' (controls are: F, G)");
  expect_error(replaced(kPlanar, "bodies: [ground, cart]\n    points", "bodies: [ground, cart]\n    pts"),
               "forces[0].pts", "unknown key 'pts'");
  expect_error(replaced(kPlanar, "    points: [[-1, 0], [0, 0]]\n", ""), "forces[0]", "missing required key 'points'");
  expect_error(replaced(kPlanar, "bodies: [ground, cart]\n    axis", "bodies: [cart, pendulum]\n    axis"),
               "joints[0].bodies", "'cart' is a point mass");
  expect_error(replaced(kSpatial, "axis: [0, 0, 1], damping: 0.01", "axis: [0, 0, 1], stiffness: 2"),
               "forces[0].stiffness", "rotational stiffness is only available in planar models");
  expect_error(replaced(kSpatial, "body: ball, path: [free, \"2 + 0.1*t\", free]", "body: ball, path: [free, free, free]"),
               "joints[3].path", "expected at least one prescribed axis");
}

TEST(ModelReaderErrors, DuplicateNames) {
  expect_error(replaced(kPlanar, "  - name: pendulum", "  - name: cart"), "bodies[1].name", "duplicate body name 'cart'");
  expect_error(replaced(kPlanar, "  - name: pendulum", "  - name: ground"), "bodies[1].name", "'ground' is reserved");
  expect_error(replaced(kPlanar, "  - name: pivot", "  - name: spring"), "joints[1].name", "duplicate name 'spring'");
  expect_error(replaced(kPlanar, "  - name: G", "  - name: F"), "controls[1].name", "duplicate control name 'F'");
}

TEST(ModelReaderErrors, Controls) {
  expect_error(replaced(kPlanar, "    value: 3\n", ""), "controls[1]", "expected one of the keys: value, values");
  expect_error(replaced(kPlanar, "    value: 3\n", "    value: 3\n    times: [0, 1]\n"), "controls[1].grid",
               "'grid' cannot be combined with 'times'");
  expect_error(replaced(kPlanar, "times: [0, 1, 2]", "times: [0, 1, 1]"), "controls[0].times[2]",
               "expected times that increase strictly");
  expect_error(replaced(kPlanar, "values: [0, 10, 0]", "values: [0, 10]"), "controls[0].values",
               "expected a list of 3 numbers, got a list of 2 entries");
  expect_error(replaced(kPlanar, "interpolation: constant", "interpolation: cubic"), "controls[1].interpolation",
               "expected one of: linear, constant; got 'cubic'");
}

TEST(ModelReaderErrors, Files) {
  expect_input_error([] { read_problem_file("/nonexistent/flexadj/model.yaml"); },
                     {"/nonexistent/flexadj/model.yaml: ", "the file cannot be opened"});
  TempFolder folder;
  const std::string path = folder.write("broken.yaml", "dimension: 2\nintegrator:\n  end_time: [1, 2\n  step_size: 1\n");
  try {
    read_problem_file(path);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(what.find("YAML syntax error at line "), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
  const std::string bad_mass = folder.write("mass.yaml", replaced(kPlanar, "    mass: 0.5", "    mass: -1"));
  expect_input_error([&] { read_problem_file(bad_mass); },
                     {bad_mass + ": bodies[1].mass: expected a positive number, got -1 (line 24)"});
  expect_input_error([] { read(""); }, {"test.yaml", "the model is empty"});
  expect_input_error([] { read("- 1\n- 2\n"); }, {"test.yaml", "expected a map of model settings"});
}

}  // namespace

namespace flexadj::io {
namespace {
TEST(ModelReader, IntegratorSchemes) {
  EXPECT_EQ(read(kPlanar).integrator.scheme, "generalized_alpha");
  const auto hht = read(kPlanar, {"integrator.type=hht", "integrator.spectral_radius=0.6"});
  EXPECT_EQ(hht.integrator.scheme, "hht");
  EXPECT_DOUBLE_EQ(hht.integrator.spectral_radius, 0.6);
  // HHT covers spectral radii in [1/2, 1] only.
  expect_error(kPlanar, "integrator.spectral_radius", "0.3", {"integrator.type=hht", "integrator.spectral_radius=0.3"});
  expect_error(kPlanar, "integrator.type", "newmark", {"integrator.type=newmark"});
}
}  // namespace
}  // namespace flexadj::io

namespace flexadj::io {
namespace {
// Gradient problems: the objective's terms on named coordinates and the design-variable names.
TEST(ModelReader, ObjectiveAndDesignVariables) {
  const std::string kProblem = std::string(kPlanar) + R"yaml(
objective:
  - {type: final_value, coordinate: cart.x}
  - {type: final_square, coordinate: pendulum.theta, target: 5, weight: 2, quantity: velocity}
  - {type: tracking, coordinate: pendulum.y, reference: "-(4-3*t)"}
design_variables:
  - spring.stiffness
  - initial_velocity: cart.x
  - initial_position: pendulum.theta
  - control: G
)yaml";
  using Term = objectives::ObjectiveTerm;
  const auto problem = read(kProblem);
  ASSERT_EQ(problem.objective_terms.size(), 3u);
  const Term& final_value = problem.objective_terms[0];
  EXPECT_EQ(final_value.kind, Term::Kind::FinalValue);
  EXPECT_EQ(final_value.quantity, Term::Quantity::Position);
  EXPECT_EQ(final_value.coordinate, 0);  // cart (x, y), then pendulum (x, y, theta)
  EXPECT_EQ(final_value.weight, 1.0);
  const Term& final_square = problem.objective_terms[1];
  EXPECT_EQ(final_square.kind, Term::Kind::FinalSquare);
  EXPECT_EQ(final_square.quantity, Term::Quantity::Velocity);
  EXPECT_EQ(final_square.coordinate, 4);
  EXPECT_EQ(final_square.weight, 2.0);
  EXPECT_EQ(final_square.target, 5.0);
  const Term& tracking = problem.objective_terms[2];
  EXPECT_EQ(tracking.kind, Term::Kind::Tracking);
  EXPECT_EQ(tracking.coordinate, 3);
  EXPECT_DOUBLE_EQ(tracking.reference(2.0), 2.0);
  EXPECT_EQ(problem.design_variables, (std::vector<std::string>{"spring.stiffness", "initial_velocity:cart.x",
                                                                "initial_position:pendulum.theta", "control:G"}));
  // Plain simulations have neither; an override can add them.
  EXPECT_TRUE(read(kPlanar).objective_terms.empty());
  EXPECT_TRUE(read(kPlanar).design_variables.empty());
  const auto added = read(kPlanar, {"objective=[{type: final_value, coordinate: cart.y}]", "design_variables=[cart.mass]"});
  ASSERT_EQ(added.objective_terms.size(), 1u);
  EXPECT_EQ(added.objective_terms[0].coordinate, 1);
  EXPECT_EQ(added.design_variables, std::vector<std::string>{"cart.mass"});

  const std::string one_term = std::string(kPlanar) + "objective:\n  - {type: final_value, coordinate: cart.x}\n";
  const std::string one_variable = std::string(kPlanar) + "design_variables:\n  - spring.stiffness\n";
  expect_error(replaced(one_term, "final_value", "final_valu"), "objective[0].type",
               "expected one of: final_value, final_square, tracking, penalty, control_effort, final_time; got 'final_valu'");
  // Penalty and control effort.
  const auto more = read(std::string(kPlanar) + R"yaml(
objective:
  - {type: penalty, coordinate: cart.x, upper: 0.5, weight: 10}
  - {type: control_effort, control: G, weight: 0.1}
)yaml");
  ASSERT_EQ(more.objective_terms.size(), 2u);
  EXPECT_EQ(more.objective_terms[0].kind, Term::Kind::Penalty);
  EXPECT_EQ(more.objective_terms[0].upper, 0.5);
  EXPECT_EQ(more.objective_terms[0].lower, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(more.objective_terms[1].kind, Term::Kind::ControlEffort);
  EXPECT_EQ(more.objective_terms[1].control, "G");
  expect_error(replaced(one_term, "{type: final_value, coordinate: cart.x}", "{type: penalty, coordinate: cart.x}"),
               "objective[0]", "a penalty needs 'lower', 'upper' or both");
  expect_error(replaced(one_term, "{type: final_value, coordinate: cart.x}",
                        "{type: penalty, coordinate: cart.x, lower: 1, upper: 0}"),
               "objective[0].upper", "expected upper > lower");
  expect_error(replaced(one_term, "{type: final_value, coordinate: cart.x}", "{type: control_effort, control: H}"),
               "objective[0].control", "unknown control 'H'");
  expect_error(replaced(one_term, "cart.x}", "cart.theta}"), "objective[0].coordinate",
               "body 'cart' (point_mass (planar)) has no coordinate 'theta' (its coordinates are: x, y)");
  expect_error(replaced(one_term, "cart.x}", "carts.x}"), "objective[0].coordinate",
               "unknown body 'carts' in 'carts.x' (bodies are: cart, pendulum)");
  expect_error(replaced(one_term, "cart.x}", "cart}"), "objective[0].coordinate",
               "expected a coordinate '<body>.<coordinate>' such as 'cart.x', got 'cart'");
  expect_error(replaced(one_term, "cart.x}", "cart.x, target: 1}"), "objective[0].target", "unknown key 'target'");
  expect_error(replaced(one_term, "cart.x}", "cart.x, quantity: jerk}"), "objective[0].quantity",
               "expected one of: position, velocity, acceleration");
  expect_error(std::string(kPlanar) + "objective: []\n", "objective", "expected a non-empty list of objective terms");
  expect_error(replaced(one_variable, "spring.stiffness", "spring.stifness"), "design_variables[0]",
               "unknown parameter 'spring.stifness': component 'spring' has the parameters stiffness, damping");
  expect_error(replaced(one_variable, "spring.stiffness", "spring.stifness"), "design_variables[0]",
               "did you mean 'spring.stiffness'?");
  expect_error(replaced(one_variable, "spring.stiffness", "sprung.stiffness"), "design_variables[0]",
               "no component 'sprung' (components are: cart, pendulum, spring");
  expect_error(replaced(one_variable, "spring.stiffness", "stiffness"), "design_variables[0]",
               "expected '<component>.<parameter>'");
  expect_error(replaced(one_variable, "spring.stiffness", "{control: H}"), "design_variables[0].control",
               "unknown control 'H' (controls are: F, G)");
  expect_error(replaced(one_variable, "spring.stiffness", "{initial_velocity: cart.z}"),
               "design_variables[0].initial_velocity", "has no coordinate 'z' (its coordinates are: x, y)");
  expect_error(replaced(one_variable, "spring.stiffness", "{initial_velocity: cart.x, control: F}"),
               "design_variables[0].control", "'control' cannot be combined with 'initial_velocity'");
  expect_error(replaced(one_variable, "spring.stiffness", "{initial_speed: cart.x}"),
               "design_variables[0].initial_speed", "unknown key 'initial_speed'");
  expect_error(replaced(one_variable, "  - spring.stiffness\n", "  - spring.stiffness\n  - spring.stiffness\n"),
               "design_variables[1]", "duplicate design variable 'spring.stiffness'");
  expect_error(std::string(kPlanar) + "design_variables: []\n", "design_variables",
               "expected a non-empty list of design variables");
}
}  // namespace
}  // namespace flexadj::io
