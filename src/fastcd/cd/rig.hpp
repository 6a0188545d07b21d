#pragma once
// Rigs for complementary dynamics. Complementary dynamics is rig-agnostic: it needs only the
// rig's positions x(p) and Jacobian J(p) = dx/dp (Zhang et al. 2020). `Rig` is that interface;
// LBS bones, point handles, the single affine handle and cages are linear rigs (J constant,
// `LinearRig`), the daisy's wire is nonlinear (`WireRig`), and users add their own.
#include <memory>
#include <string>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// A rig maps #p parameters to rest-space vertex positions x(p) (#V*dim, vertex-interleaved).
class Rig {
 public:
  virtual ~Rig() = default;
  virtual Index dim() const = 0;
  virtual Index num_vertices() const = 0;
  virtual Index num_params() const = 0;
  /// True when J does not depend on p (then x(p) = J p + x(0)).
  virtual bool is_linear() const = 0;
  /// The rest pose: x(rest_params()) is the rest shape the rig was bound to.
  virtual VectorXd rest_params() const = 0;
  /// x(p) into x (#V*dim).
  virtual void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const = 0;
  /// J(p) (#V*dim x #p). The default is central finite differences of `positions`
  /// (`finite_difference_jacobian`); override it with the analytic Jacobian when there is one.
  virtual SparseMatrix jacobian(const Eigen::Ref<const VectorXd>& p) const;
  virtual std::string name() const { return "rig"; }

  /// How many handles the rig has (bones, point handles, cage vertices, wire handles); 0 when
  /// its parameters are not a list of handles (a bare Jacobian, a user's rig).
  virtual Index num_handles() const { return 0; }
  /// Handle k's frame at pose p: the dim x (dim+1) affine map [A | t] that takes a rest-space
  /// point y attached to that handle to posed space, y -> A y + t (the identity [I | 0] at the
  /// rest pose for LBS bones). A rest-space point carried by handle k alone (an LBS vertex with
  /// weight 1 on bone k; a wire vertex bound to handle k's curve sample) moves exactly by it, so
  /// a collider attached to a bone moves with it.
  ///  * LBS rigs (lbs_rig, point_handle_rig, affine_handle_rig; FK skeletons, whose poses are the
  ///    bones' forward-kinematics transforms, composed from their parents'): bone k's [A | t],
  ///    read from p (column-major, lbs_jacobian's layout).
  ///  * The wire (WireRig): the rigid moving frame of the curve sample at handle k,
  ///    [R | s - R s0] with R = [t n][t0 n0]^T (wire_deformer.hpp).
  ///  * Not meaningful, and throwing std::invalid_argument: cages (a cage vertex is a point: it
  ///    has a position but no orientation), LinearRigs built from a bare Jacobian without a
  ///    parameter layout, and rigs that do not override it.
  /// @throws std::invalid_argument for those rigs, k outside [0, num_handles()), a p of the wrong
  ///         size or not finite.
  virtual MatrixXd handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const;

  /// x(p) as a new vector. @throws std::invalid_argument if p has the wrong size or is not finite.
  VectorXd positions(const Eigen::Ref<const VectorXd>& p) const;
};

/// Central differences (x(p + e_k eps_k) - x(p - e_k eps_k)) / (2 eps_k) with eps_k = eps *
/// max(1, |p_k|); entries below 1e-12 times the column's largest are dropped.
SparseMatrix finite_difference_jacobian(const Rig& rig, const Eigen::Ref<const VectorXd>& p, double eps = 1e-6);

/// What a linear rig's parameters p are.
enum class RigParams {
  Unspecified,    ///< a bare Jacobian: no handle layout known (no handle frames)
  AffineHandles,  ///< column-major [A | t] per handle, dim*(dim+1) each (lbs_jacobian's layout)
  HandlePoints,   ///< one position per handle, dim each (cage vertices): points, no frames
};

/// A linear rig x = J p: LBS (bones: column-major [A|t] per bone, see lbs_jacobian), point
/// handles, tutorial 23's single affine handle, cages (cage vertex positions). Keeps the public
/// members `J` and `p0` the solvers take. `params` says what p is (the builders below set it),
/// which decides num_handles and handle_frame.
class LinearRig : public Rig {
 public:
  SparseMatrix J;  ///< #V*dim x #p
  VectorXd p0;     ///< #p rest pose

  LinearRig() = default;
  /// @throws std::invalid_argument for bad shapes, or when #p does not fit `params`' layout.
  LinearRig(SparseMatrix J_, VectorXd p0_, Index dim_, std::string name_ = "linear",
            RigParams params = RigParams::Unspecified);
  Index dim() const override { return dim_; }
  Index num_vertices() const override { return dim_ > 0 ? J.rows() / dim_ : 0; }
  Index num_params() const override { return J.cols(); }
  bool is_linear() const override { return true; }
  VectorXd rest_params() const override { return p0; }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override;
  SparseMatrix jacobian(const Eigen::Ref<const VectorXd>&) const override { return J; }
  std::string name() const override { return name_; }
  RigParams params() const { return params_; }
  Index num_handles() const override;
  MatrixXd handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const override;
  using Rig::positions;

 private:
  Index dim_ = 0;
  std::string name_;
  RigParams params_ = RigParams::Unspecified;
};

/// The rig inputs both solvers' precomputes take (full_cd_precompute, fast_cd_precompute): the
/// Jacobian J (#V*dim x #p) of mesh X (#V x dim) and the rest pose p0 (#p), all finite. `where`
/// names the caller, the start of the message ("full_cd_precompute: rig Jacobian J has ...").
/// @throws std::invalid_argument naming the first problem: J's rows against X's DOFs, p0's size
///         against J's columns, a non-finite entry of J (by row and column), or of p0.
void check_rig_inputs(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0,
                      const char* where);

/// Tutorial 23's rig_rest: p0 = argmin_p ||J p - x||_M, x = flatten(X). When J has dependent
/// columns (a redundant rig, J^T M J singular) the minimum-norm least-squares p0 is returned.
/// @throws std::invalid_argument on size mismatches.
VectorXd rig_rest(const SparseMatrix& J, const SparseMatrix& Mv, const Eigen::Ref<const MatrixXd>& X);

/// LBS rig from per-vertex bone weights W (#V x #bones): J = lbs_jacobian(X, W), p0 = rig_rest.
LinearRig lbs_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& W, const SparseMatrix& Mv);

/// Tutorial 23's rig: one global affine handle (W = 1), 6 parameters in 2D, 12 in 3D.
LinearRig affine_handle_rig(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& Mv);

/// Point handles at the mesh vertices `handle_vertices` (one affine bone each), with
/// unconstrained biharmonic weights pinned there (biharmonic_weights: a partition of unity).
/// For a plain mesh whose animator has only picked a few control points.
/// @throws std::invalid_argument for an empty, duplicated or out-of-range handle list.
LinearRig point_handle_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                           const std::vector<Index>& handle_vertices, const SparseMatrix& Mv);

/// The vertices of smallest and largest coordinate along each axis, in that order (x min,
/// x max, y min, ...) without repeats: a character's extremities, as point handles.
std::vector<Index> extremity_vertices(const Eigen::Ref<const MatrixXd>& X);

enum class CageCoordinates { MeanValue, Harmonic };

/// Cage rig: p = the cage's vertex positions (#C*dim, interleaved), x = (Wc (x) I_dim) p with
/// generalized barycentric coordinates Wc (#V x #C) of the rest vertices X in the rest cage
/// (cage_V, boundary cage_F: 2D closed polygon edges, 3D triangles). Mean value coordinates
/// (default) reproduce X exactly at p0 = cage_V. Harmonic coordinates (grid solve of
/// `harmonic_resolution` cells) reproduce linear functions only to the grid's accuracy, so each
/// row gets the least-norm correction that keeps its sum 1 and makes Wc cage_V = X exactly —
/// the rest shape is then the rig's rest pose, and no spurious rest stress appears.
/// @throws std::invalid_argument for bad cages or mesh vertices outside the cage (harmonic).
LinearRig cage_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                   const Eigen::Ref<const MatrixXi>& cage_F, CageCoordinates kind = CageCoordinates::MeanValue,
                   int harmonic_resolution = 128);

/// The 2020 release's daisy wire (see rigs/wire_deformer.hpp): a Catmull-Rom curve through
/// point handles; each vertex follows its closest rest sample in that sample's moving frame.
/// p = handle positions (#H*2). Nonlinear; analytic Jacobian. 2D only.
class WireRig : public Rig {
 public:
  WireRig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& handles, int samples_per_segment = 30);
  ~WireRig() override;
  Index dim() const override { return 2; }
  Index num_vertices() const override { return n_; }
  Index num_params() const override { return p0_.size(); }
  bool is_linear() const override { return false; }
  VectorXd rest_params() const override { return p0_; }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override;
  SparseMatrix jacobian(const Eigen::Ref<const VectorXd>& p) const override;
  std::string name() const override { return "wire"; }
  Index num_handles() const override { return p0_.size() / 2; }
  MatrixXd handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const override;
  using Rig::positions;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Index n_ = 0;
  VectorXd p0_;
};

/// Tutorial 23's metronome animation handle(p0, i): p0 with its x-translation (entry #p - dim
/// of the last bone) set to amp * sin(2 pi i / period).
VectorXd metronome_pose(const Eigen::Ref<const VectorXd>& p0, Index dim, int i, double amp = 3.0, double period = 80.0);

}  // namespace fastcd
