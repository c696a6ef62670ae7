# Sourced by the CLI tests: `... | contains PATTERN` in place of `... | grep -q PATTERN`.
# grep -q exits at its first match; bash writes `echo`'s lines one at a time, so the
# writer of a later line then dies of SIGPIPE and, under pipefail, fails a check that
# matched (capture_cli_test, CI 2026-11-25). contains reads all of its input first.
contains() {
  local text
  text=$(cat)
  grep -q "$@" <<< "$text"
}
