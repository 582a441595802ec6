# Thin wrapper over CMake. `make run` and `make test` install missing Debian
# packages first (scripts/deps.sh), so a fresh machine needs nothing else.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
BUILD := build
ASAN_BUILD := build-asan
FUZZ_BUILD := build-fuzz
TSAN_BUILD := build-tsan
# Seconds per fuzz harness: `make fuzz` (short, also part of `make test`);
# FUZZ_TIME=1800 make fuzz for a long session.
FUZZ_TIME ?= 10

.PHONY: docs all build-tests deps deps-fuzz test-deps run test test-release test-asan test-tsan test-fuzz clean bench fuzz install

# `make` and `make run` build the simulator alone; `make test` builds the rest.
all: $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS) rocesim

build-tests: $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

$(ASAN_BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DROCESIM_SANITIZE=ON

$(TSAN_BUILD)/Makefile: CMakeLists.txt
	CC=clang-14 cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCESIM_TSAN=ON -DROCESIM_TESTS=OFF

$(FUZZ_BUILD)/Makefile: CMakeLists.txt
	CC=clang-14 cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCESIM_FUZZ=ON -DROCESIM_TESTS=OFF

deps:
	@scripts/deps.sh

# Headless Chromium, only to check that `rocesim report --html` renders.
test-deps:
	@scripts/deps.sh test || echo "deps: chromium not installed: the HTML rendering test will be skipped" >&2

deps-fuzz:
	@scripts/deps.sh fuzz

run: deps all
	$(BUILD)/rocesim run

test: deps test-deps test-release test-asan test-tsan test-fuzz

test-release: build-tests
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-asan: $(ASAN_BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ROCESIM_SANITIZED=1 ctest --output-on-failure -j$(JOBS)

# The parallel run's threads under ThreadSanitizer (clang, as the fuzz build):
# any data race between partitions fails it (tests/cli_parallel.sh).
test-tsan: deps-fuzz $(TSAN_BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(TSAN_BUILD) -j$(JOBS) rocesim
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" tests/cli_parallel.sh $(TSAN_BUILD)/rocesim

# libFuzzer harnesses (clang, ASan+UBSan), each run FUZZ_TIME seconds on one
# core; a finding fails the target and is left in build-fuzz/findings/.
fuzz: deps-fuzz $(FUZZ_BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(FUZZ_BUILD) -j$(JOBS)
	tests/fuzz/run.sh fuzz $(FUZZ_BUILD) $(FUZZ_TIME)

test-fuzz: fuzz

bench: deps all
	bench/run

# The reference pages generated from the binary (docs/configuration.md,
# docs/schemes.md); tests/docs_generated.sh fails when they are stale.
docs: all
	scripts/gen-docs.sh $(BUILD)/rocesim

# `make install PREFIX=$HOME/.local` for a user install; puts rocesim in $(PREFIX)/bin.
install: all
	cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
