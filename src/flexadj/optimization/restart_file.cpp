#include "flexadj/optimization/restart_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/core/run_identity.hpp"

namespace flexadj::optimization {
namespace {

namespace fs = std::filesystem;

void put(std::ostream& out, double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", x);
  out << ' ' << text;
}

void put(std::ostream& out, const std::vector<double>& x) {
  out << ' ' << x.size();
  for (double xi : x) put(out, xi);
}

void put(std::ostream& out, const RecordedEvaluation& e) {
  out << "x";
  put(out, e.x);
  out << "\nJ";
  put(out, e.objective);
  out << "\ngradient";
  put(out, e.gradient);
  out << '\n';
}

std::string side_file(const std::string& path) { return path + ".evaluations"; }

// Reads the numbers and vectors of a restart file or its side file; fail() throws InputError naming the file.
class Parser {
 public:
  Parser(std::istream& in, std::string path) : in_(in), path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, "--restart", what); }
  double number() {
    in_ >> text_;
    char* end = nullptr;
    const double x = std::strtod(text_.c_str(), &end);
    if (!in_ || *end != '\0') fail("damaged restart file (expected a number, got '" + text_ + "')");
    return x;
  }
  std::vector<double> vector(const std::string& key) {
    expect(key);
    std::size_t n = 0;
    in_ >> n;
    if (!in_ || n > 100000000) fail("damaged restart file (a vector's length)");
    std::vector<double> x(n);
    for (double& xi : x) xi = number();
    return x;
  }
  // Design values must be numbers: an inf or nan would reach the model as a parameter.
  void require_finite(const std::vector<double>& x, const std::string& key) const {
    for (std::size_t k = 0; k < x.size(); ++k)
      if (!std::isfinite(x[k]))
        fail("damaged restart file (" + key + "[" + std::to_string(k) + "] is " + (std::isnan(x[k]) ? "nan" : "inf") +
             ", expected a finite design value)");
  }
  void expect(const std::string& key) {
    in_ >> word_;
    if (word_ != key) fail("damaged restart file (expected '" + key + "')");
  }
  RecordedEvaluation evaluation() {
    RecordedEvaluation e;
    e.x = vector("x");
    require_finite(e.x, "x of an evaluation");
    expect("J");
    e.objective = number();
    e.gradient = vector("gradient");
    return e;
  }

 private:
  std::istream& in_;
  std::string path_, text_, word_;
};

}  // namespace

RestartWriter::RestartWriter(std::string path, std::string method, std::string run)
    : path_(std::move(path)), method_(std::move(method)), run_(std::move(run)) {}

void RestartWriter::write(const RestartState& s) {
  // The evaluations first: the main file that names them is renamed into place only after they are written.
  // A rewrite goes to a temporary and is renamed into place: truncating the side file in place would leave, to a
  // kill in between, a main file naming evaluations that are gone (the next --restart refused as damaged).
  if (!started_ || s.evaluations.size() < written_) {
    evaluations_.close();
    const std::string side = side_file(path_), side_temporary = side + ".tmp";
    {
      std::ofstream out(side_temporary, std::ios::trunc);
      out << "flexadj-optimize-evaluations 1\nrun " << run_ << '\n';
      for (const auto& e : s.evaluations) put(out, e);
      if (!out) throw InputError(side, "", "writing the restart file's evaluations failed");
    }
    fs::rename(side_temporary, side);
    written_ = s.evaluations.size();
    evaluations_.open(side, std::ios::app);
    started_ = true;
  }
  for (; written_ < s.evaluations.size(); ++written_) put(evaluations_, s.evaluations[written_]);
  evaluations_.flush();
  if (!evaluations_) throw InputError(side_file(path_), "", "writing the restart file's evaluations failed");

  const std::string temporary = path_ + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError(path_, "", "cannot write the restart file");
    out << "flexadj-optimize-restart 4\nrun " << run_ << "\nmethod " << method_ << "\niteration " << s.iteration
        << "\nscalars";
    put(out, s.initial_gradient_norm);
    put(out, s.previous_objective);
    put(out, s.objective_before);
    put(out, s.previous_step_length);
    out << "\nx";
    put(out, s.x);
    out << "\nprevious_x";
    put(out, s.previous_x);
    out << "\nprevious_gradient";
    put(out, s.previous_gradient);
    out << "\nbest " << s.best_iteration;
    put(out, s.best_objective);
    out << "\nbest_x";
    put(out, s.best_x);
    out << "\nhistory " << s.history.size() << '\n';
    for (const auto& h : s.history) {
      out << h.iteration << ' ' << h.forward_runs << ' ' << h.adjoint_runs;
      put(out, h.objective);
      put(out, h.gradient_norm);
      put(out, h.step);
      put(out, h.seconds);
      out << '\n';
    }
    out << "evaluations " << s.evaluations.size() << '\n';
    if (!out) throw InputError(path_, "", "writing the restart file failed");
  }
  fs::rename(temporary, path_);  // an interruption leaves the previous complete file
}

RestartState read_restart(const std::string& path, const std::string& method, const std::string& run,
                                        int size) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "--restart", "cannot open the restart file (run without --restart first)");
  Parser parse(in, path);
  std::string word;
  int version = 0;
  RestartState s;
  in >> word >> version;
  // Version 2 adds the evaluations of ROL's methods (RestartState), version 3 moves them to the side
  // file; version 1 files have none. Version 4 adds the best iterate.
  if (word != "flexadj-optimize-restart" || version < 1 || version > 4)
    parse.fail("not a flexadj optimize restart file");
  if (version >= 2) {  // the run it belongs to: a restart must compute the same J as the run it continues
    in >> word >> std::ws;
    std::string stored_run;
    std::getline(in, stored_run);
    if (word != "run") parse.fail("damaged restart file (expected 'run')");
    if (stored_run != run)
      parse.fail("the restart file belongs to another run: " + run_identity_difference(stored_run, run));
  }
  std::string stored_method;
  in >> word >> stored_method;
  if (stored_method != method)
    parse.fail("the restart file was written by method '" + stored_method + "', this run uses '" + method + "'");
  in >> word >> s.iteration;
  if (!in || s.iteration < 0)
    parse.fail("damaged restart file (expected an iteration >= 0, got " + std::to_string(s.iteration) + ")");
  in >> word;
  s.initial_gradient_norm = parse.number();
  s.previous_objective = parse.number();
  s.objective_before = parse.number();
  s.previous_step_length = parse.number();
  s.x = parse.vector("x");
  if (static_cast<int>(s.x.size()) != size)
    parse.fail("the restart file has " + std::to_string(s.x.size()) + " design values, the model " +
               std::to_string(size));
  parse.require_finite(s.x, "x");
  s.previous_x = parse.vector("previous_x");
  parse.require_finite(s.previous_x, "previous_x");
  s.previous_gradient = parse.vector("previous_gradient");
  if (version >= 4) {
    parse.expect("best");
    in >> s.best_iteration;
    s.best_objective = parse.number();
    s.best_x = parse.vector("best_x");
    parse.require_finite(s.best_x, "best_x");
    if (!in || (!s.best_x.empty() && static_cast<int>(s.best_x.size()) != size))
      parse.fail("damaged restart file (the best iterate)");
  }
  std::size_t rows = 0;
  in >> word >> rows;
  if (!in || rows > 100000000) parse.fail("damaged restart file (the history's length)");
  for (std::size_t r = 0; r < rows; ++r) {
    optimization::Iteration h;
    in >> h.iteration >> h.forward_runs >> h.adjoint_runs;
    h.objective = parse.number();
    h.gradient_norm = parse.number();
    h.step = parse.number();
    h.seconds = parse.number();
    s.history.push_back(h);
  }
  if (version >= 2) {
    std::size_t evaluations = 0;
    in >> word >> evaluations;
    if (word != "evaluations" || !in) parse.fail("damaged restart file (expected 'evaluations')");
    if (version == 2) {
      for (std::size_t k = 0; k < evaluations && in; ++k) s.evaluations.push_back(parse.evaluation());
    } else {
      std::ifstream side(side_file(path));
      if (!side) parse.fail("cannot open the restart file's evaluations, " + side_file(path));
      Parser side_parse(side, side_file(path));
      int side_version = 0;
      side >> word >> side_version;
      std::string stored_run;
      std::string key;
      side >> key >> std::ws;
      std::getline(side, stored_run);
      if (word != "flexadj-optimize-evaluations" || side_version != 1 || key != "run" || stored_run != run)
        side_parse.fail("not the evaluations of this restart file's run");
      for (std::size_t k = 0; k < evaluations; ++k) s.evaluations.push_back(side_parse.evaluation());
      if (!side) side_parse.fail("damaged restart file (fewer evaluations than the restart file names)");
    }
  }
  if (!in) parse.fail("damaged restart file");
  return s;
}

}  // namespace flexadj::optimization
