# SPDX-License-Identifier: MIT
# testbed: one non-recursive build. Objects under build/, quiet unless V=1.
# Targets: all check check-priv bench reproduce validate demo test smoke soak fuzz install
# uninstall clean deps format format-check help

PREFIX ?= /usr/local
PKG_CONFIG ?= pkg-config
CC ?= gcc
CFLAGS ?= -O2 -g

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition \
	-Wformat=2 -Wshadow -Wvla -Wpointer-arith -Wno-format-nonliteral
override CFLAGS += -std=gnu11 -D_GNU_SOURCE -MMD -MP -fno-common -I. $(WARN)
ifneq ($(WERROR),0)
override CFLAGS += -Werror
endif
ifeq ($(SANITIZE),1)
override CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=address,undefined
BUILD ?= build/san
else
BUILD ?= build
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Pure layers: no syscalls beyond memory, shared by both backends and the tests.
# Sources are found under each folder recursively (find: a subfolder is never skipped).
src_in = $(shell find $(1) -name '*.c' 2>/dev/null | LC_ALL=C sort)
PURE_DIRS := lib model policy traffic collect sim
PURE_SRC := $(call src_in,$(PURE_DIRS))
PURE_OBJ := $(PURE_SRC:%.c=$(BUILD)/obj/%.o)
PURE_LIB := $(BUILD)/libpure.a
# Chakra's trace messages (traffic/chakra/): C that protoc-c makes from the .proto into
# $(BUILD)/gen/, compiled into the pure library; every object waits for its headers.
GEN_PROTO := $(shell find traffic -name '*.proto' | LC_ALL=C sort)
GEN_SRC := $(GEN_PROTO:%.proto=$(BUILD)/gen/%.pb-c.c)
GEN_HDR := $(GEN_SRC:.c=.h)
PURE_OBJ += $(GEN_SRC:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
override CFLAGS += -I$(BUILD)/gen

ORCH_PKGS := libnl-3.0 libnl-route-3.0 libmnl libnftnl yaml-0.1 jansson libprotobuf-c
ORCH_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(ORCH_PKGS) 2>/dev/null)
ORCH_LIBS = $(shell $(PKG_CONFIG) --libs $(ORCH_PKGS) 2>/dev/null) -lm
# The orchestration layers (docs/architecture.md): what `testbed` is made of besides the pure ones.
ORCH_DIRS := cli scenario kernel fabric run sample report doctor
ORCH_SRC := $(filter-out cli/main.c,$(call src_in,$(ORCH_DIRS)))
ORCH_OBJ := $(ORCH_SRC:%.c=$(BUILD)/obj/%.o)
ORCH_LIB := $(BUILD)/liborch.a

NODE_SRC := $(wildcard emu-node/*.c)
NODE_OBJ := $(NODE_SRC:%.c=$(BUILD)/obj/%.o)
# emu-node but main: the unit tests link its pure parts (verify, msg) from here
NODE_LIB := $(BUILD)/libnode.a

# unit tests in tests/unit/<layer>/test_*.c, each its own binary build/tests/test_*; the
# helpers they share in tests/unit/ itself
UNIT_SRC := $(shell find tests/unit -name 'test_*.c' | LC_ALL=C sort)
UNIT_BIN := $(addprefix $(BUILD)/tests/,$(notdir $(UNIT_SRC:.c=)))
UNIT_HELP := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
UNIT_HELP_OBJ := $(UNIT_HELP:%.c=$(BUILD)/obj/%.o)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)

BINS := $(BUILD)/testbed $(if $(NODE_SRC),$(BUILD)/emu-node)
MAN := $(BUILD)/testbed.8 $(BUILD)/testbed-scenario.5
VERSION := $(shell sed -n 's/^\#define TB_VERSION "\([^"]*\)".*/\1/p' cli/main.c)

.PHONY: all check check-priv bench reproduce validate demo test smoke soak install uninstall clean deps format format-check help fuzz
all: $(BINS) $(TOOL_BIN) $(MAN)

$(foreach d,$(ORCH_DIRS),$(BUILD)/obj/$(d)/%.o): override CFLAGS += $(ORCH_CFLAGS)
$(BUILD)/obj/tests/unit/%.o: override CFLAGS += $(ORCH_CFLAGS)
$(BUILD)/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo '  CC      $<')
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: %.proto
	@mkdir -p $(BUILD)/gen
	$(if $(Q),@echo '  PROTOC  $<')
	$(Q)protoc-c --proto_path=. --c_out=$(BUILD)/gen $<
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo '  CC      $<')
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(PURE_LIB): $(PURE_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^
$(ORCH_LIB): $(ORCH_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/testbed: $(BUILD)/obj/cli/main.o $(ORCH_LIB) $(PURE_LIB)
	$(if $(Q),@echo '  LD      $@')
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(ORCH_LIBS)

$(BUILD)/obj/emu-node/%.o: override CFLAGS += $(shell $(PKG_CONFIG) --cflags liburing 2>/dev/null)
$(NODE_LIB): $(filter-out $(BUILD)/obj/emu-node/main.o,$(NODE_OBJ))
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/emu-node: $(BUILD)/obj/emu-node/main.o $(NODE_LIB) $(PURE_LIB)
	$(if $(Q),@echo '  LD      $@')
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs liburing libprotobuf-c 2>/dev/null) -lm

# each test's object first, then what it links against (static libraries after their users)
define unit_rule
$(BUILD)/tests/$(notdir $(1:.c=)): $(BUILD)/obj/$(1:.c=.o) $(UNIT_HELP_OBJ) $(NODE_LIB) $(ORCH_LIB) $(PURE_LIB)
endef
$(foreach t,$(UNIT_SRC),$(eval $(call unit_rule,$(t))))
$(UNIT_BIN):
	@mkdir -p $(dir $@)
	$(if $(Q),@echo '  LD      $@')
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(ORCH_LIBS) -lcmocka

# the fuzzers' regression inputs, read for the jobs fuzz_msccl reads them for
$(BUILD)/tests/test_fuzz_regress: $(BUILD)/obj/tests/fuzz/msccl_job.o

# the unit tests' JSON Schema validator, for results folders made by integration tests
$(BUILD)/tools/schema_check: $(BUILD)/obj/tests/unit/json_schema.o
$(BUILD)/tools/%: tests/tools/%.c $(ORCH_LIB) $(PURE_LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo '  LD      $@')
	$(Q)$(CC) $(CFLAGS) $(ORCH_CFLAGS) $(LDFLAGS) -o $@ $^ $(ORCH_LIBS) -lpthread

# Set-up: installs missing Debian packages (as root directly, else through sudo).
deps:
	$(Q)scripts/deps

check: $(UNIT_BIN)
	$(Q)scripts/run-unit $(UNIT_BIN)

# libFuzzer on the scenario parser, the trace reader, the MSCCL XML reader and the Chakra
# trace reader (clang and its
# runtimes: `scripts/deps fuzz` adds Debian's clang and libclang-rt-dev); FUZZ_SECONDS bounds
# each. First every file of tests/fuzz/regress/<target>/ (inputs that once crashed it) runs
# through its target once.
FUZZ_SECONDS ?= 60
FUZZ_CC := clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I. -Ibuild/gen
# the pure layers' generated C, as the default build makes it
FUZZ_GEN := $(GEN_PROTO:%.proto=build/gen/%.pb-c.c)
FUZZ_SRC := tests/fuzz/fuzz_scenario.c scenario/scenario_yaml.c scenario/scenario_yaml_types.c scenario/scenario_sweep.c \
	scenario/sweep_names.c scenario/scenario_yaml_topo.c scenario/scenario_yaml_net.c \
	scenario/scenario_yaml_trace.c scenario/experiment.c scenario/input.c $(PURE_SRC) $(FUZZ_GEN)
FUZZ_REGRESS = $(wildcard tests/fuzz/regress/$(1)/*)
# build/fuzz_<target> once over each regression file of <target> (none: nothing to run)
fuzz_regress = $(if $(call FUZZ_REGRESS,$(1)),build/fuzz_$(1) $(call FUZZ_REGRESS,$(1)))
# a crash is written to build/fuzz-crash-<target>-<sha1>: to be fixed and moved to regress/
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	-artifact_prefix=build/fuzz-crash-$(1)-
fuzz: $(FUZZ_GEN)
	$(Q)scripts/deps fuzz
	@mkdir -p build/fuzz-corpus build/fuzz-trace-corpus build/fuzz-msccl-corpus \
		build/fuzz-chakra-corpus build/fuzz-btf-corpus
	$(FUZZ_CC) $(FUZZ_SRC) -lyaml -ljansson -lprotobuf-c -lm -o build/fuzz_scenario
	$(FUZZ_CC) tests/fuzz/fuzz_trace.c $(PURE_SRC) $(FUZZ_GEN) -ljansson -lprotobuf-c -lm \
		-o build/fuzz_trace
	$(FUZZ_CC) tests/fuzz/fuzz_msccl.c tests/fuzz/msccl_job.c $(PURE_SRC) $(FUZZ_GEN) \
		-ljansson -lprotobuf-c -lm -o build/fuzz_msccl
	$(FUZZ_CC) tests/fuzz/fuzz_chakra.c $(PURE_SRC) $(FUZZ_GEN) -ljansson -lprotobuf-c -lm \
		-o build/fuzz_chakra
	$(FUZZ_CC) tests/fuzz/fuzz_btf.c kernel/kbtf.c kernel/qstat_prog.c lib/diag.c \
		-o build/fuzz_btf
	$(call fuzz_regress,scenario)
	$(call fuzz_regress,trace)
	$(call fuzz_regress,msccl)
	$(call fuzz_regress,chakra)
	$(call fuzz_regress,btf)
	build/fuzz_scenario $(call FUZZ_RUN,scenario) -dict=tests/fuzz/scenario.dict -max_len=4096 \
		build/fuzz-corpus scenarios tests/fixtures/bad
	build/fuzz_trace $(call FUZZ_RUN,trace) -max_len=4096 build/fuzz-trace-corpus scenarios/traces \
		tests/fixtures/traces
	build/fuzz_msccl $(call FUZZ_RUN,msccl) -dict=tests/fuzz/msccl.dict -max_len=16384 \
		build/fuzz-msccl-corpus scenarios/msccl tests/fixtures/msccl tests/fuzz/seeds/msccl
	build/fuzz_chakra $(call FUZZ_RUN,chakra) -max_len=8192 build/fuzz-chakra-corpus \
		$(sort $(dir $(shell find scenarios/chakra -name '*.et')))
	build/fuzz_btf $(call FUZZ_RUN,btf) -max_len=4096 build/fuzz-btf-corpus tests/fuzz/seeds/btf

check-priv: all
	$(Q)scripts/as-root tests/integration/run.sh $(BUILD)

bench: all
	$(Q)scripts/as-root tests/bench/run.sh $(BUILD)

# Each paper's reproduction scenarios, and report.md (QUICK=1: the ten-minute subset;
# PAPERS="themis tacos": only those).
reproduce: all
	$(Q)scripts/as-root $(BUILD)/testbed reproduce $(if $(QUICK),--quick) $(PAPERS)

# Each small scenario on both backends (emulation, virtual time), compared.
validate: all
	$(Q)scripts/as-root tests/validate/run.sh $(BUILD)

# The set-up targets build on every core (the build is one non-recursive graph); a make -jN
# of your own still wins.
SETUP_JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

demo: deps
	$(Q)$(MAKE) --no-print-directory $(SETUP_JOBS) all
	$(Q)scripts/as-root scripts/demo $(BUILD)

test: deps
	$(Q)$(MAKE) --no-print-directory $(SETUP_JOBS) all
	$(Q)$(MAKE) --no-print-directory $(SETUP_JOBS) check
	$(Q)$(MAKE) --no-print-directory check-priv

# Under two minutes: every scenario checked, the quickstart at one iteration emulated and in
# virtual time, nothing left behind. The container image's default command (Containerfile).
smoke: deps
	$(Q)$(MAKE) --no-print-directory $(SETUP_JOBS) all
	$(Q)scripts/as-root scripts/smoke $(BUILD)

# About eight minutes: the quickstart at one iteration up and down 50 times, then 20 runs killed
# at random moments and removed by `down`; nothing may be left or pile up (scripts/soak).
# SOAK_SEED=N replays the kill moments of an earlier soak.
soak: deps
	$(Q)$(MAKE) --no-print-directory $(SETUP_JOBS) all
	$(Q)scripts/as-root scripts/soak $(BUILD)

# Man pages: hand-written roff with the prefix and release filled in (`man -l build/testbed.8`).
# The stamp changes only when they do, so `make PREFIX=...` rewrites the pages.
MAN_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g'
$(BUILD)/man.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PREFIX) $(VERSION)' | cmp -s - $@ || echo '$(PREFIX) $(VERSION)' >$@
$(MAN): $(BUILD)/%: man/% $(BUILD)/man.stamp
	$(if $(Q),@echo '  MAN     $@')
	$(Q)$(MAN_SED) $< >$@
FORCE:

# Installed layout. testbed finds emu-node in ../libexec/testbed/ from its own directory
# (run/emu/emu_find.c), so the two stay siblings under one PREFIX. install writes nothing
# under $(BUILD) once the binaries are built (it is often run as root): the man pages are
# filled in straight into their place.
BINDIR := $(PREFIX)/bin
LIBEXECDIR := $(PREFIX)/libexec/testbed
DATADIR := $(PREFIX)/share/testbed
DOCDIR := $(PREFIX)/share/doc/testbed
MANDIR := $(PREFIX)/share/man
COMPDIR := $(PREFIX)/share/bash-completion/completions
# scenarios/ keeps its subfolders: a scenario names a trace or MSCCL file relative to the
# working directory (scenarios/traces/...), so they resolve from $(DATADIR) as from the tree.
SCEN_FILES := $(shell find scenarios -type f | LC_ALL=C sort)
SCEN_DIRS := $(shell find scenarios -mindepth 1 -type d | LC_ALL=C sort -r)
DOC_TOP := README.md LICENSE
DOC_FILES := $(shell find docs -type f | LC_ALL=C sort)
DOC_DIRS := $(shell find docs -mindepth 1 -type d | LC_ALL=C sort -r)

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPDIR) $(DESTDIR)$(DOCDIR)/docs
	install -m 755 $(BUILD)/testbed $(DESTDIR)$(BINDIR)/testbed
	install -m 755 $(BUILD)/emu-node $(DESTDIR)$(LIBEXECDIR)/emu-node
	$(MAN_SED) man/testbed.8 >$(DESTDIR)$(MANDIR)/man8/testbed.8
	$(MAN_SED) man/testbed-scenario.5 >$(DESTDIR)$(MANDIR)/man5/testbed-scenario.5
	chmod 644 $(DESTDIR)$(MANDIR)/man8/testbed.8 $(DESTDIR)$(MANDIR)/man5/testbed-scenario.5
	install -m 644 contrib/bash-completion/testbed $(DESTDIR)$(COMPDIR)/testbed
	install -m 644 $(DOC_TOP) $(DESTDIR)$(DOCDIR)/
	$(Q)for f in $(DOC_FILES); do install -D -m 644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done
	$(Q)for f in $(SCEN_FILES); do install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done

# Removes what install put (and the folders only it uses, once empty).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/testbed $(DESTDIR)$(LIBEXECDIR)/emu-node \
		$(DESTDIR)$(MANDIR)/man8/testbed.8 $(DESTDIR)$(MANDIR)/man5/testbed-scenario.5 \
		$(DESTDIR)$(COMPDIR)/testbed
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_TOP) $(DOC_FILES))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(SCEN_FILES))
	$(Q)for d in $(addprefix $(DESTDIR)$(DATADIR)/,$(SCEN_DIRS) scenarios) $(DESTDIR)$(DATADIR) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_DIRS)) $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LIBEXECDIR); do \
		[ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || echo "uninstall: $$d not empty: left"; done

# every C file of the tree, in any subfolder (build/ aside)
FORMAT_SRC = $(shell find . -path ./build -prune -o -path ./.git -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print | sed 's|^\./||' | LC_ALL=C sort)
format:
	$(Q)clang-format -i $(FORMAT_SRC)

# Fails listing the files clang-format would change.
format-check:
	$(Q)bad=0; for f in $(FORMAT_SRC); do clang-format "$$f" | cmp -s - "$$f" || { echo "not formatted: $$f"; bad=1; }; done; exit $$bad

clean:
	rm -rf build

help:
	@echo 'make [all|check|check-priv|bench|reproduce|validate|demo|test|smoke|soak|install|uninstall|clean|deps|format|format-check|fuzz] [V=1] [SANITIZE=1] [WERROR=0]'
	@echo 'make fuzz [FUZZ_SECONDS=60]; make soak [SOAK_SEED=N]'
	@echo 'make install|uninstall [PREFIX=/usr/local] [DESTDIR=]'

# test objects are intermediates of a chain of pattern rules: keep them
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
