#include "fastcd/cd/options.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd {

namespace {

/// Throws std::invalid_argument(message) when `ok` is false: a setting out of range, named in
/// the message as the user sets it.
template <class... Args>
void require(bool ok, const Args&... message) {
  if (!ok) throw std::invalid_argument(detail::concat(message...));
}

}  // namespace

void validate(const CDOptions& o) {
  require(std::isfinite(o.dt) && o.dt > 0, "the time step dt must be finite and > 0, got ", o.dt);
  require(std::isfinite(o.ym) && o.ym > 0, "Young's modulus YM must be finite and > 0, got ", o.ym);
  require(std::isfinite(o.pr) && o.pr > -1.0 && o.pr < 0.5, "Poisson's ratio pr must lie in (-1, 0.5), got ", o.pr);
  require(std::isfinite(o.rho) && o.rho > 0, "the density rho must be finite and > 0, got ", o.rho);
  require(o.iterations >= 1, "the solver iterations per step (iterations) must be at least 1, got ", o.iterations,
          ": each step's secondary motion is what its iterations solve for, so with none the bake is the rig's "
          "motion alone (10 is the usual setting)");
  require(o.tolerance >= 0, "the iterations' tolerance must be >= 0, got ", o.tolerance);
  require(o.modes >= 1, "the fast solver's modes must be >= 1, got ", o.modes);
  require(o.clusters >= 1, "the fast solver's clusters must be >= 1, got ", o.clusters);
  require(o.leak.dt > 0 && std::isfinite(o.leak.dt), "the leak field's dt must be finite and > 0, got ", o.leak.dt);
  require(o.gravity.size() == 0 || o.gravity.allFinite(), "gravity must be finite");
  require(o.constraint_rtol > 0 && o.constraint_rtol < 1, "constraint_rtol must lie in (0, 1), got ",
          o.constraint_rtol);
  require(o.precision == Precision::Double || o.precision == Precision::Mixed,
          "precision must be double or mixed, got ", static_cast<int>(o.precision));
}

const char* precision_name(Precision p) { return p == Precision::Mixed ? "mixed" : "double"; }

Precision precision_from_name(const std::string& name) {
  if (name == "double") return Precision::Double;
  if (name == "mixed") return Precision::Mixed;
  FASTCD_CHECK(false, "precision must be \"double\" or \"mixed\", got \"", name, "\"");
  return Precision::Double;
}

namespace detail {

CDState rest_state(Index state_dim, const Eigen::Ref<const VectorXd>& p0) {
  CDState s;
  s.s = VectorXd::Zero(state_dim);
  s.s_dot = VectorXd::Zero(state_dim);
  s.p = p0;
  s.p_dot = VectorXd::Zero(p0.size());
  return s;
}

void accept_step(CDState& state, VectorXd& s_new, const Eigen::Ref<const VectorXd>& p_next, double dt) {
  state.s_dot = (s_new - state.s) / dt;
  state.p_dot = (p_next - state.p) / dt;
  state.s.swap(s_new);
  state.p = p_next;
}

}  // namespace detail
}  // namespace fastcd
