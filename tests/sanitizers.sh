#!/usr/bin/env bash
# Runs a command with the options for programs built with -DKITE_SANITIZE or
# -DKITE_FUZZ (docs/testing.md): the leaks of PoCL and the OpenCL loader are
# suppressed (tests/lsan.supp), every UndefinedBehaviorSanitizer report
# prints its stack. Options already in the environment come after ours.
#
#   tests/sanitizers.sh ctest --test-dir build-san --output-on-failure
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
exec "$@"
