#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/npy.hpp"
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using fastcd::NpyArray;
using fastcd::read_npy;
using fastcd::write_file_atomically;
using fastcd::write_npy;
using fastcd::write_npy_states;

namespace test_npy {

class NpyTest : public fastcd::test::TempDir {
 protected:
  // Writes a .npy file by hand: version 1.0, the given header dict text
  // (padded to 64 bytes) and raw data bytes.
  void write_raw(const std::string& p, const std::string& dict, const std::string& data,
                 const std::string& magic = std::string("\x93NUMPY", 6), char major = 1) {
    std::string h = dict;
    std::size_t total = 10 + h.size() + 1;
    h.append((total + 63) / 64 * 64 - total, ' ');
    h.push_back('\n');
    std::string out = magic;
    out.push_back(major);
    out.push_back('\0');
    out.push_back(static_cast<char>(h.size() & 0xff));
    out.push_back(static_cast<char>(h.size() >> 8));
    out += h + data;
    std::ofstream(p, std::ios::binary) << out;
  }
  template <typename F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "<no exception>";
  }
};

TEST_F(NpyTest, RoundTripFloat64ThreeD) {
  std::vector<double> v(3 * 4 * 2);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i) - 1.25;
  v[5] = 1e-300;
  v[6] = -3.141592653589793;
  write_npy(path("a.npy"), v.data(), {3, 4, 2});
  NpyArray a = read_npy(path("a.npy"));
  EXPECT_EQ(a.dtype, "<f8");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{3, 4, 2}));
  EXPECT_FALSE(a.fortran_order);
  EXPECT_EQ(a.data_f64, v);
  EXPECT_TRUE(a.data_i64.empty());
}

TEST_F(NpyTest, RoundTripInt32) {
  std::vector<std::int32_t> v = {0, -1, 2147483647, -2147483647 - 1, 42, 7};
  write_npy(path("i.npy"), v.data(), {2, 3});
  NpyArray a = read_npy(path("i.npy"));
  EXPECT_EQ(a.dtype, "<i4");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  ASSERT_EQ(a.data_i64.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(a.data_i64[i], v[i]);
  EXPECT_EQ(fs::file_size(path("i.npy")), 128u + v.size() * 4);
}

TEST_F(NpyTest, RoundTripInt64) {
  std::vector<std::int64_t> v = {INT64_MIN, -5, 0, 1LL << 40, INT64_MAX};
  write_npy(path("l.npy"), v.data(), {5});
  NpyArray a = read_npy(path("l.npy"));
  EXPECT_EQ(a.dtype, "<i8");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{5}));
  EXPECT_EQ(a.data_i64, v);
}

TEST_F(NpyTest, HeaderFollowsNumpyLayout) {
  std::vector<double> v(5, 1.0);
  write_npy(path("h.npy"), v.data(), {5});
  const std::string raw = slurp(path("h.npy"));
  ASSERT_GE(raw.size(), 10u);
  EXPECT_EQ(raw.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t hlen = static_cast<unsigned char>(raw[8]) | (static_cast<unsigned char>(raw[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string header = raw.substr(10, hlen);
  EXPECT_EQ(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(raw.size(), 10 + hlen + 5 * 8);
}

TEST_F(NpyTest, ScalarAndEmptyShapes) {
  double x = 2.5;
  write_npy(path("s.npy"), &x, {});
  NpyArray s = read_npy(path("s.npy"));
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.data_f64, std::vector<double>{2.5});

  write_npy(path("e.npy"), static_cast<const double*>(nullptr), {0, 3});
  NpyArray e = read_npy(path("e.npy"));
  EXPECT_EQ(e.shape, (std::vector<std::size_t>{0, 3}));
  EXPECT_TRUE(e.data_f64.empty());
}

TEST_F(NpyTest, NullDataWithElementsIsInvalid) {
  EXPECT_THROW(write_npy(path("n.npy"), static_cast<const double*>(nullptr), {2}), std::invalid_argument);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyTest, StatesAreWrittenInCOrder) {
  std::vector<Eigen::MatrixXd> states;
  for (int s = 0; s < 3; ++s) {
    Eigen::MatrixXd X(4, 2);
    for (int v = 0; v < 4; ++v)
      for (int d = 0; d < 2; ++d) X(v, d) = 100 * s + 10 * v + d;
    states.push_back(X);
  }
  write_npy_states(path("states.npy"), states);
  NpyArray a = read_npy(path("states.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{3, 4, 2}));
  ASSERT_EQ(a.data_f64.size(), 24u);
  for (int s = 0; s < 3; ++s)
    for (int v = 0; v < 4; ++v)
      for (int d = 0; d < 2; ++d) EXPECT_EQ(a.data_f64[(s * 4 + v) * 2 + d], states[s](v, d));
}

TEST_F(NpyTest, StatesOfDifferentSizesAreInvalid) {
  std::vector<Eigen::MatrixXd> states = {Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(3, 2)};
  EXPECT_THROW(write_npy_states(path("bad.npy"), states), std::invalid_argument);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyTest, EmptyStatesGiveZeroShape) {
  write_npy_states(path("z.npy"), {});
  EXPECT_EQ(read_npy(path("z.npy")).shape, (std::vector<std::size_t>{0, 0, 0}));
}

TEST_F(NpyTest, ReadsBigEndianAndFortranOrder) {
  std::string data;
  for (double d : {1.5, -2.0}) {
    unsigned char b[8];
    std::memcpy(b, &d, 8);
    for (int i = 7; i >= 0; --i) data.push_back(static_cast<char>(b[i]));
  }
  write_raw(path("be.npy"), "{'descr': '>f8', 'fortran_order': True, 'shape': (2,), }", data);
  NpyArray a = read_npy(path("be.npy"));
  EXPECT_EQ(a.dtype, "<f8");
  EXPECT_TRUE(a.fortran_order);
  EXPECT_EQ(a.data_f64, (std::vector<double>{1.5, -2.0}));
}

TEST_F(NpyTest, BadMagicThrows) {
  write_raw(path("m.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'),
            "\x93NUMPX");
  const std::string msg = error_of([&] { read_npy(path("m.npy")); });
  EXPECT_NE(msg.find("magic"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path("m.npy")), std::string::npos) << msg;
}

TEST_F(NpyTest, NotAnNpyFileThrows) {
  std::ofstream(path("t.npy")) << "hello";
  EXPECT_THROW(read_npy(path("t.npy")), std::runtime_error);
  EXPECT_THROW(read_npy(path("missing.npy")), std::runtime_error);
}

TEST_F(NpyTest, BadVersionThrows) {
  write_raw(path("v.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'),
            std::string("\x93NUMPY", 6), 9);
  EXPECT_NE(error_of([&] { read_npy(path("v.npy")); }).find("version"), std::string::npos);
}

TEST_F(NpyTest, TruncatedDataThrows) {
  std::vector<double> v(10, 3.0);
  write_npy(path("t.npy"), v.data(), {10});
  fs::resize_file(path("t.npy"), fs::file_size(path("t.npy")) - 3);
  const std::string msg = error_of([&] { read_npy(path("t.npy")); });
  EXPECT_NE(msg.find("does not match"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.npy"), std::string::npos) << msg;
}

TEST_F(NpyTest, TrailingBytesThrow) {
  write_raw(path("x.npy"), "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", std::string(12, '\0'));
  EXPECT_THROW(read_npy(path("x.npy")), std::runtime_error);
}

TEST_F(NpyTest, GiganticShapeThrowsWithoutAllocating) {
  // Would need ~8 EB (and overflows size_t in the second case) if believed.
  write_raw(path("g1.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000000000,), }",
            std::string(16, '\0'));
  write_raw(path("g2.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
            std::string(16, '\0'));
  write_raw(path("g3.npy"), "{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999999999999999999,), }",
            std::string(16, '\0'));
  for (const char* name : {"g1.npy", "g2.npy", "g3.npy"}) {
    const std::string msg = error_of([&] { read_npy(path(name)); });
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_EQ(msg.find("bad_alloc"), std::string::npos) << msg;
  }
}

TEST_F(NpyTest, MalformedHeadersThrow) {
  const std::vector<std::string> dicts = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",        // unsupported dtype
      "{'descr': '<f8', 'shape': (1,), }",                                // missing key
      "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }",        // bad bool
      "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }",       // negative dim
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}",  // extra key
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)",           // unterminated
      "['descr', '<f8']",                                                 // not a dict
  };
  for (std::size_t i = 0; i < dicts.size(); ++i) {
    std::string name = "h";
    name += std::to_string(i);
    name += ".npy";
    const std::string p = path(name);
    write_raw(p, dicts[i], std::string(8, '\0'));
    EXPECT_THROW(read_npy(p), std::runtime_error) << dicts[i];
  }
}

TEST_F(NpyTest, HeaderLengthBeyondFileThrows) {
  std::string raw("\x93NUMPY\x01\x00\xff\xff{'descr'", 17);
  std::ofstream(path("hl.npy"), std::ios::binary) << raw;
  EXPECT_THROW(read_npy(path("hl.npy")), std::runtime_error);
}

TEST_F(NpyTest, WriteIntoMissingDirectoryThrowsAndLeavesNothing) {
  std::vector<double> v(3, 1.0);
  EXPECT_THROW(write_npy(path("no/such/dir/a.npy"), v.data(), {3}), std::runtime_error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyTest, NoTemporaryFileLeftAfterSuccess) {
  std::vector<double> v(3, 1.0);
  write_npy(path("a.npy"), v.data(), {3});
  write_npy(path("a.npy"), v.data(), {3});  // overwrite
  EXPECT_EQ(listing(), std::set<std::string>{"a.npy"});
}

TEST_F(NpyTest, AtomicWriteRemovesTempOnExceptionAndKeepsOldFile) {
  std::ofstream(path("keep.txt")) << "old";
  std::string seen_tmp;
  EXPECT_THROW(write_file_atomically(path("keep.txt"),
                                     [&](const std::string& tmp) {
                                       seen_tmp = tmp;
                                       std::ofstream(tmp) << "partial";
                                       throw std::runtime_error("boom");
                                     }),
               std::runtime_error);
  EXPECT_EQ(seen_tmp.rfind(path("keep.txt") + ".tmp-", 0), 0u) << seen_tmp;
  EXPECT_EQ(listing(), std::set<std::string>{"keep.txt"});
  EXPECT_EQ(slurp(path("keep.txt")), "old");
}

TEST_F(NpyTest, AtomicWriteReplacesFile) {
  std::ofstream(path("f.txt")) << "old";
  write_file_atomically(path("f.txt"), [](const std::string& tmp) { std::ofstream(tmp) << "new"; });
  EXPECT_EQ(slurp(path("f.txt")), "new");
  EXPECT_EQ(listing(), std::set<std::string>{"f.txt"});
}

TEST_F(NpyTest, AtomicWriteRejectsBadArguments) {
  EXPECT_THROW(write_file_atomically("", [](const std::string&) {}), std::invalid_argument);
  EXPECT_THROW(write_file_atomically(path("d/"), [](const std::string&) {}), std::invalid_argument);
  EXPECT_THROW(write_file_atomically(path("x"), {}), std::invalid_argument);
  // Renaming onto an existing directory fails: runtime_error, temp removed.
  fs::create_directory(path("adir"));
  std::ofstream(path("adir/inner")) << "x";
  EXPECT_THROW(write_file_atomically(path("adir"), [](const std::string&) {}), std::runtime_error);
  EXPECT_EQ(listing(), std::set<std::string>{"adir"});
}

}  // namespace test_npy
