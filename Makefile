# fgit — build, test, install.  `make`, `make test`, `make install PREFIX=...`
CC      ?= cc
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Iinclude -Ilib -D_FILE_OFFSET_BITS=64 -pthread
LDLIBS  += -ldeflate -lz -lcrypto -lpthread
PREFIX  ?= /usr/local
DESTDIR ?=

LIB_SRC  := $(sort $(shell find lib -name '*.c'))
LIB_OBJ  := $(LIB_SRC:%.c=build/%.o)
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=build/%.o)
UNIT_SRC := $(sort $(shell find tests/unit -name '*.c'))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
DEPS_OK  := build/.deps-ok

all: fgit libfgit.a

# Debian packages we link against; installed when missing and we are root.
$(DEPS_OK):
	@sh tools/ensure-deps.sh
	@mkdir -p build && touch $@

build/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

libfgit.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

fgit: $(CLI_OBJ) libfgit.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) libfgit.a $(LDLIBS)

build/tests/%: tests/unit/%.c tests/unit/unit.h libfgit.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< libfgit.a $(LDLIBS)

unit: $(UNIT_BIN)

test: all $(UNIT_BIN)
	@sh tests/run-all.sh

# ThreadSanitizer build of the concurrency unit tests.
tsan:
	$(MAKE) -s clean-objs
	$(MAKE) CFLAGS="-O1 -g -fsanitize=thread" unit
	@sh tests/run-unit.sh tsan
	$(MAKE) -s clean-objs

clean-objs:
	rm -rf build/lib build/cli build/tests libfgit.a fgit

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

demo: all
	@sh bench/demo.sh

.PHONY: all unit test tsan clean clean-objs install demo
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# SHA-1 throughput benchmark (bench/RESULTS-hash.md): `make bench-hash`,
# BENCH_MIB / BENCH_RUNS to change the buffer size and repetitions.
BENCH_MIB  ?= 1024
BENCH_RUNS ?= 5
build/bench/sha1bench: bench/hash/sha1bench.c libfgit.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< libfgit.a $(LDLIBS)

bench-hash: build/bench/sha1bench
	./build/bench/sha1bench $(BENCH_MIB) $(BENCH_RUNS)

.PHONY: bench-hash
