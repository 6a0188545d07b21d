#include "fastcd/cd/rig_motion.hpp"

#include <algorithm>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/geometry/massmatrix.hpp"

namespace fastcd {

namespace {

constexpr Index kLanes = 4;  ///< vertices per block (one AVX2 register of doubles)

}  // namespace

/// J_s (#V x #p/dim) by blocks of kLanes vertices: block b uses the columns cols[start[b] ..
/// start[b+1]) (ascending, the union of its vertices' entries) with values[(j * kLanes) + lane]
/// for column j of that range (zero where the vertex has no entry).
struct RigMotion::Blocks {
  Index n = 0;
  std::vector<Index> start;
  std::vector<int> cols;
  std::vector<double> values;
};

namespace {

std::shared_ptr<const RigMotion::Blocks> make_blocks(const SparseMatrix& Js_col) {
  auto b = std::make_shared<RigMotion::Blocks>();
  const Eigen::SparseMatrix<double, Eigen::RowMajor> Js(Js_col);
  b->n = Js.rows();
  const Index blocks = (b->n + kLanes - 1) / kLanes;
  b->start.reserve(static_cast<std::size_t>(blocks + 1));
  b->start.push_back(0);
  std::vector<int> used;
  for (Index blk = 0; blk < blocks; ++blk) {
    used.clear();
    const Index v0 = blk * kLanes, v1 = std::min<Index>(v0 + kLanes, b->n);
    for (Index v = v0; v < v1; ++v)
      for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Js, v); it; ++it)
        used.push_back(static_cast<int>(it.col()));
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    const std::size_t first = b->values.size();
    b->values.resize(first + used.size() * kLanes, 0.0);
    for (Index v = v0; v < v1; ++v)
      for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Js, v); it; ++it) {
        const auto j = static_cast<std::size_t>(std::lower_bound(used.begin(), used.end(), it.col()) - used.begin());
        b->values[first + j * kLanes + static_cast<std::size_t>(v - v0)] = it.value();
      }
    b->cols.insert(b->cols.end(), used.begin(), used.end());
    b->start.push_back(static_cast<Index>(b->cols.size()));
  }
  return b;
}

/// x = (J_s (x) I_dim) p, kLanes vertices at a time: x_v = sum_c J_s(v, c) p_c over the block's
/// columns in ascending order, the order in which J p sums them (column after column of J).
template <int dim>
void blocked_rig_positions(const RigMotion::Blocks& b, const double* p, double* x) {
  using V = double __attribute__((vector_size(kLanes * sizeof(double))));
  const Index blocks = static_cast<Index>(b.start.size()) - 1;
  for (Index blk = 0; blk < blocks; ++blk) {
    V acc[dim];
    for (int a = 0; a < dim; ++a) acc[a] = V{};
    const double* w = b.values.data() + b.start[static_cast<std::size_t>(blk)] * kLanes;
    for (Index j = b.start[static_cast<std::size_t>(blk)]; j < b.start[static_cast<std::size_t>(blk) + 1];
         ++j, w += kLanes) {
      const V wj = simd::load<V>(w);
      const double* pc = p + static_cast<Index>(b.cols[static_cast<std::size_t>(j)]) * dim;
      for (int a = 0; a < dim; ++a) acc[a] += wj * pc[a];
    }
    const Index v0 = blk * kLanes, nv = std::min<Index>(kLanes, b.n - v0);
    for (Index lane = 0; lane < nv; ++lane)
      for (int a = 0; a < dim; ++a) x[(v0 + lane) * dim + a] = acc[a][lane];
  }
}

}  // namespace

RigMotion::RigMotion(std::shared_ptr<const Rig> rig, double dt) : rig_(std::move(rig)), dt_(dt) {
  FASTCD_CHECK(rig_ != nullptr, "RigMotion needs a rig (got a null pointer)");
  FASTCD_CHECK(dt > 0, "RigMotion: dt must be > 0, got ", dt);
  dim_ = rig_->dim();
  if (const auto* linear = dynamic_cast<const LinearRig*>(rig_.get())) {
    J_ = &linear->J;
    if (const std::optional<SparseMatrix> Js = kron_identity_factor(linear->J, dim_)) blocks_ = make_blocks(*Js);
  }
  const Index n = rig_->num_vertices() * dim_;
  x_.resize(n);
  x_prev_.resize(n);
  x_dot_.resize(n);
  x_next_.resize(n);
}

void RigMotion::evaluate(const Eigen::Ref<const VectorXd>& q, Eigen::Ref<VectorXd> x) const {
  if (blocks_ == nullptr) {
    rig_->positions(q, x);
    return;
  }
  FASTCD_CHECK(q.size() == rig_->num_params() && x.size() == rig_->num_vertices() * dim_, rig_->name(), " rig: p has ",
               q.size(), " entries (expected ", rig_->num_params(), "), x has ", x.size(), " (expected ",
               rig_->num_vertices() * dim_, ")");
  if (dim_ == 2)
    blocked_rig_positions<2>(*blocks_, q.data(), x.data());
  else
    blocked_rig_positions<3>(*blocks_, q.data(), x.data());
}

void RigMotion::reset(const Eigen::Ref<const VectorXd>& p) {
  p_ = p;
  p_prev_ = p;
  x_current_ = prev_current_ = dot_current_ = next_current_ = false;
}

const VectorXd& RigMotion::next(const Eigen::Ref<const VectorXd>& p_next) {
  evaluate(p_next, x_next_);
  next_current_ = true;
  return x_next_;
}

void RigMotion::move_to(const Eigen::Ref<const VectorXd>& p_next) {
  p_prev_.swap(p_);
  p_ = p_next;
  if (x_current_) x_prev_.swap(x_);
  prev_current_ = x_current_;
  x_current_ = dot_current_ = false;
  if (next_current_) {
    x_.swap(x_next_);
    x_current_ = true;
    next_current_ = false;
  }
}

const VectorXd& RigMotion::x() const {
  if (!x_current_) {
    evaluate(p_, x_);
    x_current_ = true;
  }
  return x_;
}

const VectorXd& RigMotion::x_prev() const {
  if (!prev_current_) {
    evaluate(p_prev_, x_prev_);
    prev_current_ = true;
  }
  return x_prev_;
}

const VectorXd& RigMotion::x_dot() const {
  if (!dot_current_) {
    x_dot_ = (x() - x_prev()) / dt_;
    dot_current_ = true;
  }
  return x_dot_;
}

std::size_t RigMotion::memory_bytes() const {
  std::size_t b = sizeof(double) * static_cast<std::size_t>(x_.size() + x_prev_.size() + x_dot_.size() +
                                                            x_next_.size() + p_.size() + p_prev_.size());
  if (blocks_)
    b += sizeof(double) * blocks_->values.size() + sizeof(int) * blocks_->cols.size() +
         sizeof(Index) * blocks_->start.size();
  return b;
}

}  // namespace fastcd
