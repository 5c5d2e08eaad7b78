# Sourced by bin/setup: builds each managed Python environment python/envs/<name>/requirements.lock into
# a cache outside the checkout, keyed by the lock file and the base Python, and links .tools/venvs/<name>
# to it. An env is built under a temporary name and renamed only once complete, so a half-built env is
# never used; a second run finds the env and changes nothing.

quarry_venv_cache="${XDG_CACHE_HOME:-$HOME/.cache}/quarry/venvs"

quarry_base_python() {
  local candidate
  for candidate in "${QUARRY_PYTHON:-}" python3.11 python3.12 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] < (3, 14) else 1)' 2>/dev/null; then
      # The interpreter itself, not a version-manager shim that may resolve differently later.
      "$candidate" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
  return 1
}

# build_python_env <name>: prints nothing when the env is current.
build_python_env() {
  local name="$1" lock="$root/python/envs/$1/requirements.lock"
  local python hash final partial link="$root/.tools/venvs/$1"
  python=$(quarry_base_python) || { echo "setup: Python 3.10 to 3.13 is needed for the $name environment (set QUARRY_PYTHON)" >&2; return 1; }
  hash=$( (cat "$lock"; "$python" --version) | sha256sum | cut -c1-16)
  final="$quarry_venv_cache/$name-$hash"
  mkdir -p "$quarry_venv_cache" "$root/.tools/venvs"
  if [ ! -x "$final/bin/python" ]; then
    step "Building the $name Python environment (once per lock file)"
    partial="$final.partial.$$"
    rm -rf "$partial"
    "$python" -m venv "$partial"
    "$partial/bin/python" -m pip install --quiet --no-deps --no-input --require-virtualenv -r "$lock"
    if ! problems=$("$partial/bin/python" -m pip check 2>&1); then
      echo "setup: the $name environment's pins do not fit together:" >&2
      echo "$problems" >&2
      rm -rf "$partial"
      return 1
    fi
    # Scripts in bin/ name the interpreter by its absolute path: point them at the final place.
    grep -rlI --null "$partial" "$partial/bin" | xargs -0 -r sed -i "s|$partial|$final|g"
    if ! mv -T "$partial" "$final" 2>/dev/null; then
      rm -rf "$partial" # another set-up finished the same env first
    fi
  fi
  if [ "$(readlink "$link" 2>/dev/null)" != "$final" ]; then
    ln -sfn "$final" "$link"
  fi
}

# link_duckdb_extensions: links every <name>.duckdb_extension of the duckdb-extensions environment into
# .tools/duckdb-extensions/, the one folder Node and the Python environments LOAD the lake's extensions
# from by path (nothing is downloaded at run time).
link_duckdb_extensions() {
  local env="$root/.tools/venvs/duckdb-extensions" folder="$root/.tools/duckdb-extensions" file
  mkdir -p "$folder"
  for file in "$env"/lib/python*/site-packages/duckdb_extension_*/extensions/v*/*.duckdb_extension; do
    [ -e "$file" ] || { echo "setup: no DuckDB extension files in $env" >&2; return 1; }
    if [ "$(readlink "$folder/$(basename "$file")" 2>/dev/null)" != "$file" ]; then
      ln -sfn "$file" "$folder/$(basename "$file")"
    fi
  done
}
