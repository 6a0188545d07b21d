// libFuzzer harness: read_tetgen (.node + .ele). The input is split at the first 0x1e byte
// (ASCII record separator): before it the .node file, after it the .ele file.
#include <algorithm>

#include "fastcd/io/mesh_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* sep = std::find(data, data + size, std::uint8_t{0x1e});
  const std::size_t n1 = static_cast<std::size_t>(sep - data);
  const std::string node = write_input("in.node", data, n1);
  const std::string ele =
      write_input("in.ele", sep == data + size ? data : sep + 1, sep == data + size ? 0 : size - n1 - 1);
  try {
    const fastcd::Mesh m = fastcd::read_tetgen(node, ele);
    const auto dim = m.X.cols();
    check((dim == 2 || dim == 3) && m.T.cols() == dim + 1 && m.T.rows() > 0 && m.X.rows() > 0,
          "read_tetgen: bad shapes");
    check_finite(m.X, "read_tetgen: X");
    check_indices(m.T, m.X.rows(), "read_tetgen: T");
  } catch (const std::exception& e) {
    check_message(e, "read_tetgen", node, ele);
  }
  return 0;
}
