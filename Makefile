# kbmc — `make demo` checks a bundled example, `make test` runs every test.
GO       ?= go
# Fuzz budgets are execution counts, not durations: Go 1.26's fuzz coordinator can
# fail a clean duration-bounded run with a bare "context deadline exceeded"
# (golang/go#75804, fixed in Go 1.27). The counts give about 20 s per target here,
# and a few seconds for each of kbmc detect's readers.
FUZZ_PARSE   ?= 800000x
FUZZ_COMPILE ?= 400000x
FUZZ_DETECT  ?= 30000x
FUZZ_C       ?= 30000x
# Each Go input runs the go tool (go/packages): a few per second at most.
FUZZ_GO      ?= 40x
KBMC     := bin/kbmc

.PHONY: all deps build demo test fmt-check vet unit race purego fuzz regress deploy-test bench pgo stress clean

all: build

deps:
	@scripts/deps

build: deps
	$(GO) build -o $(KBMC) ./cmd/kbmc

# The main job on bundled examples: a lost update found, with its trace (kbmc
# exits 10 for "unsafe", as CBMC does: expected here, so not an error of make),
# a correct program proved safe, and a spin lock whose busy-wait makes it
# bounded-safe, with the explanation.
demo: build
	@echo '$$ kbmc check testdata/racy-increment.kb'
	@$(KBMC) check testdata/racy-increment.kb; code=$$?; \
	if [ $$code -eq 10 ]; then echo "(exit code 10: unsafe, as expected: the trace above shows the lost update)"; \
	else echo "unexpected exit code $$code"; exit 1; fi
	@echo; echo '$$ kbmc check testdata/atomic-increment.kb'
	@$(KBMC) check testdata/atomic-increment.kb
	@echo; echo '$$ kbmc check docs/examples/ticket-lock.kb'
	@$(KBMC) check docs/examples/ticket-lock.kb

test: deps fmt-check vet unit race purego fuzz regress deploy-test

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# go test's own -timeout (10 minutes a package by default) is the hang limit of
# every package's tests, and only that: on a machine busy with other work the
# explicit engine's tests alone take over 8 minutes.
TEST_TIMEOUT ?= 2h

unit:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

# The parallel searches share one outcome between workers, their tables, and
# (dpor, bpor) the states above the work they steal: run them under the race
# detector (a few hundred generated programs), and the tests that hammer the
# shared tables and the stealing.
race:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./explicit/ -run 'TestDifferential/[a-z-]+/(workers|stateful|shards=3)' -diff.seeds=300
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./explicit/ -run 'TestSharedVisited|TestPersistentSharedTables'
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) -short ./explicit/ -run 'TestStealing'

# Everything must also build without cgo (gini only; asking for Z3 says why not),
# and the solver tests must pass there too (the z3 ones report themselves skipped),
# as must LazyPOR's trace-constraint solvers (--tcs-solver z3 must say why not).
purego:
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) test -count=1 ./solver/...
	CGO_ENABLED=0 $(GO) test -count=1 -run 'TCSSolver|SolverIndependent' ./explicit/

fuzz:
	$(GO) test ./lang/syntax -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZ_PARSE)
	$(GO) test ./lang -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZ_COMPILE)
	$(GO) test ./cfront -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZ_C)
	$(GO) test ./gofront -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZ_GO)
	$(GO) test ./detect -run '^$$' -fuzz '^FuzzReadJSON$$' -fuzztime $(FUZZ_DETECT)
	$(GO) test ./detect -run '^$$' -fuzz '^FuzzReadGoVector$$' -fuzztime $(FUZZ_DETECT)
	$(GO) test ./detect -run '^$$' -fuzz '^FuzzReadShiViz$$' -fuzztime $(FUZZ_DETECT)
	$(GO) test ./detect -run '^$$' -fuzz '^FuzzPredicate$$' -fuzztime $(FUZZ_DETECT)
	$(GO) test ./witness -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZ_DETECT)

regress: build
	$(KBMC) regress testdata testdata/go docs/examples

# The scheduler entry point of deploy/, run as the schedulers run it, 8 parts.
deploy-test: build
	deploy/test-local.sh $(KBMC)

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./explicit/

# Refreshes cmd/kbmc/default.pgo, the CPU profile `go build` optimises kbmc with
# (profile-guided optimisation; scripts/pgo-profile says what it profiles).
pgo:
	GO=$(GO) scripts/pgo-profile

# The long stress suite (docs/limits.md): every engine on every stress program
# (1,024 threads, a deep loop, a nondet over 10^8 values, a 10^5-element array)
# with a 5 s limit, each in a kbmc process of its own; minutes. `make test` runs
# its short form (each engine once) within the unit tests.
stress:
	$(GO) test -count=1 -timeout 60m -run 'TestStress' ./cmd/kbmc -stress -v

clean:
	rm -rf bin
