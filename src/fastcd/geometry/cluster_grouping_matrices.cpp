#include "fastcd/geometry/cluster_grouping_matrices.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/volume.hpp"

namespace fastcd {

ClusterGrouping cluster_grouping_matrices(const Eigen::Ref<const VectorXi>& l, const Eigen::Ref<const MatrixXd>& V,
                                          const Eigen::Ref<const MatrixXi>& T) {
  check_mesh(V, T, "cluster_grouping_matrices");
  FASTCD_CHECK(l.size() == T.rows(), "need one label per element: l has ", l.size(), " entries, T has ", T.rows(),
               " rows");
  FASTCD_CHECK(l.minCoeff() >= 0, "labels must be >= 0, got ", l.minCoeff());
  const Index c = l.maxCoeff() + 1, t = T.rows();
  ClusterGrouping out;
  out.mt = volume(V, T).cwiseAbs();
  out.mc = VectorXd::Zero(c);
  for (Index e = 0; e < t; ++e) out.mc(l(e)) += out.mt(e);
  out.fe.resize(t);
  std::vector<Triplet> g, gm;
  g.reserve(static_cast<std::size_t>(t));
  gm.reserve(static_cast<std::size_t>(t));
  for (Index e = 0; e < t; ++e) {
    const double mc = out.mc(l(e));
    out.fe(e) = mc > 0 ? out.mt(e) / mc : 0.0;
    g.emplace_back(l(e), e, 1.0);
    gm.emplace_back(l(e), e, out.fe(e));
  }
  out.G.resize(c, t);
  out.G.setFromTriplets(g.begin(), g.end());
  out.Gm.resize(c, t);
  out.Gm.setFromTriplets(gm.begin(), gm.end());
  return out;
}

}  // namespace fastcd
