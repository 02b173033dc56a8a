#include "flexadj/results/xdmf_writer.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "flexadj/core/error.hpp"

namespace flexadj::results {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string join(const std::vector<long long>& values) {
  std::string out;
  for (long long v : values) out += (out.empty() ? "" : " ") + std::to_string(v);
  return out;
}

// Step `step` of a [steps, points(, components)] double dataset. XDMF 2 (ParaView's XDMF Reader): a HyperSlab
// DataItem around the dataset. XDMF 3 (its Xdmf3ReaderS/T): the selection in the HDF DataItem itself,
// "file:dataset|start:stride:count:extent"; ParaView 5.11's Xdmf3 readers ask a HyperSlab for its number type
// before reading it, get none ("Skipping unrecognized array type [None]") and show no points.
void hyperslab(std::ostream& os, const std::string& indent, const std::string& file, const std::string& dataset,
               std::size_t steps, long long step, long long points, int components, XdmfFlavour flavour) {
  std::vector<long long> dims{(long long)steps, points}, start{step, 0}, stride{1, 1}, count{1, points};
  if (components > 1) {
    dims.push_back(components);
    start.push_back(0);
    stride.push_back(1);
    count.push_back(components);
  }
  if (flavour == XdmfFlavour::xdmf3) {
    os << indent << "<DataItem Dimensions=\"" << join(count)
       << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
       << escape(file) << ':' << escape(dataset) << '|' << join(start) << ':' << join(stride) << ':' << join(count)
       << ':' << join(dims) << "</DataItem>\n";
    return;
  }
  os << indent << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << join(count) << "\" Type=\"HyperSlab\">\n"
     << indent << "  <DataItem Dimensions=\"3 " << dims.size() << "\" NumberType=\"Int\" Format=\"XML\">"
     << join(start) << "  " << join(stride) << "  " << join(count) << "</DataItem>\n"
     << indent << "  <DataItem Dimensions=\"" << join(dims)
     << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << escape(file) << ':' << escape(dataset)
     << "</DataItem>\n"
     << indent << "</DataItem>\n";
}

// A DataItem (`format`: its type and format attributes, `content`: its data); for XDMF 2 inside a HyperSlab that
// selects all of it. Used for topologies: ParaView's XDMFReader (vtkXdmfHeavyData) tries to cache a grid whose
// topology's first DataItem holds text, and then needs text right inside the geometry's first DataItem too; ours
// is a HyperSlab (step k of the positions), so it reported "Cannot find DataItem element in geometry xml, no
// caching possible" for every grid. Without text there the reader skips the cache (useless here: the points move every step).
void whole(std::ostream& os, const std::string& indent, const std::vector<long long>& dims, const std::string& format,
           const std::string& content, XdmfFlavour flavour) {
  if (flavour == XdmfFlavour::xdmf3) {  // the Xdmf3 readers cache nothing and take no HyperSlab (hyperslab())
    os << indent << "<DataItem Dimensions=\"" << join(dims) << "\" " << format << ">" << content << "</DataItem>\n";
    return;
  }
  const std::vector<long long> start(dims.size(), 0), stride(dims.size(), 1);
  os << indent << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << join(dims) << "\" Type=\"HyperSlab\">\n"
     << indent << "  <DataItem Dimensions=\"3 " << dims.size() << "\" NumberType=\"Int\" Format=\"XML\">"
     << join(start) << "  " << join(stride) << "  " << join(dims) << "</DataItem>\n"
     << indent << "  <DataItem Dimensions=\"" << join(dims) << "\" " << format << ">" << content << "</DataItem>\n"
     << indent << "</DataItem>\n";
}

// Shortest text that reads back as the same double.
std::string exact(double v) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
}

std::string absolute(const std::string& path) { return !path.empty() && path[0] == '/' ? path : "/" + path; }

}  // namespace

XdmfWriter::XdmfWriter(MPI_Comm comm) : comm_(comm) {}

XdmfWriter::PointSet& XdmfWriter::find(const std::string& point_set) {
  for (auto& s : sets_)
    if (s.name == point_set) return s;
  throw std::invalid_argument("XDMF: no point set named '" + point_set + "'");
}

void XdmfWriter::add_point_set(const std::string& name, const std::string& position_dataset, long long points) {
  const bool valid_name = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                  "0123456789_-.") == std::string::npos;
  if (!valid_name) throw std::invalid_argument("XDMF: bad point set name '" + name + "'");
  if (points < 1) throw std::invalid_argument("XDMF: point set '" + name + "' needs at least one point");
  for (const auto& s : sets_)
    if (s.name == name) throw std::invalid_argument("XDMF: point set '" + name + "' defined twice");
  sets_.push_back({name, absolute(position_dataset), points, {}, {}, 0});
}

void XdmfWriter::add_attribute(const std::string& point_set, const std::string& attribute_name,
                               const std::string& dataset, int components) {
  if (components != 1 && components != 3 && components != 9)
    throw std::invalid_argument("XDMF: attribute '" + attribute_name + "' must have 1, 3 or 9 components");
  find(point_set).attributes.push_back({attribute_name, absolute(dataset), components, false});
}

void XdmfWriter::add_cell_attribute(const std::string& point_set, const std::string& attribute_name,
                                    const std::string& dataset, int components) {
  if (components != 1 && components != 3 && components != 9)
    throw std::invalid_argument("XDMF: attribute '" + attribute_name + "' must have 1, 3 or 9 components");
  PointSet& s = find(point_set);
  if (s.connectivity.empty())
    throw std::invalid_argument("XDMF: cell attribute '" + attribute_name + "' needs the polyline of '" + point_set + "'");
  s.attributes.push_back({attribute_name, absolute(dataset), components, true});
}

void XdmfWriter::set_polyline_connectivity(const std::string& point_set, const std::string& connectivity_dataset,
                                           long long segments) {
  if (segments < 1) throw std::invalid_argument("XDMF: polyline of '" + point_set + "' needs at least one segment");
  PointSet& s = find(point_set);
  s.connectivity = absolute(connectivity_dataset);
  s.segments = segments;
}

std::string XdmfWriter::xml(const std::string& h5_reference, const std::vector<double>& times,
                            XdmfFlavour flavour) const {
  std::ostringstream os;
  os << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
     << "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <Domain>\n";
  for (const auto& s : sets_) {
    if (times.empty()) break;
    os << "    <Grid Name=\"" << s.name << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (std::size_t k = 0; k < times.size(); ++k) {
      const std::string in = "        ";
      os << "      <Grid Name=\"" << s.name << "\" GridType=\"Uniform\">\n"
         << in << "<Time Value=\"" << exact(times[k]) << "\"/>\n";
      // The topology is written once, in the first step; later steps include it by XPointer.
      if (k > 0) {
        os << in << "<xi:include xpointer=\"xpointer(/Xdmf/Domain/Grid[@Name='" << s.name
           << "']/Grid[1]/Topology)\"/>\n";
      } else if (s.connectivity.empty()) {
        // Explicit vertex list: Xdmf3 builds cells only from connectivity values.
        os << in << "<Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << s.points
           << "\" NodesPerElement=\"1\">\n";
        std::ostringstream vertices;
        for (long long i = 0; i < s.points; ++i) vertices << (i ? " " : "") << i;
        whole(os, in + "  ", {s.points}, "NumberType=\"Int\" Format=\"XML\"", vertices.str(), flavour);
        os << in << "</Topology>\n";
      } else {
        os << in << "<Topology TopologyType=\"Polyline\" NumberOfElements=\"" << s.segments
           << "\" NodesPerElement=\"2\">\n";
        whole(os, in + "  ", {s.segments, 2}, "NumberType=\"Int\" Precision=\"8\" Format=\"HDF\"",
              escape(h5_reference) + ':' + escape(s.connectivity), flavour);
        os << in << "</Topology>\n";
      }
      os << in << "<Geometry GeometryType=\"XYZ\">\n";
      hyperslab(os, in + "  ", h5_reference, s.positions, times.size(), (long long)k, s.points, 3, flavour);
      os << in << "</Geometry>\n";
      for (const auto& a : s.attributes) {
        const char* type = a.components == 1 ? "Scalar" : a.components == 3 ? "Vector" : "Tensor";
        os << in << "<Attribute Name=\"" << escape(a.name) << "\" AttributeType=\"" << type << "\" Center=\""
           << (a.per_cell ? "Cell" : "Node") << "\">\n";
        hyperslab(os, in + "  ", h5_reference, a.dataset, times.size(), (long long)k,
                  a.per_cell ? s.segments : s.points, a.components, flavour);
        os << in << "</Attribute>\n";
      }
      os << "      </Grid>\n";
    }
    os << "    </Grid>\n";
  }
  os << "  </Domain>\n</Xdmf>\n";
  return os.str();
}

std::string XdmfWriter::legacy_path(const std::string& xmf_path) { return xmf_path + "2"; }

void XdmfWriter::write(const std::string& xmf_path, const std::string& h5_path, const std::vector<double>& times) const {
  namespace fs = std::filesystem;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::string error;
  if (rank == 0) {
    try {
      const fs::path xmf = fs::absolute(xmf_path), h5 = fs::absolute(h5_path).lexically_normal();
      std::string reference = h5.lexically_relative(xmf.parent_path().lexically_normal()).generic_string();
      if (reference.empty()) reference = h5.generic_string();
      for (const auto& [path, flavour] : {std::pair{xmf_path, XdmfFlavour::xdmf3},
                                          std::pair{legacy_path(xmf_path), XdmfFlavour::xdmf2}}) {
        const std::string temporary = path + ".tmp";
        {
          std::ofstream out(temporary, std::ios::trunc);
          out << xml(reference, times, flavour);
          out.close();
          if (!out) error = "cannot write the XDMF file";
        }
        std::error_code ec;
        if (error.empty()) fs::rename(temporary, path, ec);
        if (error.empty() && ec) error = "cannot write the XDMF file (" + ec.message() + ")";
        if (!error.empty()) {
          fs::remove(temporary, ec);
          break;
        }
      }
    } catch (const std::exception& e) {
      error = std::string("cannot write the XDMF file (") + e.what() + ")";
    }
  }
  // Every rank learns the outcome, so that all throw or none does.
  int length = int(error.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm_);
  error.resize(std::size_t(length));
  if (length > 0) MPI_Bcast(error.data(), length, MPI_CHAR, 0, comm_);
  if (!error.empty()) throw InputError(xmf_path, "", error);
}

}  // namespace flexadj::results
