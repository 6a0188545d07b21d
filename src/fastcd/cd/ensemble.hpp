#pragma once
// Ensemble: many characters in one simulation (the Fast CD paper's aquarium, Benchekroun et
// al. 2023, Fig. 1). Each character is a Simulation with its own mesh, rig, animation, material
// and solver; they do not interact, so a frame steps them independently, in parallel across
// characters (parallel_for: coarse grains, any thread count gives the same numbers).
//
//   Ensemble aq;
//   aq.add("spot", Simulation(X, T, rig, options));
//   aq.add_instance("spot #2", 0);               // shares character 0's precompute
//   for (...) aq.advance(poses_of_this_frame);   // one pose per character
#include <string>
#include <vector>

#include "fastcd/cd/simulation.hpp"

namespace fastcd {

class Ensemble {
 public:
  /// Adds a character; returns its index.
  Index add(std::string name, Simulation sim);
  /// Adds an instance of character `of`: the same precomputed solver (shared, not copied) with
  /// its own state, statistics and animation, starting at rest. Returns its index.
  /// @throws std::invalid_argument for an index out of range.
  Index add_instance(std::string name, Index of);

  Index size() const { return static_cast<Index>(sims_.size()); }
  Simulation& operator[](Index i) { return sims_.at(static_cast<std::size_t>(i)); }
  const Simulation& operator[](Index i) const { return sims_.at(static_cast<std::size_t>(i)); }
  const std::string& name(Index i) const { return names_.at(static_cast<std::size_t>(i)); }
  /// Total vertices over the characters.
  Index num_vertices() const;

  /// One time step of every character: character i to rig pose p_next[i] (its own parameter
  /// count), on up to `max_threads` threads (0: threads()).
  /// @throws std::invalid_argument when p_next has the wrong number of poses; a character's
  ///         error (a wrong pose size, divergence) as the same exception type, its message
  ///         prefixed with "character i (name): "; Cancelled as is. When several fail, the one
  ///         with the lowest index is reported; the others' steps still ran.
  void advance(const std::vector<VectorXd>& p_next, int max_threads = 0);

  /// The complementary displacement u_c of every fast-solver character in skinning form
  /// (FastCD::lift_skinned), into u[i] (#V_i*dim floats; resized as needed; left empty for
  /// full-order characters), in parallel over characters and vertex blocks.
  void lift_skinned(std::vector<Eigen::VectorXf>& u, int max_threads = 0) const;

 private:
  std::vector<Simulation> sims_;
  std::vector<std::string> names_;
};

}  // namespace fastcd
