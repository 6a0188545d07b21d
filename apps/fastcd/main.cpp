// fastcd command-line tool: thin verbs over the library. Errors become one line on stderr
// and a non-zero exit code.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "bench.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/threads.hpp"
#include "interrupt.hpp"
#include "run.hpp"
#include "tutorial.hpp"
#ifdef FASTCD_HAVE_VIEWER
#include "view/view.hpp"
#endif

namespace {
constexpr const char* kVersion = "0.1.0";
}

int main(int argc, char** argv) {
  CLI::App app{"fastcd: complementary dynamics (full order and fast) on LBS rigs"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // --threads may come before or after the verb
  app.add_option_function<std::string>(
         "--threads", [](const std::string& v) { fastcd::set_threads(fastcd::parse_thread_count(v, "--threads")); },
         "threads for fastcd's parallel work: N >= 1, or auto (default: FASTCD_THREADS, else every core "
         "for independent work and one thread inside a step; results are identical for any N)")
      ->trigger_on_parse();
  fastcd::cli::register_tutorial(app);
  fastcd::cli::register_run(app);
  fastcd::cli::register_bench(app);
#ifdef FASTCD_HAVE_VIEWER
  fastcd::cli::register_view(app);
#else
  app.add_subcommand("view", "the interactive viewer (not in this build)")->allow_extras()->callback([] {
    throw std::runtime_error(
        "this fastcd was built without the viewer: install libglfw3-dev libimgui-dev libegl-dev "
        "libgl-dev libstb-dev and build again (FASTCD_BUILD_VIEWER=ON)");
  });
#endif
  fastcd::cli::install_interrupt_handlers();
  try {
    (void)fastcd::threads();  // a malformed FASTCD_THREADS is an error before any work
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const fastcd::cli::Interrupted& e) {
    if (fastcd::cli::claim_interrupt_report()) std::cerr << "fastcd: error: " << e.what() << "\n";
    return 128 + e.signal_number();
  } catch (const fastcd::Cancelled& e) {
    // The library noticed the signal first (a precompute, a long step, a weight solve).
    const int sig = fastcd::cli::g_interrupt_signal != 0 ? fastcd::cli::g_interrupt_signal : SIGINT;
    if (fastcd::cli::claim_interrupt_report())
      std::cerr << "fastcd: error: " << fastcd::cli::interrupted_message(sig, fastcd::cli::current_phase()) << "\n";
    return 128 + sig;
  } catch (const std::bad_alloc&) {
    // Memory the estimates before each large allocation did not foresee: still a sentence that
    // says what ran out and what to do, never a bare "std::bad_alloc".
    const std::string phase = fastcd::cli::current_phase();
    std::cerr << "fastcd: error: ran out of memory" << (phase.empty() ? "" : " while " + phase) << " ("
              << fastcd::memory_in_words(static_cast<double>(fastcd::available_memory_bytes()))
              << " available now): use a coarser mesh (a lower --voxel-resolution for voxel tets), fewer handles or "
                 "fewer frames, or free memory\n";
    return 1;
  } catch (const std::exception& e) {
    // One line, whatever the message holds (a file name with a newline, a multi-line library
    // message): control characters become '?', as the readers' own messages do.
    const int sig = fastcd::cli::g_interrupt_signal;
    if (sig != 0 && !fastcd::cli::claim_interrupt_report()) return 128 + sig;  // the watchdog has reported
    std::cerr << "fastcd: error: " << fastcd::printable(e.what()) << "\n";
    return 1;
  }
  return 0;
}
