# claudewrap — see README.md. `make demo` and `make test` are the two set-up commands.

# Every pinned Claude Code version (a spread from 2.1.197 to the newest);
# the whole end-to-end suite runs on E2E_VERSIONS, a random-form sample on all.
CLAUDE_VERSIONS ?= 2.1.332 2.1.330 2.1.321 2.1.299 2.1.266 2.1.227 2.1.197
E2E_VERSIONS    ?= 2.1.332 2.1.197
# Older than claudewrap supports: the e2e test of the version floor runs it.
BELOW_FLOOR     ?= 2.0.77
STATICCHECK     := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GORELEASER      := github.com/goreleaser/goreleaser/v2@v2.15.1
ACTIONLINT      := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
VERSION         ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT          ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS         := -X github.com/claudewrap/claudewrap/cmd/claudewrap/internal/cli.version=$(VERSION) \
                   -X github.com/claudewrap/claudewrap/cmd/claudewrap/internal/cli.commit=$(COMMIT)
GOTEST_FLAGS    ?=

SHELL := /bin/bash

.PHONY: lifecycle release-snapshot all build claude browser test test-all e2e unit nocgo cross check golden bench demo try stress clean

all: build

build:
	go build -ldflags '$(LDFLAGS)' -o bin/claudewrap ./cmd/claudewrap
	go build -o bin/fakeapi ./cmd/fakeapi

# The pinned Claude Code versions, from the npm registry, into .cache/ (git-ignored).
claude:
	./scripts/install-claude.sh $(CLAUDE_VERSIONS) $(BELOW_FLOOR)

# A newcomer's check, in about ten minutes: the unit tests, then the core of
# the end-to-end suite on the real Claude Code (its tests build only with the
# e2e tag) on the newest and the oldest pinned versions, with a 10-form
# random sample. Each check prints its line as it passes, the failures'
# words at the end (the whole go test -json stream goes to .cache/e2e.json).
test: CLAUDE_VERSIONS := $(E2E_VERSIONS)
test: claude
	go test -count=1 $(GOTEST_FLAGS) ./...
	$(MAKE) nocgo
	CLAUDEWRAP_SAMPLE_FORMS=10 $(MAKE) e2e E2E_ALL="$(E2E_VERSIONS)" E2E_TAGS=e2e RACE=

# The full matrix CI runs (.ci/run): the unit tests under the race detector
# and the lifecycle twenty times over; the whole end-to-end suite (the full
# tag adds the hardening, faults, taking over, terminals and text cases of
# e2e/*_full_test.go), the tests that run on every pinned version on all of
# them, the 30-form sample, and the page of claudewrap serve in Chromium.
test-all: claude browser lifecycle
	go test -race -count=1 $(GOTEST_FLAGS) ./...
	$(MAKE) nocgo
	$(MAKE) e2e E2E_ALL="$(CLAUDE_VERSIONS)" E2E_TAGS=e2e,full,browser

E2E_ALL  ?= $(CLAUDE_VERSIONS)
E2E_TAGS ?= e2e,full,browser
RACE     ?= -race
e2e:
	@echo "e2e: the real Claude Code against the fake API ($(E2E_VERSIONS); dialogs and random forms on $(E2E_ALL)): one line per check as it passes"
	@set -o pipefail; CLAUDEWRAP_CLAUDE_VERSIONS="$(E2E_ALL)" CLAUDEWRAP_E2E_VERSIONS="$(E2E_VERSIONS)" CLAUDEWRAP_BELOW_FLOOR="$(BELOW_FLOOR)" \
		go test $(RACE) -count=1 -timeout 70m -tags "$(E2E_TAGS)" -json $(GOTEST_FLAGS) ./e2e 2>&1 | \
		go run ./tools/testprogress -log .cache/e2e.json
	@cat .cache/e2e-report.txt

# Debian's Chromium, for the e2e test of claudewrap serve's page.
browser:
	@command -v chromium >/dev/null || { sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium >/dev/null; }

# The fast unit tests alone: what plain `go test ./...` runs.
unit: lifecycle
	go test -race -count=1 ./...
	$(MAKE) nocgo

# ptyhost without cgo, as cross-built binaries run: the Go relay, not the
# relay thread (ptyhost/relay_cgo.go).
nocgo:
	CGO_ENABLED=0 go test -count=1 ./ptyhost

# A session's form lifecycle, twenty times over with the race detector: its
# goroutines must agree however they interleave. TestFormLife's scripts make
# every move of a form's life table; TestConductor the loop's own scripts;
# the other TestForm tests drive the fake Claude with askflow. Every other
# session test, each of which runs the loop, three times over.
lifecycle:
	go test -race -count=20 -run '^Test(Form|Conductor)' ./session
	go test -race -count=3 -skip '^Test(Form|Conductor)' ./session

# Builds and vets for every OS and architecture Claude Code users run.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
cross:
	@set -e; for p in $(PLATFORMS); do \
		echo "build and vet $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} go build ./...; \
		GOOS=$${p%/*} GOARCH=$${p#*/} go vet -tags e2e,full,browser ./...; \
	done

check: cross
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go mod tidy -diff
	go run ./tools/housecheck $$(git ls-files '*.go')
	go run $(STATICCHECK) -tags e2e,full,browser ./...
	go run $(ACTIONLINT) docs/github-actions.yml
	go run $(GORELEASER) check
	$(MAKE) release-snapshot
	$(MAKE) test-all

# Release archives (linux and darwin, amd64 and arm64, with man pages,
# completions and checksums) built into dist/ as a release would, published
# nowhere (.goreleaser.yaml).
release-snapshot:
	go run $(GORELEASER) release --snapshot --clean

# Refresh golden files from the recordings.
golden:
	go test ./screen -run 'TestGolden' -update

bench:
	./scripts/install-claude.sh $(E2E_VERSIONS)
	BENCH_SOAK="$${BENCH_SOAK:-30m}" CLAUDEWRAP_E2E_VERSIONS="$(E2E_VERSIONS)" \
		go test -tags bench -run '^TestBench$$' -count=1 -timeout 4h -v ./bench

# Random forms on the real Claude Code, judged by what Claude recorded:
# make stress [SEED=n] [COUNT=300] [VERSIONS="2.1.332 2.1.197"] [PARALLEL=2] [GENERATION=n: default the newest]
#             [FULLSCREEN=1: every session fullscreen] [THEME=name: every session in that colour theme] [VIM=1: vim mode on in every session]
#             [POINTER=1: every session on a terminal fullscreen, the person's pointer moving over it; VERSIONS 2.1.299 and later]
#             [DIALOGS=n: n random dialogs per version too, permission prompts and plan approval, tallied apart; COUNT=0 for dialogs alone]
#             [SHAPES=n: n screens of the fake TUI too, once: dialogs in shapes nobody picked must be named, screens that are none never]
SEED     ?= 0
COUNT    ?= 300
VERSIONS ?= $(CLAUDE_VERSIONS)
PARALLEL ?= 2
ANSWER_VIA ?= screen
GENERATION ?=
FULLSCREEN ?=
THEME ?=
VIM ?=
POINTER ?=
DIALOGS ?=
SHAPES ?=
stress:
	./scripts/install-claude.sh $(VERSIONS)
	go run ./tools/stress -seed $(SEED) -count $(COUNT) -versions "$(VERSIONS)" -parallel $(PARALLEL) -answer-via $(ANSWER_VIA) $(if $(DIALOGS),-dialogs $(DIALOGS)) $(if $(SHAPES),-shapes $(SHAPES)) \
		$(if $(GENERATION),-generation $(GENERATION)) $(if $(FULLSCREEN),-fullscreen) $(if $(THEME),-theme $(THEME)) $(if $(VIM),-vim) $(if $(POINTER),-pointer)

demo: build
	./scripts/install-claude.sh $(firstword $(CLAUDE_VERSIONS))
	CLAUDE_VERSION=$(firstword $(CLAUDE_VERSIONS)) ./scripts/demo.sh

# Your own rules file on a form of your own, offline, as make demo runs the
# demo's (scripts/try.sh): make try RULES=my.yaml
#   [FORM=form.json: a hook's tool_input, {"questions": [...]}; default testdata/forms/three.json]
#   [SCENARIO=scenario.yaml PROMPT="...": a fake API scenario of your own instead (testdata/scenarios)]
#   [RUNFLAGS="--answer-via hook": more claudewrap run flags]
RULES ?=
FORM ?=
SCENARIO ?=
PROMPT ?=
RUNFLAGS ?=
try: build
	./scripts/install-claude.sh $(firstword $(CLAUDE_VERSIONS))
	CLAUDE_VERSION=$(firstword $(CLAUDE_VERSIONS)) RULES='$(RULES)' FORM='$(FORM)' SCENARIO='$(SCENARIO)' PROMPT='$(PROMPT)' RUNFLAGS='$(RUNFLAGS)' \
		./scripts/try.sh

clean:
	rm -rf bin
