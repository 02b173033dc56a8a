#include "flexadj/gradient/gradient_files.hpp"

#include <Teuchos_CommHelpers.hpp>
#include <fstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"

namespace flexadj {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

GradientFiles::GradientFiles(const std::string& csv_path, const std::string& h5_path, const Comm& comm)
    : comm_(comm), csv_(csv_path, raw_mpi_comm(comm)), h5_(h5_path, raw_mpi_comm(comm)) {
  if (!csv_path.empty()) {  // rank 0 writes it
    int ok = comm.getRank() == 0 ? static_cast<bool>(std::ofstream(csv_.temporary())) : 0;
    Teuchos::broadcast(comm, 0, &ok);
    if (!ok) throw InputError(csv_path, "-o", "cannot write the CSV file (does its folder exist?)");
  }
  if (!h5_path.empty()) h5_file_ = std::make_unique<results::ResultsFile>(raw_mpi_comm(comm), h5_.temporary());
}

GradientFiles::~GradientFiles() = default;

void GradientFiles::write(const GradientProblem& problem, double objective, const std::vector<double>& gradient) {
  if (h5_file_) {
    write_hdf5(problem, objective, gradient);
    h5_.commit();
  }
  if (csv_.path().empty()) return;
  // Rank 0 writes; every rank learns whether it could and takes part in the rename.
  int written = 0;
  if (comm_.getRank() == 0) {
    try {
      write_csv(problem, gradient);
      written = 1;
    } catch (...) {
      Teuchos::broadcast(comm_, 0, &written);
      throw;
    }
  }
  Teuchos::broadcast(comm_, 0, &written);
  if (!written) throw OutputError(csv_.path() + ": writing the CSV file failed on rank 0");
  csv_.commit();
}

void GradientFiles::write_csv(const GradientProblem& problem, const std::vector<double>& gradient) {
  const std::vector<std::string> names = problem.design().names();
  const std::vector<double> values = problem.values();
  std::ofstream out(csv_.temporary());
  if (!out) throw InputError(csv_.path(), "-o", "cannot write the CSV file");
  out.precision(17);
  out << "name,value,gradient\n";
  for (std::size_t i = 0; i < names.size(); ++i) out << csv_field(names[i]) << ',' << values[i] << ',' << gradient[i] << '\n';
  out.close();  // a full disk shows only when the buffer is written
  if (!out) throw OutputError(csv_.path() + ": writing the CSV file failed (is the disk full?)");
}

// /objective, /design/{names,values,gradient}, /controls/<name>/{times,values,gradient} (collective).
void GradientFiles::write_hdf5(const GradientProblem& problem, double objective, const std::vector<double>& gradient) {
  const std::vector<double> values = problem.values();
  const auto n = static_cast<long long>(values.size());
  results::ResultsFile& file = *h5_file_;
  file.write_attribute("/", "model_file", problem.model().source_file);
  file.write_static("/objective", {objective}, {1});
  file.write_strings("/design/names", problem.design().names());
  file.write_static("/design/values", values, {n});
  file.write_static("/design/gradient", gradient, {n});
  for (const auto& e : problem.design().entries()) {
    if (e.kind != problem::DesignSpace::Kind::Control) continue;
    const std::string group = "/controls/" + e.control;
    const auto& times = problem.model().find_control(e.control)->times();
    const auto slice = [&](const std::vector<double>& x) {
      return std::vector<double>(x.begin() + e.offset, x.begin() + e.offset + e.size);
    };
    file.write_static(group + "/times", times, {static_cast<long long>(times.size())});
    file.write_static(group + "/values", slice(values), {e.size});
    file.write_static(group + "/gradient", slice(gradient), {e.size});
  }
  file.close();
}

}  // namespace flexadj
