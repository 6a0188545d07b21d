#include "fastcd/scene/scene_simulation.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/io/rig_io.hpp"

namespace fastcd {

double normalised_ym(const Scene& scene, double ym) {
  const double L = scene.metres_per_normalised_unit;
  return L > 0 ? ym / (L * L) : ym;
}

SimulationOptions scene_simulation_options(const Scene& scene, const SceneRunSettings& run) {
  SimulationOptions o;
  o.solver = run.solver;
  o.cd.dt = scene.dt;
  o.cd.ym = normalised_ym(scene, scene.ym);
  o.cd.pr = scene.pr;
  o.cd.rho = scene.rho;
  o.cd.iterations = run.iterations;
  o.cd.modes = run.modes;
  o.cd.clusters = static_cast<int>(std::min<Index>(run.clusters, scene.T.rows()));
  if (run.solver == SolverKind::Fast) o.cd.precision = run.precision;
  if (run.leak == "painted") {
    FASTCD_CHECK(scene.leak_values.size() == scene.X.rows(), "leak field 'painted': the scene '", scene.name,
                 "' has no painted leak field (", scene.leak_values.size(), " values for ", scene.X.rows(),
                 " vertices)");
    o.cd.leak.kind = LeakFieldKind::Values;
    o.cd.leak.values = scene.leak_values;
  } else {
    o.cd.leak = leak_field_options(run.leak, scene.X.rows());
  }
  o.cd.gravity = gravity_vector(
      scene.dim, scene.metres_per_normalised_unit > 0 ? run.gravity / scene.metres_per_normalised_unit : run.gravity);
  o.cd.fixed = scene.fixed;
  o.dynamics = run.dynamics && scene.with_dynamics;
  return o;
}

Simulation make_simulation(const Scene& scene, const SimulationOptions& options) {
  FASTCD_CHECK(scene.rig != nullptr, "the scene '", scene.name, "' has no rig");
  return Simulation(scene.X, scene.T, scene.rig, options);
}

LeakFieldOptions leak_field_options(const std::string& spec, Index num_vertices) {
  LeakFieldOptions o;
  if (spec == "auto") {
    o.kind = LeakFieldKind::Poisson;
    o.boundary_fallback = true;
  } else if (spec == "centroid") {
    o.kind = LeakFieldKind::Centroid;
  } else if (spec == "diffusion") {
    o.kind = LeakFieldKind::Diffusion;
  } else if (spec == "poisson") {
    o.kind = LeakFieldKind::Poisson;
  } else if (spec == "none") {
    o.kind = LeakFieldKind::None;
  } else {
    std::error_code ec;
    FASTCD_CHECK(
        std::filesystem::is_regular_file(spec, ec), "leak field '", spec,
        "' is neither auto, poisson, diffusion, centroid, none nor an existing DMAT file of per-vertex values");
    const MatrixXd v = read_dmat(spec);
    FASTCD_CHECK(v.cols() == 1 && v.rows() == num_vertices, "leak field '", spec, "': expected a ", num_vertices,
                 " x 1 DMAT of values in [0, 1] (or diffusion, poisson, none), got ", v.rows(), " x ", v.cols());
    for (Index i = 0; i < v.rows(); ++i)
      FASTCD_CHECK(v(i, 0) >= 0.0 && v(i, 0) <= 1.0, "leak field '", spec, "': value ", v(i, 0), " of vertex ", i,
                   " is outside [0, 1]");
    o.kind = LeakFieldKind::Values;
    o.values = v.col(0);
  }
  return o;
}

VectorXd gravity_vector(Index dim, double g) {
  check_dim(dim, "gravity_vector");
  if (g == 0.0) return VectorXd();
  VectorXd v = VectorXd::Zero(dim);
  v(1) = -g;
  return v;
}

OutputSurface output_surface(const Scene& s) {
  OutputSurface out;
  if (s.render_E.rows() > 0) {
    out.E = s.render_E;
    out.F = s.render_F;
    return out;
  }
  std::vector<Index> slot(static_cast<std::size_t>(s.X.rows()), -1);
  for (Index i = 0; i < s.surface.size(); ++i) slot[static_cast<std::size_t>(s.surface.data()[i])] = 0;
  std::vector<Triplet> sel;
  for (Index v = 0; v < s.X.rows(); ++v)
    if (slot[static_cast<std::size_t>(v)] == 0) {
      slot[static_cast<std::size_t>(v)] = static_cast<Index>(sel.size());
      sel.emplace_back(slot[static_cast<std::size_t>(v)], v, 1.0);
    }
  out.E.resize(static_cast<Index>(sel.size()), s.X.rows());
  out.E.setFromTriplets(sel.begin(), sel.end());
  out.F.resize(s.surface.rows(), s.surface.cols());
  for (Index i = 0; i < s.surface.rows(); ++i)
    for (Index k = 0; k < s.surface.cols(); ++k)
      out.F(i, k) = static_cast<int>(slot[static_cast<std::size_t>(s.surface(i, k))]);
  return out;
}

MatrixXd to_file_units(const Scene& s, const OutputSurface& surf, const Eigen::Ref<const MatrixXd>& X) {
  FASTCD_CHECK(X.rows() == surf.E.cols() && X.cols() == s.dim, "X is ", shape_of(X), ", expected ", surf.E.cols(),
               " x ", s.dim);
  return (MatrixXd(surf.E * X) * s.half_extent).rowwise() + s.center.transpose();
}

}  // namespace fastcd
