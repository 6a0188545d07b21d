// fastcd.Simulation as Python holds it: the C++ Simulation plus the per-object lock that
// FullCD / ReducedCD have, so that one simulation shared by Python threads steps and reads as
// if the calls came one after the other.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "fastcd/cd/simulation.hpp"

namespace fastcd::python {

/// Every method that changes or reads the state runs through locked(): the readers too, as they
/// fill the simulation's caches (rig positions, the lifted displacement). The lock is taken with
/// the GIL released (a Python rig's positions() takes the GIL inside a step, so holding both the
/// other way round would deadlock); a rig that calls back into the simulation it drives is
/// refused instead of deadlocking.
class SimulationObject : public Simulation {
 public:
  using Simulation::Simulation;
  explicit SimulationObject(Simulation&& s) : Simulation(std::move(s)) {}
  SimulationObject(const SimulationObject& o);  ///< a copy of o's state, taken under o's lock
  SimulationObject& operator=(const SimulationObject&) = delete;

  /// f(simulation) (a callable or a member function) under the lock, the GIL released; returns what f returns.
  template <class F>
  auto locked(F&& f) const {
    return run_locked(*this, std::forward<F>(f));
  }
  template <class F>
  auto locked(F&& f) {
    return run_locked(*this, std::forward<F>(f));
  }

 private:
  template <class Self, class F>
  static auto run_locked(Self& self, F&& f) {
    if (self.owner_.load() == std::this_thread::get_id())
      throw std::runtime_error(
          "fastcd.Simulation: its rig called back into the simulation it drives (from positions() or jacobian()); a "
          "rig must not use its simulation");
    pybind11::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(self.mutex_);
    struct Owner {
      std::atomic<std::thread::id>& id;
      explicit Owner(std::atomic<std::thread::id>& i) : id(i) { id = std::this_thread::get_id(); }
      ~Owner() { id = std::thread::id(); }
    } owner(self.owner_);
    using Sim = std::conditional_t<std::is_const_v<Self>, const Simulation, Simulation>;
    return std::invoke(std::forward<F>(f), static_cast<Sim&>(self));
  }

  mutable std::mutex mutex_;
  mutable std::atomic<std::thread::id> owner_{};
};

inline SimulationObject::SimulationObject(const SimulationObject& o)
    : Simulation(o.locked([](const Simulation& s) -> Simulation { return s; })) {}

}  // namespace fastcd::python
