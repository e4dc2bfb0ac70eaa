# Mafia Arena: the two commands a user needs are `make run` and `make test`.
CARGO ?= cargo

.PHONY: run test lint fmt bench build

build:
	$(CARGO) build --release --workspace

run:
	$(CARGO) run --release -p mafia-cli --bin mafia -- demo

test:
	$(CARGO) test --workspace --all-targets

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

bench:
	$(CARGO) bench -p mafia-rules --bench engine
