#include "fastcd/cd/ensemble.hpp"

#include <exception>
#include <stdexcept>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/threads.hpp"

namespace fastcd {

Index Ensemble::add(std::string name, Simulation sim) {
  sims_.push_back(std::move(sim));
  names_.push_back(std::move(name));
  return size() - 1;
}

Index Ensemble::add_instance(std::string name, Index of) {
  FASTCD_CHECK(of >= 0 && of < size(), "add_instance: character ", of, " does not exist (the ensemble has ", size(),
               ")");
  Simulation copy = sims_[static_cast<std::size_t>(of)];  // FullCD / FastCD copies share the precompute
  copy.reset();
  return add(std::move(name), std::move(copy));
}

Index Ensemble::num_vertices() const {
  Index n = 0;
  for (const Simulation& s : sims_) n += s.num_vertices();
  return n;
}

void Ensemble::advance(const std::vector<VectorXd>& p_next, int max_threads) {
  FASTCD_CHECK(static_cast<Index>(p_next.size()) == size(), "Ensemble::advance: ", p_next.size(), " poses for ", size(),
               " characters");
  std::vector<std::exception_ptr> errors(sims_.size());
  parallel_for(
      size(), 1,
      [&](Index b, Index e) {
        for (Index i = b; i < e; ++i) {
          try {
            sims_[static_cast<std::size_t>(i)].advance(p_next[static_cast<std::size_t>(i)]);
          } catch (...) {
            errors[static_cast<std::size_t>(i)] = std::current_exception();
          }
        }
      },
      max_threads);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i]) continue;
    const std::string who = "character " + std::to_string(i) + " (" + names_[i] + "): ";
    try {
      std::rethrow_exception(errors[i]);
    } catch (const Cancelled&) {
      throw;
    } catch (const std::invalid_argument& ex) {
      throw std::invalid_argument(who + ex.what());
    } catch (const std::exception& ex) {
      throw std::runtime_error(who + ex.what());
    }
  }
}

void Ensemble::lift_skinned(std::vector<Eigen::VectorXf>& u, int max_threads) const {
  u.resize(sims_.size());
  for (std::size_t i = 0; i < sims_.size(); ++i) {
    const FastCD* f = sims_[i].fast();
    u[i].resize(f ? f->num_vertices() * f->dim() : 0);
  }
  // Each character's lift is a task (one thread each); large characters are split into vertex
  // ranges by their own parallel loop, which shares these threads.
  const int t = max_threads > 0 ? max_threads : threads();
  parallel_for(
      size(), 1,
      [&](Index b, Index e) {
        for (Index i = b; i < e; ++i) {
          const Simulation& s = sims_[static_cast<std::size_t>(i)];
          if (const FastCD* f = s.fast()) f->lift_skinned(s.state().s, u[static_cast<std::size_t>(i)], t);
        }
      },
      t);
}

}  // namespace fastcd
