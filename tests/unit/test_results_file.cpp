// ResultsFile / ResultsReader / XdmfWriter: collective writes from non-contiguous item sets (a rank may
// own nothing), exact read-back through the reader and the raw HDF5 C API, and an XDMF file whose every
// HDF5 reference resolves. Runs at np 1 and np 2.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/results/hdf5_results_file.hpp"
#include "flexadj/results/xdmf_writer.hpp"

namespace {

using flexadj::InputError;
using flexadj::results::ResultsFile;
using flexadj::results::ResultsReader;
using flexadj::results::XdmfWriter;

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
std::string file_name(const std::string& stem, const std::string& ext) {
  return stem + "_np" + std::to_string(size()) + ext;
}

// Every value encodes where it belongs; all are exact in double.
double value(long long step, long long item, int comp) { return 10000.0 * step + 10.0 * item + comp + 0.5; }

constexpr long long kItems = 7, kSteps = 5, kSegments = 6;
double time_of(long long step) { return 0.1 * step; }

// Item ownership: position interleaved over all ranks; energy interleaved over all but the last rank,
// which owns nothing (np > 1).
std::vector<long long> position_items() {
  std::vector<long long> items;
  for (long long i = 0; i < kItems; ++i)
    if (i % size() == rank()) items.push_back(i);
  return items;
}
std::vector<long long> energy_items() {
  if (size() == 1) return position_items();
  std::vector<long long> items;
  for (long long i = 0; i < kItems; ++i)
    if (rank() < size() - 1 && i % (size() - 1) == rank()) items.push_back(i);
  return items;
}
std::vector<double> rows(long long step, const std::vector<long long>& items, int comps) {
  std::vector<double> data;
  for (long long item : items)
    for (int c = 0; c < comps; ++c) data.push_back(value(step, item, c));
  return data;
}

// Raw HDF5 identifier closed on scope exit (test side).
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

bool h5_exists(hid_t file, const std::string& path) {
  for (std::size_t pos = path.find('/', 1);; pos = path.find('/', pos + 1)) {
    const std::string prefix = path.substr(0, pos);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0 || H5Oexists_by_name(file, prefix.c_str(), H5P_DEFAULT) <= 0)
      return false;
    if (pos == std::string::npos) return true;
    Id object{H5Oopen(file, prefix.c_str(), H5P_DEFAULT), H5Oclose};
    if (H5Iget_type(object.id) != H5I_GROUP) return false;
  }
}

std::vector<hsize_t> h5_dims(hid_t dataset, std::vector<hsize_t>* max_dims = nullptr) {
  Id space{H5Dget_space(dataset), H5Sclose};
  std::vector<hsize_t> dims(std::size_t(H5Sget_simple_extent_ndims(space.id)));
  if (max_dims) max_dims->resize(dims.size());
  H5Sget_simple_extent_dims(space.id, dims.data(), max_dims ? max_dims->data() : nullptr);
  return dims;
}

// --- a small well-formedness-checking XML parser (elements, attributes, text, comments, prolog) ---
struct XmlNode {
  std::string name, text;
  std::map<std::string, std::string> attributes;
  std::vector<XmlNode> children;
  std::string attr(const std::string& key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? std::string() : it->second;
  }
};

class XmlParser {
 public:
  explicit XmlParser(std::string text) : s_(std::move(text)) {}
  XmlNode parse() {
    skip_misc();
    XmlNode root = element();
    skip_misc();
    if (pos_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("malformed XML at offset " + std::to_string(pos_) + ": " + what);
  }
  bool starts(const char* p) const { return s_.compare(pos_, std::strlen(p), p) == 0; }
  void skip_past(const char* end) {
    const auto e = s_.find(end, pos_);
    if (e == std::string::npos) fail(std::string("missing ") + end);
    pos_ = e + std::strlen(end);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void skip_misc() {
    for (;;) {
      skip_space();
      if (starts("<?")) {
        skip_past("?>");
      } else if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("<!DOCTYPE")) {
        const auto bracket = s_.find('[', pos_), close = s_.find('>', pos_);
        if (bracket < close) skip_past("]");
        skip_past(">");
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t begin = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || std::strchr("_:-.", s_[pos_])))
      ++pos_;
    if (begin == pos_) fail("expected a name");
    return s_.substr(begin, pos_ - begin);
  }
  std::string decode(const std::string& raw) const {
    static const std::map<std::string, char> entities{
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '<') fail("'<' in text or attribute");
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const auto semicolon = raw.find(';', i);
      const auto it = semicolon == std::string::npos ? entities.end() : entities.find(raw.substr(i + 1, semicolon - i - 1));
      if (it == entities.end()) fail("unknown entity");
      out += it->second;
      i = semicolon;
    }
    return out;
  }
  XmlNode element() {
    if (!starts("<")) fail("expected '<'");
    ++pos_;
    XmlNode node;
    node.name = name();
    for (;;) {
      skip_space();
      if (starts("/>")) {
        pos_ += 2;
        return node;
      }
      if (starts(">")) {
        ++pos_;
        break;
      }
      const std::string key = name();
      skip_space();
      if (!starts("=")) fail("expected '='");
      ++pos_;
      skip_space();
      const char quote = pos_ < s_.size() ? s_[pos_] : '\0';
      if (quote != '"' && quote != '\'') fail("unquoted attribute value");
      const auto end = s_.find(quote, pos_ + 1);
      if (end == std::string::npos) fail("unterminated attribute value");
      if (!node.attributes.emplace(key, decode(s_.substr(pos_ + 1, end - pos_ - 1))).second)
        fail("duplicate attribute " + key);
      pos_ = end + 1;
    }
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated element " + node.name);
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("</")) {
        pos_ += 2;
        if (name() != node.name) fail("mismatched end tag for " + node.name);
        skip_space();
        if (!starts(">")) fail("expected '>'");
        ++pos_;
        return node;
      } else if (starts("<")) {
        node.children.push_back(element());
      } else {
        const auto end = std::min(s_.find('<', pos_), s_.size());
        node.text += decode(s_.substr(pos_, end - pos_));
        pos_ = end;
      }
    }
  }
  std::string s_;
  std::size_t pos_ = 0;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
std::vector<long long> numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<long long> out;
  for (long long v; in >> v;) out.push_back(v);
  return out;
}
const XmlNode* child(const XmlNode& node, const std::string& name) {
  for (const auto& c : node.children)
    if (c.name == name) return &c;
  return nullptr;
}
void collect(const XmlNode& node, const std::string& name, std::vector<const XmlNode*>& out) {
  if (node.name == name) out.push_back(&node);
  for (const auto& c : node.children) collect(c, name, out);
}

// Writes the reference file used by most tests.
void write_reference_file(const std::string& h5, const std::string& xmf) {
  ResultsFile file(MPI_COMM_WORLD, h5);
  EXPECT_EQ(file.path(), h5);
  const auto pos_items = position_items(), energy = energy_items();
  const int position = file.define_field("bodies/position", kItems, 3, pos_items);
  const int energy_field = file.define_field("/bodies/energy", kItems, 1, energy);
  file.write_attribute("/", "solver", "first value, replaced below");
  file.write_attribute("/", "solver", "flexadj test");
  file.write_attribute("/", "dt", 0.1);
  file.write_attribute("/model", "description", "group created by the attribute");
  file.write_attribute("/bodies/position", "units", "m");
  file.write_strings("/model/body_names", {"base", "arm", "", "a longer name, with <xml> & spaces", "e", "f", "g"});
  file.write_static("/model/masses", {1, 2, 3, 4, 5, 6}, {2, 3});
  std::vector<long long> connectivity;
  for (long long s = 0; s < kSegments; ++s) connectivity.insert(connectivity.end(), {s, s + 1});
  file.write_static_int64("/model/beam_connectivity", connectivity, {kSegments, 2});
  for (long long step = 0; step < kSteps; ++step) {
    file.write_time(step, time_of(step));
    file.write(position, step, rows(step, pos_items, 3).data());
    file.write(energy_field, step, energy.empty() ? nullptr : rows(step, energy, 1).data());
    if (step == 2) file.flush();
  }
  EXPECT_EQ(file.steps_written(), kSteps);
  file.close();
  EXPECT_FALSE(file.is_open());

  XdmfWriter xdmf(MPI_COMM_WORLD);
  xdmf.add_point_set("bodies", "/bodies/position", kItems);
  xdmf.add_attribute("bodies", "energy", "/bodies/energy", 1);
  xdmf.add_attribute("bodies", "velocity", "/bodies/position", 3);
  xdmf.add_point_set("beam", "/bodies/position", kItems);
  xdmf.set_polyline_connectivity("beam", "/model/beam_connectivity", kSegments);
  std::vector<double> times;
  for (long long step = 0; step < kSteps; ++step) times.push_back(time_of(step));
  xdmf.write(xmf, h5, times);
}

class ResultsFileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { write_reference_file(h5(), xmf()); }
  static std::string h5() { return file_name("test_results_file", ".h5"); }
  static std::string xmf() { return file_name("test_results_file", ".xmf"); }
};

TEST_F(ResultsFileTest, ReaderOnEveryRankReadsExactValues) {
  const ResultsReader reader = ResultsReader::open(h5());
  EXPECT_EQ(reader.path(), h5());
  EXPECT_EQ(reader.dims("/bodies/position"), (std::vector<long long>{kSteps, kItems, 3}));
  EXPECT_EQ(reader.dims("bodies/energy"), (std::vector<long long>{kSteps, kItems}));
  EXPECT_EQ(reader.steps(), kSteps);
  const auto times = reader.times();
  ASSERT_EQ(times.size(), std::size_t(kSteps));
  for (long long step = 0; step < kSteps; ++step) EXPECT_EQ(times[std::size_t(step)], time_of(step));

  const auto all_positions = reader.read_all("/bodies/position");
  const auto all_energy = reader.read_all("/bodies/energy");
  ASSERT_EQ(all_positions.size(), std::size_t(kSteps * kItems * 3));
  ASSERT_EQ(all_energy.size(), std::size_t(kSteps * kItems));
  for (long long s = 0; s < kSteps; ++s)
    for (long long i = 0; i < kItems; ++i) {
      EXPECT_EQ(all_energy[std::size_t(s * kItems + i)], value(s, i, 0)) << "step " << s << " item " << i;
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(all_positions[std::size_t((s * kItems + i) * 3 + c)], value(s, i, c))
            << "step " << s << " item " << i << " comp " << c;
    }

  // One step, items in arbitrary order with a repeat.
  const std::vector<long long> items{6, 0, 3, 3, 1};
  EXPECT_EQ(reader.read_step("/bodies/position", 4, items), rows(4, items, 3));
  EXPECT_EQ(reader.read_step("/bodies/energy", 2, items), rows(2, items, 1));
  EXPECT_TRUE(reader.read_step("/bodies/energy", 2, {}).empty());
  EXPECT_THROW(reader.read_step("/bodies/energy", kSteps, items), std::out_of_range);
  EXPECT_THROW(reader.read_step("/bodies/energy", 0, {kItems}), std::out_of_range);
  EXPECT_THROW(reader.read_all("/bodies/missing"), InputError);

  EXPECT_EQ(reader.read_string_attribute("/", "solver"), "flexadj test");
  EXPECT_EQ(reader.read_double_attribute("/", "dt"), 0.1);
  EXPECT_EQ(reader.read_string_attribute("/model", "description"), "group created by the attribute");
  EXPECT_EQ(reader.read_string_attribute("/bodies/position", "units"), "m");
  EXPECT_THROW(reader.read_double_attribute("/", "nope"), InputError);
  EXPECT_EQ(reader.read_strings("/model/body_names"),
            (std::vector<std::string>{"base", "arm", "", "a longer name, with <xml> & spaces", "e", "f", "g"}));
  EXPECT_EQ(reader.dims("/model/masses"), (std::vector<long long>{2, 3}));
  EXPECT_EQ(reader.read_all("/model/masses"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const auto connectivity = reader.read_all("/model/beam_connectivity");
  ASSERT_EQ(connectivity.size(), std::size_t(2 * kSegments));
  for (long long s = 0; s < kSegments; ++s) {
    EXPECT_EQ(connectivity[std::size_t(2 * s)], s);
    EXPECT_EQ(connectivity[std::size_t(2 * s + 1)], s + 1);
  }
  EXPECT_TRUE(reader.exists("/model"));
  EXPECT_TRUE(reader.exists("/bodies/energy"));
  EXPECT_FALSE(reader.exists("/bodies/energy/x"));
  EXPECT_FALSE(reader.exists("/nothing/here"));
}

TEST_F(ResultsFileTest, CollectiveReaderReadsOwnRows) {
  ResultsReader reader(h5(), MPI_COMM_WORLD);
  const auto pos_items = position_items(), energy = energy_items();
  for (long long step = 0; step < kSteps; ++step) {
    EXPECT_EQ(reader.read_step("/bodies/position", step, pos_items), rows(step, pos_items, 3));
    EXPECT_EQ(reader.read_step("/bodies/energy", step, energy), rows(step, energy, 1));
  }
  EXPECT_EQ(reader.read_all("/time").size(), std::size_t(kSteps));
}

TEST_F(ResultsFileTest, RawHdf5LayoutOnRankZero) {
  if (rank() != 0) return;
  Id file{H5Fopen(h5().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  {
    Id dataset{H5Dopen2(file.id, "/bodies/position", H5P_DEFAULT), H5Dclose};
    ASSERT_GE(dataset.id, 0);
    std::vector<hsize_t> max_dims;
    EXPECT_EQ(h5_dims(dataset.id, &max_dims), (std::vector<hsize_t>{kSteps, kItems, 3}));
    EXPECT_EQ(max_dims, (std::vector<hsize_t>{H5S_UNLIMITED, kItems, 3}));
    Id dcpl{H5Dget_create_plist(dataset.id), H5Pclose};
    ASSERT_EQ(H5Pget_layout(dcpl.id), H5D_CHUNKED);
    hsize_t chunk[3] = {};
    ASSERT_EQ(H5Pget_chunk(dcpl.id, 3, chunk), 3);
    EXPECT_EQ((std::vector<hsize_t>(chunk, chunk + 3)), (std::vector<hsize_t>{1, kItems, 3}));
    std::vector<double> data(kSteps * kItems * 3);
    ASSERT_GE(H5Dread(dataset.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
    for (long long s = 0; s < kSteps; ++s)
      for (long long i = 0; i < kItems; ++i)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(data[std::size_t((s * kItems + i) * 3 + c)], value(s, i, c));
  }
  {
    Id dataset{H5Dopen2(file.id, "/bodies/energy", H5P_DEFAULT), H5Dclose};
    ASSERT_GE(dataset.id, 0);
    EXPECT_EQ(h5_dims(dataset.id), (std::vector<hsize_t>{kSteps, kItems}));
    std::vector<double> data(kSteps * kItems);
    ASSERT_GE(H5Dread(dataset.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
    for (long long s = 0; s < kSteps; ++s)
      for (long long i = 0; i < kItems; ++i) EXPECT_EQ(data[std::size_t(s * kItems + i)], value(s, i, 0));
  }
  {
    Id dataset{H5Dopen2(file.id, "/time", H5P_DEFAULT), H5Dclose};
    ASSERT_GE(dataset.id, 0);
    std::vector<hsize_t> max_dims;
    EXPECT_EQ(h5_dims(dataset.id, &max_dims), (std::vector<hsize_t>{kSteps}));
    EXPECT_EQ(max_dims[0], H5S_UNLIMITED);
    std::vector<double> t(kSteps);
    ASSERT_GE(H5Dread(dataset.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data()), 0);
    for (long long s = 0; s < kSteps; ++s) EXPECT_EQ(t[std::size_t(s)], time_of(s));
  }
  {
    Id attribute{H5Aopen_by_name(file.id, "/", "solver", H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    ASSERT_GE(attribute.id, 0);
    Id type{H5Aget_type(attribute.id), H5Tclose};
    EXPECT_EQ(H5Tget_class(type.id), H5T_STRING);
    std::vector<char> text(H5Tget_size(type.id) + 1, '\0');
    ASSERT_GE(H5Aread(attribute.id, type.id, text.data()), 0);
    EXPECT_STREQ(text.data(), "flexadj test");
  }
}

// The XDMF file `path` of the reference file: well formed, kSteps grids per point set selecting their steps, every
// HDF5 reference to an existing dataset. `xdmf3`: the selection inside the HDF DataItems ("file:dataset|start:
// stride:count:extent", RUN.xmf); else HyperSlab DataItems (RUN.xmf2).
void check_xdmf(const std::string& path, const std::string& h5, bool xdmf3) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  XmlNode root;
  ASSERT_NO_THROW(root = XmlParser(text.str()).parse());
  EXPECT_EQ(root.name, "Xdmf");
  const XmlNode* domain = child(root, "Domain");
  ASSERT_NE(domain, nullptr);

  // Two temporal collections of kSteps uniform grids each, with the right times and hyperslab steps.
  std::map<std::string, const XmlNode*> collections;
  for (const auto& grid : domain->children) {
    ASSERT_EQ(grid.name, "Grid");
    EXPECT_EQ(grid.attr("GridType"), "Collection");
    EXPECT_EQ(grid.attr("CollectionType"), "Temporal");
    collections[grid.attr("Name")] = &grid;
    ASSERT_EQ(grid.children.size(), std::size_t(kSteps));
    for (long long k = 0; k < kSteps; ++k) {
      const XmlNode& step = grid.children[std::size_t(k)];
      EXPECT_EQ(step.attr("GridType"), "Uniform");
      const XmlNode* time = child(step, "Time");
      ASSERT_NE(time, nullptr);
      EXPECT_EQ(std::stod(time->attr("Value")), time_of(k));
      ASSERT_EQ(child(step, "Topology") != nullptr, k == 0);
      ASSERT_EQ(child(step, "xi:include") != nullptr, k > 0);
      const XmlNode* geometry = child(step, "Geometry");
      ASSERT_NE(geometry, nullptr);
      EXPECT_EQ(geometry->attr("GeometryType"), "XYZ");
      const XmlNode& slab = geometry->children.at(0);
      if (xdmf3) {
        EXPECT_EQ(slab.attr("ItemType"), "");
        EXPECT_EQ(numbers(slab.attr("Dimensions")), (std::vector<long long>{1, kItems, 3}));
        const std::string text = trim(slab.text);
        const auto bar = text.find('|');
        ASSERT_NE(bar, std::string::npos) << text;
        std::string selection = text.substr(bar + 1);
        for (char& c : selection) c = c == ':' ? ' ' : c;
        EXPECT_EQ(numbers(selection),
                  (std::vector<long long>{k, 0, 0, 1, 1, 1, 1, kItems, 3, kSteps, kItems, 3}));
      } else {
        EXPECT_EQ(slab.attr("ItemType"), "HyperSlab");
        EXPECT_EQ(numbers(slab.children.at(0).text), (std::vector<long long>{k, 0, 0, 1, 1, 1, 1, kItems, 3}));
      }
    }
  }
  ASSERT_EQ(collections.size(), 2u);
  const XmlNode* bodies_topology = child(collections.at("bodies")->children[0], "Topology");
  EXPECT_EQ(bodies_topology->attr("TopologyType"), "Polyvertex");
  EXPECT_EQ(bodies_topology->attr("NumberOfElements"), std::to_string(kItems));
  // The vertex list inside a HyperSlab that selects all of it (no "Cannot find DataItem element in geometry xml"
  // from ParaView's XDMF Reader, xdmf_writer.cpp).
  const XmlNode& whole = bodies_topology->children.at(0);
  if (xdmf3) {
    EXPECT_EQ(numbers(whole.text), (std::vector<long long>{0, 1, 2, 3, 4, 5, 6}));
  } else {
    EXPECT_EQ(whole.attr("ItemType"), "HyperSlab");
    EXPECT_EQ(numbers(whole.children.at(0).text), (std::vector<long long>{0, 1, kItems}));
    EXPECT_EQ(numbers(whole.children.at(1).text), (std::vector<long long>{0, 1, 2, 3, 4, 5, 6}));
  }
  EXPECT_EQ(child(collections.at("beam")->children[0], "Topology")->attr("TopologyType"), "Polyline");

  // Every XInclude points at the first grid's topology of an existing collection.
  std::vector<const XmlNode*> includes;
  collect(root, "xi:include", includes);
  EXPECT_EQ(includes.size(), std::size_t(2 * (kSteps - 1)));
  for (const XmlNode* include : includes) {
    const std::string xpointer = include->attr("xpointer"), prefix = "xpointer(/Xdmf/Domain/Grid[@Name='";
    ASSERT_EQ(xpointer.rfind(prefix, 0), 0u) << xpointer;
    const std::string name = xpointer.substr(prefix.size(), xpointer.find('\'', prefix.size()) - prefix.size());
    EXPECT_EQ(xpointer, prefix + name + "']/Grid[1]/Topology)");
    EXPECT_EQ(collections.count(name), 1u) << name;
  }

  // Every HDF5 reference names the file (by basename) and an existing dataset with matching dimensions.
  std::vector<const XmlNode*> items;
  collect(root, "DataItem", items);
  Id file{H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);
  int hdf_items = 0;
  for (const XmlNode* item : items) {
    if (item->attr("Format") != "HDF") continue;
    ++hdf_items;
    const std::string text = trim(item->text), reference = text.substr(0, text.find('|'));
    const bool selects = reference.size() < text.size();
    const auto colon = reference.find(':');
    ASSERT_NE(colon, std::string::npos) << reference;
    EXPECT_EQ(reference.substr(0, colon), h5);
    const std::string dataset = reference.substr(colon + 1);
    ASSERT_TRUE(h5_exists(file.id, dataset)) << dataset;
    Id d{H5Dopen2(file.id, dataset.c_str(), H5P_DEFAULT), H5Dclose};
    ASSERT_GE(d.id, 0);
    std::vector<long long> dims;
    for (hsize_t e : h5_dims(d.id)) dims.push_back((long long)e);
    if (!selects) EXPECT_EQ(numbers(item->attr("Dimensions")), dims) << dataset;
  }
  // Per step: bodies (geometry + 2 attributes) and beam (geometry); plus the beam connectivity once.
  EXPECT_EQ(hdf_items, int(kSteps * 4 + 1));
}

TEST_F(ResultsFileTest, XdmfIsWellFormedAndReferencesExistingDatasets) {
  if (rank() != 0) return;
  check_xdmf(xmf(), h5(), true);
}

TEST_F(ResultsFileTest, LegacyXdmfIsWellFormedAndReferencesExistingDatasets) {
  if (rank() != 0) return;
  check_xdmf(XdmfWriter::legacy_path(xmf()), h5(), false);
}

TEST(ResultsFile, UnwritablePathIsAnInputErrorNamingThePath) {
  const std::string path = "no_such_directory_for_flexadj/results.h5";
  try {
    ResultsFile file(MPI_COMM_WORLD, path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ResultsFile, ReaderRejectsMissingAndNonHdf5Files) {
  EXPECT_THROW(ResultsReader("no_such_results_file.h5"), InputError);
  const std::string text_file = file_name("not_hdf5_rank" + std::to_string(rank()), ".txt");
  std::ofstream(text_file) << "this is not an HDF5 file\n";
  try {
    ResultsReader reader(text_file);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(text_file), std::string::npos) << e.what();
  }
}

TEST(ResultsFile, LargeRowsSplitTheChunkAndEmptyRanksTakePart) {
  const std::string path = file_name("test_results_file_big", ".h5");
  const long long items = 200000;  // 200000 * 3 * 8 bytes > 4 MiB
  {
    ResultsFile file(MPI_COMM_WORLD, path);
    // Only rank 0 owns items; the others write nothing but take part.
    std::vector<long long> mine;
    if (rank() == 0) mine = {0, 1, 2, items - 1};
    const int field = file.define_field("/big/field", items, 3, mine);
    const std::vector<double> data = rows(0, mine, 3);
    file.write(field, 1, data.data());  // step 1 first: the dataset grows to 2 steps
    file.write_time(1, 1.0);
    EXPECT_EQ(file.steps_written(), 2);
  }
  if (rank() != 0) return;
  Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  Id dataset{H5Dopen2(file.id, "/big/field", H5P_DEFAULT), H5Dclose};
  ASSERT_GE(dataset.id, 0);
  EXPECT_EQ(h5_dims(dataset.id), (std::vector<hsize_t>{2, items, 3}));
  Id dcpl{H5Dget_create_plist(dataset.id), H5Pclose};
  hsize_t chunk[3] = {};
  ASSERT_EQ(H5Pget_chunk(dcpl.id, 3, chunk), 3);
  EXPECT_EQ((std::vector<hsize_t>(chunk, chunk + 3)), (std::vector<hsize_t>{1, (4u << 20) / 24, 3}));
  const auto step = ResultsReader(path).read_step("/big/field", 1, {items - 1, 0});
  EXPECT_EQ(step, rows(0, {items - 1, 0}, 3));
}

TEST(ResultsFile, BadFieldDefinitionFailsOnEveryRank) {
  ResultsFile file(MPI_COMM_WORLD, file_name("test_results_file_bad", ".h5"));
  // Unsorted items on rank 0 only: every rank must throw (no rank may be left in a collective call).
  const std::vector<long long> items = rank() == 0 ? std::vector<long long>{3, 1} : std::vector<long long>{};
  EXPECT_THROW(file.define_field("/f", 5, 1, items), std::invalid_argument);
  EXPECT_THROW(file.define_field("/g", 5, 1, {5}), std::invalid_argument);
  if (size() > 1) {  // ranks disagree on the shape
    EXPECT_THROW(file.define_field("/h", 5 + rank(), 1, {}), std::invalid_argument);
  }
  EXPECT_THROW(file.write(7, 0, nullptr), std::out_of_range);
  // The file is still usable afterwards.
  const int field = file.define_field("/ok", 3, 2, rank() == 0 ? std::vector<long long>{0, 2} : std::vector<long long>{});
  const std::vector<double> data{1, 2, 3, 4};
  file.write(field, 0, data.data());
  file.close();
}

TEST(XdmfWriter, RejectsBadDefinitionsAndUnwritablePaths) {
  XdmfWriter xdmf(MPI_COMM_WORLD);
  EXPECT_THROW(xdmf.add_point_set("bad'name", "/p", 3), std::invalid_argument);
  xdmf.add_point_set("bodies", "/p", 3);
  EXPECT_THROW(xdmf.add_point_set("bodies", "/p", 3), std::invalid_argument);
  EXPECT_THROW(xdmf.add_attribute("joints", "f", "/f", 3), std::invalid_argument);
  EXPECT_THROW(xdmf.add_attribute("bodies", "f", "/f", 2), std::invalid_argument);
  EXPECT_THROW(xdmf.write("no_such_directory_for_flexadj/a.xmf", "a.h5", {0.0}), InputError);
}

}  // namespace
