# essence2 — build, test, demo, bench, install.  `make help` lists the targets.
PREFIX   ?= /usr/local
SWIFT    ?= swift
CC       ?= cc
REL      := .build/release
LIB      := $(REL)/libessence2.so
OUT      := build
CLI      := $(OUT)/essence2
CFLAGS   ?= -O2 -g
CWARN    := -std=c11 -Wall -Wextra -Werror -Iinclude
LINKLIB  := -L$(REL) -lessence2 -Wl,-rpath,$(abspath $(REL))
DEB_PKGS := libsndfile1-dev libsamplerate0-dev libjpeg62-turbo-dev libpng-dev pkg-config ffmpeg
EXAMPLES := $(OUT)/minimal_loop $(OUT)/render_file $(OUT)/plugin_host
CTESTS   := $(OUT)/test_abi $(OUT)/test_abi_asan
SWIFT_SOURCES := $(shell find Sources -name '*.swift' -o -name '*.map' -o -name '*.modulemap' -o -name '*.h') Package.swift

.PHONY: all deps build examples test test-swift test-c test-cli test-install demo bench install uninstall clean help

all: build examples

help:
	@echo "make            release build: $(LIB), $(CLI), examples in $(OUT)/"
	@echo "make demo       render the sample avatar speaking to out/demo.mp4"
	@echo "make test       Swift tests, C tests of the ABI (also under AddressSanitizer), examples, the command"
	@echo "make bench      speed and memory figures"
	@echo "make install    PREFIX=$(PREFIX): library, header, essence2.pc, the essence2 command"
	@echo "make deps       install the Debian packages the build needs (as root)"

# Installs what is missing; quiet and quick when everything is there.
deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: $(LIB) $(CLI)

$(LIB) $(REL)/essence2-cli &: $(SWIFT_SOURCES)
	$(SWIFT) build -c release
	@touch $(LIB) $(REL)/essence2-cli

$(CLI): $(REL)/essence2-cli
	@mkdir -p $(@D)
	cp $< $@

examples: $(EXAMPLES)

$(OUT)/minimal_loop: examples/minimal_loop.c include/essence2.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $< -o $@ $(LINKLIB) $$(pkg-config --cflags --libs sndfile)

$(OUT)/render_file: examples/render_file.c include/essence2.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $< -o $@ $(LINKLIB) $$(pkg-config --cflags --libs sndfile)

$(OUT)/plugin_host: examples/plugin_host.c include/essence2.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) $< -o $@ -ldl

$(OUT)/test_abi: tests/c/test_abi.c tests/c/*.h include/essence2.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CWARN) -pthread $< -o $@ $(LINKLIB)

$(OUT)/test_abi_asan: tests/c/test_abi.c tests/c/*.h include/essence2.h $(LIB)
	@mkdir -p $(@D)
	$(CC) -O1 -g -fsanitize=address -fno-omit-frame-pointer $(CWARN) -pthread $< -o $@ $(LINKLIB)

test: deps test-swift test-c test-cli test-install

test-swift:
	$(SWIFT) test

test-c: all $(CTESTS)
	tests/c/run.sh

test-cli: build
	tests/cli/run.sh $(CLI)

test-install: build
	tests/install/run.sh

demo: deps build
	@mkdir -p out
	$(CLI) render examples/audio/demo.wav --avatar avatars/grace-hopper.imx -o out/demo.mp4
	@echo "demo: $(abspath out/demo.mp4)"

bench: deps build
	$(CLI) bench --avatar avatars/grace-hopper.imx

install: build
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/essence2/avatars
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libessence2.so
	install -m 0644 include/essence2.h $(DESTDIR)$(PREFIX)/include/essence2.h
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: essence2\nDescription: on-device talking-avatar engine\nVersion: 1.0.0\nLibs: -L$${libdir} -lessence2\nCflags: -I$${includedir}\n' \
	  "$(PREFIX)" > $(DESTDIR)$(PREFIX)/lib/pkgconfig/essence2.pc
	install -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/essence2
	install -m 0644 avatars/*.imx $(DESTDIR)$(PREFIX)/share/essence2/avatars/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libessence2.so $(DESTDIR)$(PREFIX)/include/essence2.h \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/essence2.pc $(DESTDIR)$(PREFIX)/bin/essence2
	rm -rf $(DESTDIR)$(PREFIX)/share/essence2

clean:
	rm -rf .build $(OUT) out
