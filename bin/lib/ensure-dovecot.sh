#!/usr/bin/env bash
# Run by the inbox source test: it reads a real IMAP server, Debian's Dovecot, started as a plain
# process on a temp directory and a loopback port. Installed here when missing; never started as a service.
set -euo pipefail
if ! command -v dovecot >/dev/null 2>&1 && [ ! -x /usr/sbin/dovecot ]; then
  echo "==> Installing Dovecot for the IMAP source test (Debian package dovecot-imapd)" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "test: Dovecot is missing and installing it needs root: apt-get install dovecot-imapd" >&2
    exit 1
  fi
  # The package's own service stays off: policy-rc.d may forbid starting it, and the test needs none.
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dovecot-imapd >/dev/null
fi
command -v dovecot 2>/dev/null || echo /usr/sbin/dovecot
