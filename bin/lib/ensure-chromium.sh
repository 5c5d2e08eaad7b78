# Sourced by bin/test: the browser tests drive Debian's Chromium, installed here when missing.
if ! command -v chromium >/dev/null 2>&1; then
  echo "==> Installing Chromium for the browser tests (Debian package)"
  if [ "$(id -u)" -ne 0 ]; then
    echo "test: Chromium is missing and installing it needs root: apt-get install chromium" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
