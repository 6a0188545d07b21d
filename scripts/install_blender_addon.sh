#!/bin/sh
# Installs fastcd's Blender add-on in the user's Blender: builds fastcd_blender.zip from
# blender/fastcd_blender (recording where the built fastcd Python module is), then installs and
# enables it through Blender's own preferences operators and saves the preferences.
#
#   scripts/install_blender_addon.sh [BUILD_DIR]     (default: build/, as scripts/setup.sh makes it)
#
# BLENDER_USER_CONFIG / BLENDER_USER_SCRIPTS select another Blender profile (the tests use a
# temporary one). The zip is left in BUILD_DIR for installing by hand (Edit > Preferences >
# Add-ons > Install...).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
python_dir=$build/python
if [ ! -f "$python_dir/fastcd/__init__.py" ]; then
  echo "install_blender_addon: no fastcd Python module in $python_dir: build first (scripts/setup.sh)" >&2
  exit 1
fi
command -v blender >/dev/null || { echo "install_blender_addon: blender is not installed (apt-get install blender)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$root/blender/fastcd_blender" "$stage/"
rm -rf "$stage/fastcd_blender/__pycache__"
printf '%s\n' "$python_dir" > "$stage/fastcd_blender/fastcd_location.txt"
zip="$build/fastcd_blender.zip"
(cd "$stage" && /usr/bin/python3 -m zipfile -c "$zip.tmp" fastcd_blender)
mv "$zip.tmp" "$zip"
blender -b --python-exit-code 1 --python-expr "
import bpy, sys
bpy.ops.preferences.addon_install(filepath='$zip', overwrite=True)
bpy.ops.preferences.addon_enable(module='fastcd_blender')
import fastcd_blender, fastcd
bpy.ops.wm.save_userpref()
print('fastcd add-on enabled; fastcd module from', fastcd.__file__)
" 2>&1 | grep -v '^Blender \|^Read \|^$' || true
blender -b --python-exit-code 1 --python-expr "
import bpy, sys
sys.exit(0 if 'fastcd_blender' in bpy.context.preferences.addons else 1)
" >/dev/null 2>&1 || { echo "install_blender_addon: the add-on is not enabled after installing" >&2; exit 1; }
echo "installed $zip: Properties > Physics > fastcd"
