# Mafia Arena: the two commands a user needs are `make run` and `make test`.
CARGO ?= cargo

.PHONY: run test lint fmt bench build bench-referee profile-referee profile-gateway bench-cluster bench-gateway bench-gateway-scale bench-scoring bench-console soak

build:
	$(CARGO) build --release --workspace

# One process on the embedded store; with REDIS_URL set, separate processes
# sharing Redis (deploy/run.sh).
run:
	$(CARGO) build --release -p mafia-arena -p mafia-referee -p mafia-gateway -p mafia-scoring -p mafia-cli
	./deploy/run.sh

test:
	$(CARGO) test --workspace

# The soak (tests/faults/tests/soak.rs, not part of `make test`): 200
# simulated tables through 3 referees and 2 gateways with a referee killed
# and restarted every minute; SOAK_SECS (default 600) shortens it.
SOAK_SECS ?= 600
soak:
	SOAK_SECS=$(SOAK_SECS) $(CARGO) test -p mafia-faults --test soak -- --ignored --nocapture

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

bench:
	$(CARGO) bench -p mafia-rules --bench engine

# The referee under closed-loop load (Redis with AOF, then embedded): one
# `name: value unit` line per figure. Needs redis-server on PATH or REDIS_URL.
# BENCH_ARGS="--backends redis --redis-callgrind" also counts redis-server's
# instructions per command under valgrind: steady where CPU time is noisy;
# --referee-callgrind counts the referee's.
bench-referee:
	$(CARGO) build --release -p mafia-referee --bins
	$${CARGO_TARGET_DIR:-target}/release/mafia-referee-bench $(BENCH_ARGS)

# The same with a perf profile of the referee per run: folded stacks and a
# flame graph per backend and table count in target/profile/ (needs perf).
profile-referee:
	$(CARGO) build --release -p mafia-referee --bins
	$${CARGO_TARGET_DIR:-target}/release/mafia-referee-bench --profile $${CARGO_TARGET_DIR:-target}/profile $(BENCH_ARGS)

# The referee at 500 tables on a local Redis Cluster (3 primaries) beside
# one Redis, with 1 and 3 referee processes.
bench-cluster:
	$(CARGO) build --release -p mafia-referee --bins
	$${CARGO_TARGET_DIR:-target}/release/mafia-referee-bench --backends redis,cluster \
		--tables 500 --referees 1,3 --memory-games 100 $(BENCH_ARGS)

# The gateway under fan-out load (10,000 raw-feed and 2,000 GraphQL
# subscribers following 100 simulated tables on loopback).
bench-gateway:
	$(CARGO) run --release -p mafia-gateway --bin gateway-bench -- $(BENCH_ARGS)

# 50,000 subscribers over three gateway processes following one Redis log
# (a private redis-server, or REDIS_URL), past one process's descriptor
# limit; figures for the whole machine.
bench-gateway-scale:
	$(CARGO) run --release -p mafia-gateway --bin gateway-bench -- --gateways 3 --raw 41667 --graphql 8333 $(BENCH_ARGS)

# The same with a perf profile of the server side during the measured
# phase: target/profile/gateway.folded and .svg (needs perf).
profile-gateway:
	$(CARGO) run --release -p mafia-gateway --bin gateway-bench -- --profile $${CARGO_TARGET_DIR:-target}/profile $(BENCH_ARGS)

# Seating and scoring (pure crates): seat_ms@100x10, seat_ms@200x20 and the
# seating quality beside a random seating; recompute_ms@400games and
# incremental_update_us.
bench-scoring:
	$(CARGO) bench -p mafia-seating --bench seating
	$(CARGO) bench -p mafia-tournament --bench scoring

# The judge console in headless Chromium against a referee on loopback:
# key press -> ack on screen p50/p99 over GAMES whole games, and the first
# load's transferred bytes. Needs chromium.
GAMES ?= 5
bench-console:
	$(CARGO) run --release -p mafia-gateway --example console-bench -- $(GAMES)
