# fgit — build, test, install.  `make`, `make test`, `make install PREFIX=...`
CC      ?= cc
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Iinclude -Ilib -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread
override LDLIBS += -ldeflate -lz -lcrypto -lpcre2-8 -lpthread
PREFIX  ?= /usr/local
DESTDIR ?=

B        ?= build
LIBA     ?= libfgit.a
LIB_SRC  := $(sort $(shell find lib -name '*.c'))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(sort $(shell find tests/unit -name '*.c'))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(B)/tools/%)
DEPS_OK  := build/.deps-ok

all: fgit libfgit.a

# Debian packages we link against; installed when missing and we are root.
$(DEPS_OK):
	@sh tools/ensure-deps.sh
	@mkdir -p build && touch $@

$(B)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The command table: every CLI_CMD(name) defined in cli/cmd_*.c, generated
# so that adding a command touches no shared file.
$(B)/gen/commands.h: $(wildcard cli/cmd_*.c) Makefile
	@mkdir -p $(dir $@)
	@{ echo '#define FGIT_COMMANDS(X) \\'; \
	  sed -n 's/^CLI_CMD(\([a-z0-9_]*\))$$/\1/p' $(sort $(wildcard cli/cmd_*.c)) | sort | \
	  while read id; do \
		printf '\tX("%s", %s) \\\n' "$$(echo $$id | tr _ -)" "$$id"; \
	  done; echo; } >$@.tmp && mv $@.tmp $@

$(B)/cli/main.o: $(B)/gen/commands.h
$(B)/cli/main.o: override CFLAGS += -I$(B)/gen

$(LIBA): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

fgit: $(CLI_OBJ) $(LIBA)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/unit.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LIBA) $(LDLIBS)

$(B)/tools/%: tests/tools/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LIBA) $(LDLIBS)

unit: $(UNIT_BIN)
unit-mt: $(filter %_mt,$(UNIT_BIN))

test: all $(UNIT_BIN) $(TOOL_BIN) tsan-build
	@sh tests/run-all.sh

# ThreadSanitizer build of the concurrency unit tests (*_mt.c), kept apart
# in build/tsan so it never mixes with the normal objects; only the *_mt
# programs, the only ones run under it.
tsan-build:
	@$(MAKE) -s B=build/tsan LIBA=build/tsan/libfgit.a CFLAGS="-O1 -g -fsanitize=thread" unit-mt

tsan: tsan-build
	@sh tests/run-unit.sh tsan build/tsan/tests

# libFuzzer targets, one per parser (tests/fuzz/*.c), built with clang and
# ASan/UBSan into build/fuzz from the library sources they exercise;
# `make fuzz-run FUZZ_TIME=60` runs each for that many seconds.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_LIB := $(sort $(wildcard lib/object/*.c)) lib/odb/delta.c lib/util/buf.c lib/util/error.c
FUZZ_TIME ?= 30
fuzz:
	@mkdir -p build/fuzz
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
		clang -O1 -g -fsanitize=address,undefined,fuzzer -std=gnu11 -Iinclude -Ilib \
		-D_GNU_SOURCE -o build/fuzz/fuzz-$$n $$f $(FUZZ_LIB) $(LDLIBS) || exit 1; done

fuzz-run: fuzz
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); mkdir -p build/fuzz/corpus-$$n; \
		build/fuzz/fuzz-$$n -max_total_time=$(FUZZ_TIME) build/fuzz/corpus-$$n || exit 1; done

clean:
	rm -rf build libfgit.a fgit

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/fgit $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 fgit $(DESTDIR)$(PREFIX)/bin/fgit
	install -m 644 libfgit.a $(DESTDIR)$(PREFIX)/lib/libfgit.a
	install -m 644 include/fgit/*.h $(DESTDIR)$(PREFIX)/include/fgit/
	sed -e 's|@PREFIX@|$(PREFIX)|g' tools/fgit.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/fgit.pc

# Micro-benchmarks (not part of `make test`): build/bench/<name>.
BENCH_SRC := $(sort $(wildcard bench/micro/*.c))
BENCH_BIN := $(BENCH_SRC:bench/micro/%.c=build/bench/%)
build/bench/%: bench/micro/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

bench-micro: $(BENCH_BIN)

demo: all
	@sh bench/demo.sh

# fgit against git on the bench corpora (bench/README.md); corpora are built
# on first use and cached in /var/tmp/fgit-bench.  `make bench CASES=cat-file`
bench: all
	@bench/run $(CASES)

.PHONY: fuzz fuzz-run all unit unit-mt test tsan tsan-build clean install demo bench bench-micro
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# SHA-1 throughput benchmark (bench/RESULTS-hash.md): `make bench-hash`,
# BENCH_MIB / BENCH_RUNS to change the buffer size and repetitions.
BENCH_MIB  ?= 1024
BENCH_RUNS ?= 5
build/bench/sha1bench: bench/hash/sha1bench.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

bench-hash: build/bench/sha1bench
	./build/bench/sha1bench $(BENCH_MIB) $(BENCH_RUNS)

.PHONY: bench-hash
