#include "fastcd/cd/options.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd {

void validate(const CDOptions& o) {
  FASTCD_CHECK(std::isfinite(o.dt) && o.dt > 0, "time step dt must be finite and > 0, got ", o.dt);
  FASTCD_CHECK(std::isfinite(o.ym) && o.ym > 0, "Young's modulus must be finite and > 0, got ", o.ym);
  FASTCD_CHECK(std::isfinite(o.pr) && o.pr > -1.0 && o.pr < 0.5, "Poisson ratio must lie in (-1, 0.5), got ", o.pr);
  FASTCD_CHECK(std::isfinite(o.rho) && o.rho > 0, "density must be finite and > 0, got ", o.rho);
  FASTCD_CHECK(o.iterations >= 0, "iterations must be >= 0, got ", o.iterations);
  FASTCD_CHECK(o.tolerance >= 0, "tolerance must be >= 0, got ", o.tolerance);
  FASTCD_CHECK(o.modes >= 1, "modes must be >= 1, got ", o.modes);
  FASTCD_CHECK(o.clusters >= 1, "clusters must be >= 1, got ", o.clusters);
  FASTCD_CHECK(o.leak.dt > 0 && std::isfinite(o.leak.dt), "leak-field dt must be > 0, got ", o.leak.dt);
  FASTCD_CHECK(o.gravity.size() == 0 || o.gravity.allFinite(), "gravity must be finite");
  FASTCD_CHECK(o.constraint_rtol > 0 && o.constraint_rtol < 1, "constraint_rtol must lie in (0, 1), got ",
               o.constraint_rtol);
  FASTCD_CHECK(o.precision == Precision::Double || o.precision == Precision::Mixed,
               "precision must be Double or Mixed, got ", static_cast<int>(o.precision));
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
