// Bindings of src/fastcd/geometry: mesh measures, assembled operators, structured meshes.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"

#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/cluster_grouping_matrices.hpp"
#include "fastcd/geometry/deformation_jacobian.hpp"
#include "fastcd/geometry/diffuse_field.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/elastic_operators.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/normalize_and_center.hpp"
#include "fastcd/geometry/triangulated_grid.hpp"
#include "fastcd/geometry/volume.hpp"
#include "fastcd/geometry/ympr_to_lame.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {
using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;
using VecRef = Eigen::Ref<const VectorXd>;
using IVecRef = Eigen::Ref<const VectorXi>;

py::tuple mesh_tuple(Mesh m) { return py::make_tuple(std::move(m.X), std::move(m.T)); }
}  // namespace

void bind_geometry(py::module_& m) {
  m.def("volume", &volume, "V"_a, "F"_a,
        "Measure of every simplex (#F): edge lengths, unsigned triangle areas, signed tet volumes.");

  m.def("massmatrix", py::overload_cast<const MatRef&, const IdxRef&, double>(&massmatrix), "X"_a, "T"_a, "rho"_a = 1.0,
        "Lumped #V x #V diagonal mass, rho a scalar density.");
  m.def("massmatrix_per_element", py::overload_cast<const MatRef&, const IdxRef&, const VecRef&>(&massmatrix), "X"_a,
        "T"_a, "rho"_a, "Lumped #V x #V diagonal mass, rho one density per element (#T).");
  m.def(
      "sparse_matrix", [](py::handle A, const std::string& name) { return sparse_from_python(A, name); }, "A"_a,
      "name"_a,
      "A checked copy of a scipy.sparse matrix (or 2-D array) as csc; ValueError naming `name` for broken index "
      "arrays (the Python layer's _convert.sparse).");
  m.def("kron_identity", &kron_identity, "A"_a, "k"_a, "kron(A, I_k): lifts a per-vertex operator to DOFs.");
  m.def("sparse_diagonal", &sparse_diagonal, "d"_a, "Diagonal sparse matrix from a vector.");

  m.def("deformation_jacobian", &deformation_jacobian, "X"_a, "T"_a,
        "(dim^2 #T) x (dim #V) sparse G with G x = stacked row-major deformation gradients.");
  m.def("dirichlet_laplacian", py::overload_cast<const MatRef&, const IdxRef&, double, bool>(&dirichlet_laplacian),
        "X"_a, "T"_a, "mu"_a = 1.0, "vector"_a = false, "P1 Dirichlet stiffness (PSD), scalar mu.");
  m.def("dirichlet_laplacian_per_element",
        py::overload_cast<const MatRef&, const IdxRef&, const VecRef&, bool>(&dirichlet_laplacian), "X"_a, "T"_a,
        "mu"_a, "vector"_a = false, "P1 Dirichlet stiffness (PSD), mu per element (#T).");
  m.def("lbs_jacobian", &lbs_jacobian, "V"_a, "W"_a, "Sparse LBS Jacobian (#V d) x (#bones d (d+1)).");

  m.def(
      "boundary_facets",
      [](const IdxRef& T) {
        BoundaryFacets b = boundary_facets(T);
        return py::make_tuple(std::move(b.F), std::move(b.J), std::move(b.K));
      },
      "T"_a, "(F, J, K): boundary facets, their element, and their local index (opposite corner).");
  m.def("boundary_vertices", &boundary_vertices, "T"_a, "Sorted unique vertices of the boundary facets.");

  m.def(
      "triangulated_grid", [](int nx, int ny) { return mesh_tuple(triangulated_grid(nx, ny)); }, "nx"_a, "ny"_a,
      "(V, F): libigl's triangulated_grid on [0,1]^2.");
  m.def(
      "tetrahedralized_grid", [](int nx, int ny, int nz) { return mesh_tuple(tetrahedralized_grid(nx, ny, nz)); },
      "nx"_a, "ny"_a, "nz"_a, "(V, T): Kuhn-tetrahedralized box grid on [0,1]^3.");
  m.def(
      "beam", [](int width, int height, double thickness) { return mesh_tuple(beam(width, height, thickness)); },
      "width"_a = 40, "height"_a = 5, "thickness"_a = 0.1, "(X, T): simkit tutorial 23's beam.");

  m.def(
      "normalize_and_center",
      [](const MatRef& X) {
        NormalizedPositions r = normalize_and_center(X);
        return py::make_tuple(std::move(r.X), VectorXd(r.t.transpose()), r.s);
      },
      "X"_a, "(X', t, s) with X' = s (X + t).");

  m.def(
      "cluster_grouping_matrices",
      [](const IVecRef& l, const MatRef& V, const IdxRef& T) {
        ClusterGrouping g = cluster_grouping_matrices(l, V, T);
        return py::make_tuple(std::move(g.G), std::move(g.Gm), std::move(g.mc), std::move(g.mt), std::move(g.fe));
      },
      "l"_a, "V"_a, "T"_a, "(G, Gm, mc, mt, fe).");

  m.def("ympr_to_lame", &ympr_to_lame, "ym"_a, "pr"_a, "(mu, lam) from Young's modulus and Poisson ratio.");

  m.def("diffuse_field", &diffuse_field, "V"_a, "T"_a, "bI"_a, "phi"_a, "dt"_a = py::none(), "normalize"_a = true,
        "One implicit heat step from Dirichlet seeds (#V x k).");

  m.def(
      "elastic_operators",
      [](const MatRef& X, const IdxRef& T, double ym, double pr, double rho) {
        ElasticOperators op = elastic_operators(X, T, ym, pr, rho);
        py::dict d;
        d["Mv"] = std::move(op.Mv);
        d["G"] = std::move(op.G);
        d["AMu"] = std::move(op.AMu);
        d["AMue"] = std::move(op.AMue);
        d["L"] = std::move(op.L);
        d["dim"] = op.dim;
        d["mu"] = op.mu;
        d["vol"] = std::move(op.vol);
        return d;
      },
      "X"_a, "T"_a, "ym"_a = 1e5, "pr"_a = 0.0, "rho"_a = 1e3,
      "dict(Mv, G, AMu, AMue, L, dim, mu, vol): simkit tutorial 23's ARAP operators.");
}

}  // namespace fastcd::python
