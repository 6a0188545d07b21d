#pragma once
// Progress of long library work (a precompute, loading a scene) for programs that show it: the
// library never prints, it reports each stage it starts to one process-wide sink. The CLI's
// sink prints a line once a phase has run for a second; Python and other callers see nothing
// unless they install one. The sink may be called from several threads at once (characters
// precomputed in parallel) and must be thread-safe.
#include <functional>

namespace fastcd {

/// work: "precompute (fast)", "loading"; stage: what starts now; done/total: stages so far.
/// total 0: work of unknown length (Netgen meshing) reporting now and then, the stage text
/// saying how far it is; done is 0 at its start and grows.
using ProgressSink = std::function<void(const char* work, const char* stage, int done, int total)>;

/// Installs the sink (an empty function removes it). Not to be called while library work runs.
void set_progress_sink(ProgressSink sink);

namespace detail {
/// Tells the sink (if any) that `stage` (the done-th of total) of `work` starts now.
void report_progress(const char* work, const char* stage, int done, int total);
}  // namespace detail

}  // namespace fastcd
