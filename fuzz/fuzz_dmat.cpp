// libFuzzer harness: read_dmat (ASCII and binary).
#include "fastcd/io/rig_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.dmat", "read_dmat", {
  const fastcd::MatrixXd W = fastcd::read_dmat(path);
  check_finite(W, "read_dmat: W");
})
