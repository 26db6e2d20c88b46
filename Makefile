# kbf: build, test, benchmark.
#
#   make build         the kbf binary, ./kbf
#   make test          unit tests, then integration tests against a real cluster in Docker
#   make unit          unit tests only (no Docker)
#   make integration   integration tests only (Docker; the image below)
#   make bench         the report's and the decoder's benchmarks
#   make bench-trials  three SIGKILL and three SIGTERM trials against the real cluster, with
#                      their summaries (what CI records on every change; figures, not verdicts)
#   make image         the offline image kbf/kafka:4.3.1 (no registry needed)
#   make probes        the reference probes for librdkafka and the Java client, into bin/
#                      (make probe-librdkafka: cgo, about 30 s; make probe-java: Maven, Java 17)
#   make probe-test    the reference probes' own unit tests

SHELL    := bash
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)

# The tests use the offline image when it has been built, the official one otherwise.
LOCAL_IMAGE := kbf/kafka:4.3.1
KBF_IMAGE   ?= $(shell docker image inspect $(LOCAL_IMAGE) >/dev/null 2>&1 && echo $(LOCAL_IMAGE) || echo apache/kafka:4.3.1)
export KBF_IMAGE

.PHONY: build test unit integration bench bench-trials image vet probes probe-librdkafka probe-java probe-test

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o kbf ./cmd/kbf

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

unit: vet
	$(GO) test -count=1 ./...

# The packages with integration tests (build tag integration). One cluster at a time:
# they run one after another (-p 1).
INTEGRATION_PKGS := ./compose/ ./cmd/kbf/

integration:
	@echo "integration tests with KBF_IMAGE=$(KBF_IMAGE)"
	$(GO) test -count=1 -p 1 -tags integration -run Integration -timeout 40m -v $(INTEGRATION_PKGS)

test: unit integration

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./results/ ./gaps/ ./integrity/

BENCH_OUT ?= kbf-runs/bench-$(shell date -u +%Y%m%d-%H%M%S)

bench-trials: build
	./kbf run --kill sigkill --repeat 3 --out $(BENCH_OUT)/sigkill > /dev/null
	./kbf run --kill sigterm --repeat 3 --out $(BENCH_OUT)/sigterm > /dev/null
	@for k in sigkill sigterm; do echo; cat $(BENCH_OUT)/$$k/summary.txt; done
	./kbf down

# The offline image kbf/kafka:4.3.1, a stand-in for apache/kafka:4.3.1 under
# compose/compose.yaml (KBF_IMAGE=kbf/kafka:4.3.1). Needs root (debootstrap) on the first run,
# Docker, Maven and Java; see image/build.sh.
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
