# Netgen's nglib (Debian libnglib-dev 6.2, LGPL-2.1). Debian's NetgenConfig cannot be used: its
# targets file references /usr/bin/netgen, which only the netgen GUI package installs, so
# configuring fails without it. A plain header + library search instead.
#
# fastcd does not link nglib: meshing/tetrahedralize.cpp opens it with dlopen on first use, by the
# path found here (its soname in /usr/lib/<triplet>/netgen; nglib's own RUNPATH finds the rest of
# Netgen). Netgen drags in OpenCASCADE, MPI and libpython (~0.1 s of loading, and static
# initialisers that allocate registries they never free), which programs that never mesh should
# not pay for. The target carries the header, the path and libdl.
find_path(NGLIB_INCLUDE_DIR nglib.h PATH_SUFFIXES netgen REQUIRED)
find_library(NGLIB_LIBRARY NAMES nglib PATH_SUFFIXES netgen REQUIRED)
set(_ng_path "${NGLIB_LIBRARY}")
if(IS_SYMLINK "${_ng_path}")
  # libnglib.so -> libnglib.so.6.2 (the soname, shipped by the runtime package)
  file(READ_SYMLINK "${_ng_path}" _ng_target)
  if(NOT IS_ABSOLUTE "${_ng_target}")
    get_filename_component(_ng_dir "${_ng_path}" DIRECTORY)
    set(_ng_target "${_ng_dir}/${_ng_target}")
  endif()
  set(_ng_path "${_ng_target}")
endif()
if(NOT TARGET fastcd::nglib)
  add_library(fastcd::nglib INTERFACE IMPORTED)
  set_target_properties(fastcd::nglib PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${NGLIB_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "FASTCD_NGLIB_PATH=\"${_ng_path}\""
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}")
endif()
message(STATUS "fastcd: nglib ${_ng_path} (opened at run time)")
