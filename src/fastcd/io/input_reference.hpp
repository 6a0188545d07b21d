#pragma once
// One rule for every file an input file refers to (a glTF buffer or image URI, an OBJ's
// `mtllib`, a material library's texture maps): fastcd reads such a reference only when it
// resolves — symbolic links followed first — to a regular file inside the referring file's own
// folder. Anything else (an absolute path, a URL, a `../` or symbolic-link escape, a directory,
// a FIFO, a device, a missing file) is refused with the reason, and the caller drops the
// reference with a warning naming it, or refuses the input. The user named the input file;
// nothing outside its folder is read or copied on its behalf.
#include <filesystem>
#include <string>

namespace fastcd {

/// A reference resolved by the rule above.
struct InputReference {
  std::string reference;           ///< as the input file wrote it (after URI decoding, for glTF)
  std::filesystem::path path;      ///< its real path (symbolic links resolved); empty if refused
  std::filesystem::path relative;  ///< `path` relative to the folder's real path; empty if refused
  std::string problem;             ///< why it is refused ("" when accepted), e.g. "does not exist"
  bool missing = false;            ///< refused only because no such file exists

  bool ok() const { return problem.empty(); }
};

/// Resolves `reference` (a relative path, '/'-separated) against `folder`, the folder of the
/// input file that names it, by the rule above. Never throws for a bad reference: the result
/// says why it is refused.
InputReference resolve_input_reference(const std::filesystem::path& folder, const std::string& reference);

/// `uri` with its percent-escapes decoded (glTF URIs are RFC 3986 references: "%2e%2e/" is
/// "../"); an invalid escape is kept as written.
std::string percent_decode(const std::string& uri);

}  // namespace fastcd
