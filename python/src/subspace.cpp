// Bindings of src/fastcd/subspace: orthonormal bases, projections, rig-orthogonal skinning
// eigenmodes and spectral clustering.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"

#include "fastcd/subspace/lbs_weight_space_constraint.hpp"
#include "fastcd/subspace/orthonormalize.hpp"
#include "fastcd/subspace/project_into_subspace.hpp"
#include "fastcd/subspace/skinning_eigenmodes.hpp"
#include "fastcd/subspace/spectral_cubature.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {
using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;
using VecRef = Eigen::Ref<const VectorXd>;
}  // namespace

void bind_subspace(py::module_& m) {
  m.def("orthonormalize", py::overload_cast<const MatRef&, double, double>(&orthonormalize), "B"_a,
        "threshold"_a = 1e-16, "rank_rtol"_a = 1e-10,
        "Orthonormal basis of span(B) (Householder QR; simkit's row-sum test plus a relative rank test).");
  m.def("orthonormalize_mass", py::overload_cast<const MatRef&, const SparseMatrix&, double, double>(&orthonormalize),
        "B"_a, "M"_a, "threshold"_a = 1e-16, "rank_rtol"_a = 1e-10, "M-orthonormal basis of span(B); M diagonal.");

  m.def("project_into_subspace", py::overload_cast<const VecRef&, const MatRef&>(&project_into_subspace), "y"_a, "B"_a,
        "z solving (B^T B) z = B^T y.");
  m.def("project_into_subspace_mass",
        py::overload_cast<const VecRef&, const MatRef&, const SparseMatrix&>(&project_into_subspace), "y"_a, "B"_a,
        "M"_a, "z solving (B^T M B) z = B^T M y, B dense.");
  m.def("project_into_subspace_sparse",
        py::overload_cast<const VecRef&, const SparseMatrix&, const SparseMatrix&>(&project_into_subspace), "y"_a,
        "B"_a, "M"_a, "z solving (B^T M B) z = B^T M y, B sparse.");
  m.def("project_into_subspace_normal", &project_into_subspace_normal, "BMB"_a, "BMy"_a,
        "z solving BMB z = BMy (precomputed normal equations).");

  m.def("lbs_weight_space_constraint",
        py::overload_cast<const MatRef&, const IdxRef&, const SparseMatrix&, double>(&lbs_weight_space_constraint),
        "V"_a, "T"_a, "C"_a, "rtol"_a = 1e-10, "r x #V orthonormal weight-space constraint of C u = 0, C sparse.");
  m.def("lbs_weight_space_constraint_dense",
        py::overload_cast<const MatRef&, const IdxRef&, const MatRef&, double>(&lbs_weight_space_constraint), "V"_a,
        "T"_a, "C"_a, "rtol"_a = 1e-10, "r x #V orthonormal weight-space constraint of C u = 0, C dense.");

  m.def(
      "skinning_eigenmodes",
      [](const MatRef& X, const IdxRef& T, int k, double mu, const std::optional<VectorXi>& bI,
         const std::optional<MatrixXd>& Aeq) {
        SkinningEigenmodes r = skinning_eigenmodes(X, T, k, mu, bI, Aeq);
        return py::make_tuple(std::move(r.W), std::move(r.E), std::move(r.B));
      },
      "X"_a, "T"_a, "k"_a, "mu"_a = 1.0, "bI"_a = py::none(), "Aeq"_a = py::none(),
      "(W, E, B): k smallest (constrained) skinning eigenmodes, B = lbs_jacobian(X, W) sparse.");

  m.def(
      "kmeans2",
      [](const MatRef& data, int k, int iter, std::uint32_t seed) {
        KMeansResult r = kmeans2(data, k, iter, seed);
        return py::make_tuple(std::move(r.centroids), std::move(r.labels));
      },
      "data"_a, "k"_a, "iter"_a = 10, "seed"_a = 0,
      "(centroids, labels): scipy.cluster.vq.kmeans2(data, k, iter, seed=seed, minit='++').");
  m.def(
      "spectral_clustering",
      [](const MatRef& W, int k, const VecRef& D, std::uint32_t seed) {
        KMeansResult r = spectral_clustering(W, k, D, seed);
        return py::make_tuple(std::move(r.labels), std::move(r.centroids));
      },
      "W"_a, "k"_a, "D"_a, "seed"_a = 0, "(labels, centroids): kmeans2 on the rows of W scaled by D (empty: 1).");
  m.def(
      "spectral_cubature",
      [](const MatRef& X, const IdxRef& T, const MatRef& W, int k) {
        SpectralCubature r = spectral_cubature(X, T, W, k);
        return py::make_tuple(std::move(r.lI), std::move(r.mc), std::move(r.labels), std::move(r.centroids));
      },
      "X"_a, "T"_a, "W"_a, "k"_a, "(lI, mc, labels, centroids).");
}

}  // namespace fastcd::python
