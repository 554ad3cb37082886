# pfc: make (the binary), make test, make asan, make bench, make fuzz, make install, make uninstall
CC      ?= cc
PREFIX  ?= /usr/local
CSTD    := -std=gnu11
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -pthread
LDLIBS  += -pthread -lm
BUILD   ?= build

LIB_SRC := $(wildcard base/*.c lexer/*.c parser/*.c emit/*.c ir/*.c passes/*.c estimator/*.c)
CLI_SRC := $(wildcard cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
HEADERS := $(wildcard */*.h */*.def)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps test unit golden corpus asan bench fuzz install uninstall clean realworld

# `make -j clean all`: one make would clean while it builds, and trust the
# timestamps it read before cleaning. So with clean among other goals, this
# make only cleans, then hands the other goals to a fresh make (which runs
# them, in parallel, once).
ifneq ($(and $(filter clean,$(MAKECMDGOALS)),$(filter-out clean,$(MAKECMDGOALS))),)
.NOTPARALLEL:
$(filter-out clean,$(MAKECMDGOALS)): clean
	@:
clean:
	rm -rf build build-asan build-fuzz pfc
	+$(MAKE) --no-print-directory $(filter-out clean,$(MAKECMDGOALS))
else
all: pfc

pfc: $(BUILD)/pfc
	cp $< $@

$(BUILD)/pfc: $(LIB_OBJ) $(CLI_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(filter %.o,$^) -lcmocka $(LDLIBS)

# unit tests of cli/ code link the object they test
$(BUILD)/tests/test_cache: $(BUILD)/cli/cache.o

# Debian packages the build and tests need; installs only what is missing
# (as root, or through sudo when available).
DEB_PACKAGES := gcc make libcmocka-dev libxxhash-dev python3-torch pre-commit
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		echo "installing:$$missing"; \
		$$SUDO apt-get update && $$SUDO apt-get install -y $$missing; \
	else echo "deps: all present ($(DEB_PACKAGES))"; fi

# The whole suite: unit tests, golden files, corpus round trip and agreement.
test: $(BUILD)/pfc $(UNIT_BIN)
	PFC=$(BUILD)/pfc BUILD=$(BUILD) tests/run_all.sh

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

golden: $(BUILD)/pfc
	PFC=$(BUILD)/pfc tests/run_golden.sh

corpus: $(BUILD)/pfc
	PFC=$(BUILD)/pfc tests/corpus.sh

# EST_MUTATE: mutated copies of each training script estimate_safety.sh runs.
# LeakSanitizer is on by default with ASan on Linux; said explicitly so that a
# leak on any path (malformed configs included) fails the run.
asan:
	ASAN_OPTIONS=$${ASAN_OPTIONS:+$$ASAN_OPTIONS:}detect_leaks=1 EST_MUTATE=$${EST_MUTATE:-20} $(MAKE) test BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined"

# The real-world corpus (tests/realworld/manifest.txt), scored against the
# reviewed verdicts; not part of make test (the corpus is never committed).
realworld: $(BUILD)/pfc
	PFC=$(CURDIR)/$(BUILD)/pfc tests/realworld/run.sh
	PFC=$(CURDIR)/$(BUILD)/pfc tests/realworld/fix_check.sh

bench: $(BUILD)/pfc
	PFC=$(BUILD)/pfc tests/bench.sh

FUZZ_TIME ?= 60
fuzz:
	@mkdir -p build-fuzz/corpus tests/fuzz/corpus
	clang $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -o build-fuzz/fuzz_parse \
		tests/fuzz/fuzz_parse.c $(LIB_SRC)
	build-fuzz/fuzz_parse -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=5 \
		build-fuzz/corpus tests/fuzz/corpus tests/cases/parse tests/cases/errors tests/cases/gating \
		tests/cases/rules/TG001 tests/cases/rules/TG002 tests/cases/rules/TG003 \
		tests/cases/rules/TG004 tests/cases/rules/TG005 tests/cases/rules/TG006 \
		tests/cases/rules/TG304 tests/cases/ir \
		tests/cases/rules/TG101 tests/cases/rules/TG102 tests/cases/rules/TG103 \
		tests/cases/rules/TG104 tests/cases/rules/TG105 tests/cases/rules/TG106 tests/cases/rules/TG302

# The binary, the man page and, when the tree holds it, the audit package
# (Python, run by pfc from $(PREFIX)/lib/pfc/python). DESTDIR stages a package.
AUDIT_PKG  ?= audit/pfc_audit
AUDIT_DEST := $(DESTDIR)$(PREFIX)/lib/pfc/python/pfc_audit
install: $(BUILD)/pfc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/pfc $(DESTDIR)$(PREFIX)/bin/pfc
	install -m 644 docs/pfc.1 $(DESTDIR)$(PREFIX)/share/man/man1/pfc.1
	@if [ -d "$(AUDIT_PKG)" ]; then \
		echo "install $(AUDIT_PKG) -> $(AUDIT_DEST)"; \
		(cd "$(AUDIT_PKG)" && find . -name __pycache__ -prune -o -type f ! -name '*.pyc' -print) | \
		while read -r f; do install -D -m 644 "$(AUDIT_PKG)/$$f" "$(AUDIT_DEST)/$$f" || exit 1; done; \
	fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pfc $(DESTDIR)$(PREFIX)/share/man/man1/pfc.1
	rm -rf $(AUDIT_DEST)
	@rmdir $(DESTDIR)$(PREFIX)/lib/pfc/python $(DESTDIR)$(PREFIX)/lib/pfc 2>/dev/null || true

clean:
	rm -rf build build-asan build-fuzz pfc

# docs/pfc.1 and docs/rules/*.md, from the texts pfc prints (tests/cli.sh checks them)
.PHONY: docs
docs: $(BUILD)/pfc
	docs/generate.sh $(BUILD)/pfc docs
endif
