// FastCD, the class: what a user reads, the step's checks and dispatch to the kernels
// (fast_cd_kernels.cpp), lifting, energies and sizes. The precompute is fast_cd_precompute.cpp.
#include "fastcd/cd/fast_cd.hpp"

#include <algorithm>
#include <cmath>

#include "fastcd/cd/fast_cd_impl.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

namespace {
using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
}  // namespace

FastCD::FastCD() = default;
FastCD::FastCD(const FastCD&) = default;
FastCD& FastCD::operator=(const FastCD&) = default;
FastCD::FastCD(FastCD&&) noexcept = default;
FastCD& FastCD::operator=(FastCD&&) noexcept = default;
FastCD::~FastCD() = default;

const FastCD::Impl& FastCD::impl() const {
  static const Impl none;
  return impl_ ? *impl_ : none;
}
Index FastCD::dim() const { return impl().dim; }
Index FastCD::num_vertices() const { return impl().n_vertices; }
Index FastCD::state_dim() const { return impl().state_dim(); }
Index FastCD::basis_dim() const { return impl().basis_dim(); }
Index FastCD::n_rot() const { return impl().clusters; }
const CDOptions& FastCD::options() const { return impl().options; }
const SparseMatrix& FastCD::J() const { return impl().J; }
const VectorXd& FastCD::p0() const { return impl().p0; }
const VectorXd& FastCD::D() const { return impl().D; }
LeakFieldKind FastCD::leak_field_used() const { return impl().leak_used; }
const SparseMatrix& FastCD::Mv() const { return impl().Mv; }
const ComplementarityConstraint& FastCD::constraint() const { return impl().constraint; }
Index FastCD::weight_constraint_rank() const { return impl().weight_constraint_rank; }
const MatrixXd& FastCD::W() const { return impl().W; }
const VectorXd& FastCD::eigenvalues() const { return impl().E; }
const MatrixXd& FastCD::Phi() const { return impl().Phi; }
const MatrixXd& FastCD::B() const { return impl().B; }
const VectorXi& FastCD::labels() const { return impl().labels; }
FastCDSubspace FastCD::subspace() const {
  const Impl& sys = impl();
  return FastCDSubspace{sys.D, sys.leak_used, sys.W, sys.E, sys.labels, sys.weight_constraint_rank};
}
double FastCD::structural_residual() const { return impl().structural_residual; }
const ReducedOperators& FastCD::reduced_operators() const { return impl().red; }
bool FastCD::folded() const { return impl().folded(); }
bool FastCD::scalar_rig() const { return impl().scalar_rig; }

void FastCD::step(const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, Workspace& ws,
                  int iterations) const {
  FASTCD_CHECK(impl_ != nullptr, "the solver is empty (build it with fast_cd_precompute)");
  const Impl& sys = *impl_;
  const Index m = sys.state_dim(), np = sys.J.cols();
  FASTCD_CHECK(z.size() == m && z_dot.size() == m && z_out.size() == m, "z, z_dot and the output need ", m,
               " entries, got ", z.size(), ", ", z_dot.size(), ", ", z_out.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np, " entries, got ",
               p.size(), ", ", p_dot.size(), ", ", p_next.size());
  const int iters = iterations < 0 ? sys.options.iterations : iterations;
  detail::fast_cd_iterate(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
  // Every input enters z0 through dense products, so a NaN or Inf anywhere reaches z_out: one
  // check of the output (m numbers) stands for five checks of the inputs on the hot path; the
  // inputs are examined only to say which one was bad (and when no iteration ran).
  if (!all_finite(z_out) || iters == 0)
    FASTCD_CHECK(all_finite(z) && all_finite(z_dot) && all_finite(p) && all_finite(p_dot) && all_finite(p_next),
                 "non-finite input (NaN or Inf in the state or the rig pose)");
}

VectorXd FastCD::step(const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) const {
  Workspace ws;
  VectorXd out(state_dim());
  step(z, z_dot, p, p_dot, p_next, out, ws, iterations);
  return out;
}

CDState FastCD::initial_state() const { return detail::rest_state(state_dim(), p0()); }

void FastCD::advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, Workspace& ws) const {
  ws.s_next.resize(state_dim());
  step(state.s, state.s_dot, state.p, state.p_dot, p_next, ws.s_next, ws);
  detail::accept_step(state, ws.s_next, p_next, options().dt);
}

void FastCD::lift(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<VectorXd> u) const {
  const Impl& sys = impl();
  FASTCD_CHECK(z.size() == sys.state_dim(), "z has ", z.size(), " entries, expected ", sys.state_dim());
  FASTCD_CHECK(u.size() == sys.n_vertices * sys.dim, "u has ", u.size(), " entries, expected ",
               sys.n_vertices * sys.dim);
  // U (#V x dim, row-major = vertex-interleaved) = Phi Z^T.
  Eigen::Map<RowMajorMatrix>(u.data(), sys.n_vertices, sys.dim).noalias() =
      sys.Phi * Eigen::Map<const RowMajorMatrix>(z.data(), sys.basis_dim(), sys.dim);
}

void FastCD::mode_transforms(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<MatrixXd> T) const {
  const Impl& sys = impl();
  FASTCD_CHECK(z.size() == sys.state_dim(), "z has ", z.size(), " entries, expected ", sys.state_dim());
  const Index d = sys.dim, modes = sys.options.modes;
  FASTCD_CHECK(T.rows() == modes && T.cols() == d * (d + 1), "T is ", T.rows(), " x ", T.cols(), ", expected ", modes,
               " x ", d * (d + 1));
  // G = Craw Z^T: row k*(d+1) + l is what W_k x_l contributes to u (l = d: W_k itself).
  const MatrixXd G = sys.Craw * Eigen::Map<const RowMajorMatrix>(z.data(), sys.basis_dim(), d);
  for (Index k = 0; k < modes; ++k)
    for (Index l = 0; l <= d; ++l)
      for (Index i = 0; i < d; ++i) T(k, l * d + i) = G(k * (d + 1) + l, i);
}

void FastCD::lift_skinned(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<Eigen::VectorXf> u, int max_threads) const {
  const Impl& sys = impl();
  const Index d = sys.dim, modes = sys.options.modes, n = sys.n_vertices;
  FASTCD_CHECK(u.size() == n * d, "u has ", u.size(), " entries, expected ", n * d);
  MatrixXd T(modes, d * (d + 1));
  mode_transforms(z, T);
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Tf = T.cast<float>();
  const Index nb = (n + 7) / 8;
  parallel_for(
      nb, 512,
      [&](Index b0, Index b1) {
        detail::fast_cd_lift_blocks(d, sys.Wf.data(), sys.Xf.data(), Tf.data(), modes, n, b0, b1, u.data());
      },
      max_threads > 0 ? max_threads : 1);
}

VectorXd FastCD::lift(const Eigen::Ref<const VectorXd>& z) const {
  VectorXd u(num_vertices() * dim());
  lift(z, u);
  return u;
}

MatrixXd FastCD::positions(const CDState& state) const { return unflatten(J() * state.p + lift(state.s), dim()); }

double FastCD::energy(const Eigen::Ref<const VectorXd>& zc, const Eigen::Ref<const VectorXd>& z,
                      const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) const {
  FASTCD_CHECK(impl_ != nullptr, "the solver is empty (build it with fast_cd_precompute)");
  const Impl& sys = *impl_;
  const ReducedOperators& red = sys.red;
  // Up to a constant: 1/(2h^2) ||B(zc - y) + J q||_M^2 + 1/2 zc^T B^T L B zc + zc^T B^T L J p+
  //                   - sum_c R_c : (GB zc + GJ p+)_c   (the per-element ||F||^2 terms are
  // quadratic in zc and folded into B^T L B; the constant parts do not depend on zc).
  const double h = sys.options.dt, h2 = h * h;
  const VectorXd y = z + h * z_dot, q = p_next - p - h * p_dot;
  const MatrixXd BLB = MatrixXd(red.Hr.matrixL()) * MatrixXd(red.Hr.matrixU()) - red.BMB / h2;
  const VectorXd dz = zc - y;
  const double inertia = 0.5 * (dz.dot(red.BMB * dz) + 2.0 * dz.dot(red.BMJ * q)) / h2;
  const VectorXd F = red.GB * zc + red.GJ * p_next;
  VectorXd R;
  polar_rotations(F, sys.dim, R);
  const double external = sys.Bf_ext.size() > 0 ? -sys.Bf_ext.dot(zc) : 0.0;
  return inertia + 0.5 * zc.dot(BLB * zc) + zc.dot(red.BLJ * p_next) - R.dot(F) + external;
}

void FastCD::solve_global(const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> z) const {
  FASTCD_CHECK(impl_ != nullptr, "the solver is empty (build it with fast_cd_precompute)");
  const Index m = state_dim();
  FASTCD_CHECK(b.size() == m && z.size() == m, "b and z need ", m, " entries, got ", b.size(), " and ", z.size());
  detail::fast_cd_solve_global(*impl_, b, z);
}

std::size_t FastCD::step_memory_bytes() const {
  const Impl& f = impl();
  return detail::bytes_of(f.Zy) + detail::bytes_of(f.Z_q) + detail::bytes_of(f.Z_p) + detail::bytes_of(f.GJf) +
         detail::bytes_of(f.Ptile) + detail::bytes_of(f.Prow) + detail::bytes_of(f.LhT) + detail::bytes_of(f.LhInvT) +
         detail::bytes_of(f.Zq_neg) + detail::bytes_of(f.Zp_neg) + detail::bytes_of(f.FJs) + detail::bytes_of(f.Gf) +
         detail::bytes_of(f.F_y) + detail::bytes_of(f.F_q) + detail::bytes_of(f.F_p) + detail::bytes_of(f.Sf) +
         detail::bytes_of(f.Kf) + detail::bytes_of(f.Pf) + detail::bytes_of(f.Prowf);
}

std::size_t FastCD::memory_bytes() const {
  const Impl& f = impl();
  return step_memory_bytes() + detail::bytes_of(f.J) + detail::bytes_of(f.Mv) + detail::bytes_of(f.W) +
         detail::bytes_of(f.Phi) + detail::bytes_of(f.B) + detail::bytes_of(f.Craw) +
         sizeof(float) * (f.Wf.size() + f.Xf.size()) + detail::bytes_of(f.red.GB) + detail::bytes_of(f.red.GJ) +
         detail::bytes_of(f.red.BMB) + detail::bytes_of(f.red.BMJ) + detail::bytes_of(f.red.BLJ) +
         sizeof(double) * static_cast<std::size_t>(f.red.Hr.rows() * f.red.Hr.cols() + f.Hs.rows() * f.Hs.cols()) +
         detail::bytes_of(f.constraint.C) + detail::bytes_of(f.constraint.basis) +
         detail::bytes_of(f.constraint.basis_scalar) +
         sizeof(double) * static_cast<std::size_t>(f.D.size() + f.E.size() + f.p0.size()) +
         sizeof(int) * static_cast<std::size_t>(f.labels.size());
}

const MatrixXd& FastCD::skinning_coordinates() const { return impl().Craw; }

}  // namespace fastcd
