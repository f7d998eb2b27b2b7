#!/usr/bin/env bash
# Failover, measured (the book, "Read replicas and failover"): a primary and its synchronous standby made on
# free ports (initdb, pg_basebackup -R; run as postgres when we are root), formsd given
# three hosts (one down, the standby, the primary), writers creating responses with
# Idempotency-Key retries (and some without a key), then the primary lost, twice over:
# its postmaster killed (kill -9), or made read-only as in a switchover; the standby
# promoted with pg_ctl promote. Prints what the writers saw and what the promoted
# server holds: acknowledged responses lost, responses stored twice, 503s and their
# Retry-After, and the seconds until writes resumed.
#
# The same tests run in CI with short phases (tests/api/failover.rs); here they last
# FORMS_FAILOVER_SECS=before,outage,after seconds (default 10,5,10).
set -euo pipefail
cd "$(dirname "$0")/.."
export FORMS_FAILOVER_SECS="${FORMS_FAILOVER_SECS:-10,5,10}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --test api failover:: -- --nocapture --test-threads 1 >"$log" 2>&1 || status=$?
# One line per figure; formsd's own lines (its view of the failover) shortened.
sed 's/ \.\.\. failover/ ...\nfailover/' "$log" |
  grep -aE '^failover \(|^test |^test result|panicked|^(not 201|acknowledged and lost|a create stored)' | cut -c1-3000 |
  sed -E 's/formsd: \{"timestamp":"([^"]*)".*"message":"([^"]*)"(,"host[s]?":"([^"]*)")?.*/formsd \1: \2 \4/'
exit "$status"
