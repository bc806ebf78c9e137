# Thin wrapper around CMake. `make demo` and `make test` install missing Debian
# packages first (scripts/setup.sh, needs root); plain CMake works without it.
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 10

.PHONY: all setup configure build test unit e2e fuzz demo bench clean

all: build

setup:
	bash scripts/setup.sh

configure:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: setup build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory fuzz

# End-to-end tests only: simulated fabrics (ibsim + OpenSM + infiniband-diags).
e2e: setup build
	cd $(BUILD) && ctest -L e2e --output-on-failure -j $(JOBS)

fuzz:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCANOPY_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh $(FUZZ_BUILD)/bin

# The demo builds only the tools it runs (demo_tools), not the test suite.
demo: setup configure
	cmake --build $(BUILD) -j $(JOBS) --target demo_tools
	bash scripts/demo.sh $(BUILD)

bench: build
	bash bench/topology_load.sh $(BUILD)
	bash bench/service_load.sh $(BUILD)
	if [ -x $(BUILD)/bin/canopy-bench ]; then bash bench/collectives.sh $(BUILD); fi

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
