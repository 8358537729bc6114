#!/usr/bin/env bash
cd /work/main
unset BENCH_DB_URL
for b in catalogue stats conventions indexer rollup devnet quote prepare; do
  echo "=== $b $(date +%T)"
  timeout 900 npm run bench:$b > .scratch/b-$b.log 2>&1; echo "exit $?"
done
echo "=== all $(date +%T)"
timeout 1200 npm run bench > .scratch/b-all.log 2>&1; echo "exit $?"
echo "=== done $(date +%T)"
