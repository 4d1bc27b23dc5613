# SPDX-License-Identifier: GPL-2.0-or-later
# Wraps CMake so that the README's two commands work on a fresh Debian 12 machine as root:
#   make run ARGS='...'   install what is missing, build Release, run perftop
#   make test             same setup, then the whole test suite through ctest
#   make install          build, then install under PREFIX (/usr/local), into DESTDIR if given
#   make uninstall        remove what the last make install put (its list: BUILD/installed.txt)
#   make deb              build, then the Debian package BUILD/perftop_VERSION_ARCH.deb (CPack)
# Packages are installed only when missing (dpkg -s), so a second run does no apt work.

BUILD     ?= build
BUILD_TYPE ?= Release
JOBS      ?= $(shell nproc)
PREFIX    ?= /usr/local
DESTDIR   ?=
INSTALLED ?= $(BUILD)/installed.txt
PACKAGES  := cmake make gcc pkg-config libdw-dev libelf-dev libncurses-dev libunwind-dev \
             libzstd-dev libcapstone-dev tmux python3 python3.11 python3.11-dbg linux-perf procps bc \
             libiberty-dev libdebuginfod-dev elfutils g++ binutils time nodejs util-linux libc6-dbg \
             libcurl4-openssl-dev zlib1g-dev libcap-ng-dev golang-go golang-github-google-pprof-dev python3-jsonschema \
             bash-completion zsh man-db groff-base dpkg-dev file gzip debuginfod clang rustc \
             openjdk-17-jdk-headless
# npm packages the tests read (installed globally when missing, with the machine's npm, or
# Debian's where there is none): speedscope's published file-format schema, which the export
# tests validate against.
NPM_PACKAGES := speedscope@1.25.0

.PHONY: all deps build run test clean bench install uninstall deb install-built deb-built

all: build

deps:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "error: missing packages:$$missing (run as root, or install them)"; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@command -v npm >/dev/null || { echo "installing: npm"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	@root=$$(npm root -g 2>/dev/null); for p in $(NPM_PACKAGES); do \
	  [ -d "$$root/$${p%@*}" ] || { echo "npm installing: $$p"; npm install -g -s $$p >/dev/null || exit 1; }; \
	done

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/perftop $(ARGS)

# The sanitizer variants (ASan+UBSan of every unit test, TSan of the thread boundary) are built in the
# same tree, so one ctest run covers them.
test: build
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 300

# cmake's install_manifest.txt has the paths without DESTDIR: the list make uninstall removes
# (INSTALLED) has them as they were written.
# install-built and deb-built do the same without building first (the tests run them on their tree).
install: build
	@$(MAKE) --no-print-directory install-built

install-built:
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@sed 's|^|$(DESTDIR)|' $(BUILD)/install_manifest.txt > $(INSTALLED)

# The doc directory (and its docs/) is perftop's own: it goes too once empty.
uninstall:
	@test -f $(INSTALLED) || { echo "nothing to uninstall: no $(INSTALLED)"; exit 1; }
	xargs -r -d '\n' rm -f -- < $(INSTALLED)
	@sed -n 's|/README.md$$||p' $(INSTALLED) | xargs -r -d '\n' -I{} rmdir --ignore-fail-on-non-empty -- {}/docs {}
	@rm -f $(INSTALLED)

deb: build
	@$(MAKE) --no-print-directory deb-built

deb-built:
	cd $(BUILD) && cpack -G DEB --config CPackConfig.cmake
	@ls $(BUILD)/perftop_*.deb

bench: build
	bash bench/run.sh

clean:
	rm -rf $(BUILD)
