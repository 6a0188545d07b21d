// libFuzzer harness: read_ply (ASCII and binary of both byte orders). An accepted file must also
// survive write_ply -> read_ply unchanged.
#include "fastcd/io/ply_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.ply", "read_ply", {
  const fastcd::PlyMesh m = fastcd::read_ply(path);
  const auto nv = m.V.rows();
  check(m.V.cols() == 3 && m.F.cols() == 3, "read_ply: bad shapes");
  check(m.UV.cols() == 2 && (m.UV.rows() == 0 || m.UV.rows() == nv), "read_ply: bad UV shape");
  check(m.N.cols() == 3 && (m.N.rows() == 0 || m.N.rows() == nv), "read_ply: bad N shape");
  check_finite(m.V, "read_ply: V");
  check_finite(m.UV, "read_ply: UV");
  check_finite(m.N, "read_ply: N");
  check_indices(m.F, nv, "read_ply: F");
  const std::string out = temp_dir() + "/out.ply";
  fastcd::write_ply(out, m.V, m.F);
  const fastcd::PlyMesh back = fastcd::read_ply(out);
  check(back.V == m.V && back.F == m.F, "write_ply -> read_ply changed the mesh");
})
