# kbf: build, test, benchmark.
#
#   make build         the kbf binary, ./kbf
#   make test          unit tests, then integration tests against a real cluster in Docker, then
#                      the Kubernetes tests on the single-node Kubernetes (brought up for them)
#   make unit          unit tests only (no Docker)
#   make test-build    compile everything make test runs, run nothing (CI, while Kubernetes builds)
#   make integration   integration tests only (Docker; the image below)
#   make bench         the report's and the decoder's benchmarks
#   make bench-ci      a small kbf bench (bench/ci.yaml, BENCH_TRIALS of each) compared with the
#                      previous one or BENCH_BASELINE: figures, not a verdict
#   make bench-gate    the CI benchmark job anywhere: kbf at BASE_REF and at HEAD benchmarked
#                      on this machine, interleaved, then kbf compare; fails on a regression
#   make lint-actions  actionlint over .github/workflows (the benchmark job, the action's own test)
#   make lint          golangci-lint with .golangci.yml (errorlint, interfacebloat, gocyclo, funlen),
#                      over every file, the integration and Kubernetes tests' too
#   make image         the offline image kbf/kafka:4.3.1 (no registry needed); KAFKA_VERSION=4.0.2
#                      builds kbf/kafka:4.0.2, any Kafka 4.x on Maven Central
#   make probes        the reference probes for librdkafka and the Java client, into bin/
#                      (make probe-librdkafka: cgo, about 30 s; make probe-java: Maven, Java 17)
#   make probe-test    the reference probes' own unit tests
#   make k8s-up        a single-node Kubernetes for the Kubernetes tests, built from packages
#                      with no image pulled (root; testnode/node.sh; about 10 minutes the first time)
#   make k8s-down      stop it and remove all it wrote outside its cache
#   make kbf-image     an image of kbf itself (bin/kbf-image.tar, kbf/kbf:latest), made offline
#   make k8s-build     only build it (K8S_BUILD_JOBS packages at once; CI builds it this way
#                      while it installs the rest)
#   make k8s-test      the Kubernetes tests (build tag k8s: the node's smoke test, kbf run
#                      --target k8s's trial) against a node that is up
#   make k8s-integration  the same, bringing the node up for them and down after unless one is up

SHELL    := bash
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)

# The tests use the offline image when it has been built, the official one otherwise.
LOCAL_IMAGE := kbf/kafka:4.3.1
KBF_IMAGE   ?= $(shell docker image inspect $(LOCAL_IMAGE) >/dev/null 2>&1 && echo $(LOCAL_IMAGE) || echo apache/kafka:4.3.1)
export KBF_IMAGE

.PHONY: lint lint-actions build test test-build unit integration bench bench-ci bench-ab bench-gate image vet probes probe-librdkafka probe-java probe-test kbf-image k8s-up k8s-down k8s-build k8s-test k8s-integration

# The workflows and the action users call (action.yml), checked by actionlint.
ACTIONLINT ?= github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
lint-actions:
	$(GO) run $(ACTIONLINT) .github/workflows/*.yml

# The Go linters of .golangci.yml, over every build tag's files.
GOLANGCI ?= github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
lint:
	$(GO) run $(GOLANGCI) run --build-tags integration,k8s ./...

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o kbf ./cmd/kbf

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...
	$(GO) vet -tags k8s ./...

unit: vet
	$(GO) test -race -count=1 ./...

# The packages with integration tests (build tag integration). One cluster at a time:
# they run one after another (-p 1). htmlreport's needs headless Chromium, not Docker.
INTEGRATION_PKGS := ./compose/ ./compose/tctest/ ./cmd/kbf/ ./htmlreport/ ./kafkasec/ ./platform/remote/ ./platform/docker/ ./watch/

# The external fault's test kills a broker this many times (docs/measurements.md's figures took 5).
KBF_EXTERNAL_TRIALS ?= 2
export KBF_EXTERNAL_TRIALS

# A long -v run buries why a test failed among its logs: the output is kept in
# .cache/TARGET.log and, when a test failed, scripts/test-recap.sh says why at the end.
RECAP = set -o pipefail; mkdir -p .cache; $(1) 2>&1 | tee .cache/$@.log || { rc=$$?; scripts/test-recap.sh .cache/$@.log; exit $$rc; }

integration:
	@echo "integration tests with KBF_IMAGE=$(KBF_IMAGE)"
	$(call RECAP,$(GO) test -count=1 -p 1 -tags integration -run Integration -timeout 40m -v $(INTEGRATION_PKGS))

test: unit integration k8s-integration

# test-build compiles what make test runs (the modules fetched, vet's results, every test
# binary with its tags and -race) and runs none of it: go test -exec true links each binary
# and starts only true. CI does it while the Kubernetes node builds, so make test starts warm.
test-build: vet
	$(GO) test -race -count=1 -exec true ./... >/dev/null
	$(GO) test -count=1 -tags integration -exec true $(INTEGRATION_PKGS) >/dev/null
	$(GO) test -count=1 -tags k8s -exec true $(K8S_PKGS) >/dev/null

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./results/ ./gaps/ ./integrity/

# kbf bench and kbf compare (see docs/ci-gate.md).
BENCH_FILE     ?= bench/ci.yaml
BENCH_TRIALS   ?= 3
BENCH_BASELINE ?=

# bench-ci: a small benchmark, compared with BENCH_BASELINE (a bench.txt or a kbf bench
# directory) or else with the previous bench-ci run here. It prints the comparison and
# never fails on it: a shared machine's figures are figures, not a verdict.
bench-ci: build
	@set -e; \
	prev="$(BENCH_BASELINE)"; \
	[ -n "$$prev" ] || prev=$$(ls -d kbf-runs/bench-ci-*/ 2>/dev/null | sort | tail -1); \
	out=kbf-runs/bench-ci-$$(date -u +%Y%m%d-%H%M%S); \
	rc=0; ./kbf bench $(BENCH_FILE) --trials $(BENCH_TRIALS) --out $$out > /dev/null || rc=$$?; \
	if [ $$rc = 6 ]; then echo "no trial was valid on this machine (see $$out/summary.md): no figures to compare"; \
	elif [ $$rc != 0 ]; then exit $$rc; fi; \
	cat $$out/summary.md; \
	if [ -n "$$prev" ] && [ -e "$$prev" ]; then echo; ./kbf compare --no-fail $$prev $$out; \
	else echo; echo "no earlier result to compare with: $$out is the next run's baseline"; fi
	./kbf down

# bench-ab: the benchmark for kbf at BASE_REF and at HEAD on this machine, in BENCH_SLICES
# slices taken in turn, the order turned around every other slice (base 1, head 1, head 2,
# base 2, ...) so that a drift of the machine falls on both alike. Each slice is one kbf bench,
# whose trials of one cluster run back to back (the next starts while the last is put back):
# fewer, longer slices cost less. BENCH_JOB=I/N takes every N-th slice from the I-th, for the
# I-th of N CI jobs. Results under BENCH_DIR/{base,head}/slice-K/. A slice with no valid trial
# (kbf bench's exit 6, a loaded machine) does not stop the others: the comparison counts the
# trials there are, and says undecided when they are too few.
BASE_REF     ?= origin/main
BENCH_DIR    ?= kbf-runs/bench-ab
BENCH_SLICES ?= 6
BENCH_JOB    ?= 1/1
# kbf at BASE_REF, built once a commit: a BASE_REF that moves (another branch, a new
# origin/main) builds its own.
BASE_KBF     := .cache/kbf-base-$(shell git rev-parse --short=12 $(BASE_REF) 2>/dev/null || echo unknown)

$(BASE_KBF):
	rm -rf .cache/base && git worktree prune
	git worktree add --detach .cache/base $(BASE_REF)
	cd .cache/base && $(GO) build -ldflags "-X main.version=base" -o ../$(notdir $(BASE_KBF)) ./cmd/kbf
	git worktree remove --force .cache/base
	@./$(BASE_KBF) bench --help >/dev/null 2>&1 || { echo "kbf at $(BASE_REF) has no kbf bench: nothing to compare with" >&2; rm -f $(BASE_KBF); exit 1; }

bench-ab: build $(BASE_KBF)
	@set -e; j=$$(echo $(BENCH_JOB) | cut -d/ -f1); n=$$(echo $(BENCH_JOB) | cut -d/ -f2); i=0; \
	side() { echo "== slice $$2 of $(BENCH_SLICES): $$1"; \
	  kbf=./kbf; [ $$1 = base ] && kbf=./$(BASE_KBF); \
	  $$kbf bench $(BENCH_FILE) --trials $(BENCH_TRIALS) --shard $$2/$(BENCH_SLICES) --out $(BENCH_DIR)/$$1/slice-$$2 > /dev/null || [ $$? = 6 ]; }; \
	for k in $$(seq $$j $$n $(BENCH_SLICES)); do \
	  if [ $$((i % 2)) = 0 ]; then side base $$k; side head $$k; else side head $$k; side base $$k; fi; \
	  i=$$((i + 1)); \
	done

# bench-gate: bench-ab on one machine, then the gate: exit 4 on a regression, 5 when the
# trials are too few, 3 when an acknowledged record was lost. GATE_METRICS are the metrics
# the gate answers on (kbf compare --metric; docs/ci-gate.md says why these): the others are
# shown, marked not gated. GATE_METRICS= (empty) gates on every metric.
GATE_METRICS  ?= from_heartbeat
COMPARE_FLAGS ?= --max-regression 10% --alpha 0.05
# Its benchmark is GATE_FILE, the crash it gates on alone: BENCH_TRIALS of it a side, about 10
# minutes on 2 cores.
GATE_FILE     ?= bench/gate.yaml
bench-gate: BENCH_FILE = $(GATE_FILE)
bench-gate: BENCH_TRIALS = 9
bench-gate: BENCH_SLICES = 2
bench-gate: bench-ab
	./kbf compare $(COMPARE_FLAGS) --metric $(or $(GATE_METRICS),all) --markdown $(BENCH_DIR)/compare.md $(BENCH_DIR)/base $(BENCH_DIR)/head

# The offline image kbf/kafka:4.3.1, a stand-in for apache/kafka:4.3.1 under
# compose/compose.yaml (KBF_IMAGE=kbf/kafka:4.3.1). Needs root (debootstrap) on the first run,
# Docker, Maven and Java; see image/build.sh.
# KAFKA_VERSION: any Kafka 4.x release on Maven Central; the image is kbf/kafka:KAFKA_VERSION.
# It reaches build.sh through the environment, never the recipe's command line, so the shell
# does not run what the value holds; build.sh checks it.
KAFKA_VERSION ?= 4.3.1

image: export KAFKA_VERSION := $(KAFKA_VERSION)
image:
	image/build.sh

# The reference probes (clients/README.md), built into bin/ where kbf looks for them. The
# librdkafka probe is its own Go module, so that cgo stays out of the kbf binary.
PROBE_DIR := bin

probes: probe-librdkafka probe-java

probe-librdkafka:
	@mkdir -p $(PROBE_DIR)
	cd clients/librdkafka && CGO_ENABLED=1 $(GO) build -o ../../$(PROBE_DIR)/kbf-probe-librdkafka .

probe-java:
	@mkdir -p $(PROBE_DIR)
	mvn -q -B -f clients/java/pom.xml package
	cp clients/java/target/kbf-probe-java.jar $(PROBE_DIR)/kbf-probe-java.jar

# The reference probes' own unit tests (the librdkafka module is outside ./...; make probe-java
# runs the Java ones too, as Maven's package does).
probe-test:
	cd clients/librdkafka && $(GO) vet . && $(GO) test -count=1 .
	mvn -q -B -f clients/java/pom.xml test

# The single-node Kubernetes of testnode/node.sh: Kubernetes 1.28 built from its Go module into
# KBF_K8S_CACHE (default ~/.cache/kbf-k8s, reused), etcd from Debian's package, a containerd and
# a pod bridge of its own; kbf/kafka:4.3.1 (make image) imported from Docker.
k8s-up:
	testnode/node.sh up

k8s-down:
	testnode/node.sh down

# kbf's own image, made offline: the static binary in an image of one layer (deploy/kbf-image.sh),
# bin/kbf-image.tar, loaded into Docker and into the test node when it is up.
kbf-image:
	VERSION=$(VERSION) deploy/kbf-image.sh

K8S_BUILD_JOBS ?= 1
k8s-build:
	KBF_K8S_BUILD_JOBS=$(K8S_BUILD_JOBS) testnode/node.sh build

# The packages with Kubernetes tests (build tag k8s), run one after another on the one node.
K8S_PKGS := ./testnode/ ./platform/k8s/

k8s-test:
	$(call RECAP,$(GO) test -count=1 -p 1 -tags k8s -run . -timeout 25m -v $(K8S_PKGS))

# A node that is up is used as it is; otherwise one is brought up for the tests and down after,
# whatever they say.
k8s-integration:
	@if testnode/node.sh status >/dev/null 2>&1; then $(MAKE) k8s-test; \
	else testnode/node.sh up && { $(MAKE) k8s-test; rc=$$?; testnode/node.sh down; exit $$rc; }; fi
