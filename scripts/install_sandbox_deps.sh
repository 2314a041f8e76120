#!/usr/bin/env bash
# What OS-level isolation of sandbox workers needs (docs/runtime.md, "OS isolation"): bubblewrap, and
# libseccomp2 for its seccomp filter (setpriv, which drops root to nobody, is in util-linux, always there).
# As root on Debian or Ubuntu it installs what is missing; elsewhere it says what to install and carries on:
# without them, workers run with process isolation only and every pool says so (AWM_SANDBOX_ISOLATION); as
# root, pools then refuse to run generated code unless AWM_SANDBOX_ALLOW_ROOT=1.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if command -v dpkg-query >/dev/null 2>&1 && ! dpkg-query -W -f='${Status}' libseccomp2 2>/dev/null | grep -q "ok installed"; then
  missing+=(libseccomp2)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing for the OS isolation of sandbox workers: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "note: sandbox workers need ${missing[*]} for OS-level isolation (Debian: sudo apt-get install ${missing[*]});" \
       "without them they run with process isolation only, with a warning (see docs/runtime.md)" >&2
fi
