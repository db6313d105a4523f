# jcal - calibrated instrumentation profiler for Java.
#
#   make            build/libjcal.so, build/jcal-post, build/jcal, Java test classes
#   make test       install missing packages, build, run every native and Java test
#   make check [T=NAME]   build what one test needs and run it: a native test
#                   (T=calltree, T=calltree:test_fn), a Java suite (T=Runner) or
#                   Java test (T=reattach); no T: every native test (scripts/check.sh)
#   make check-asan T=NAME   one native test under ASan+UBSan
#   make demo       install missing packages, build, profile the bundled example
#   make asan       native tests under -fsanitize=address,undefined
#   make lint       clang-format and clang-tidy over the project's C code
#   make fuzz       each libFuzzer harness for FUZZ_SECONDS
#   make test-long  the bci rewriter over every class of real jars (minutes)
#   make bench, make bench-post, make bench-metric   benchmarks (never pass/fail)
#   make install [PREFIX=/usr/local] [DESTDIR=]   jcal-post, jcal, libjcal.so
#                   with its jars, man pages (docs/install.md); make uninstall
#   make deb        a Debian package of the same files (build/jcal_VERSION_ARCH.deb)
#   make man        the man pages only (build/man/)
#   make clean
#
# In order below: variables; the commands; libjcal.so and its jars;
# jcal-post; tests; benchmarks; lint; clean.

CC      ?= gcc
BUILD   := build
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -fPIC -I.
LDLIBS  := -lz -lpthread -lm -lpfm -ldl
# jcal-post only (not the agent): ISA-L for its CRC checks (postproc/crc_fast.c)
POST_LDLIBS := -lisal

# JAVA_HOME: the environment, else the real path of javac.
JAVAC_PATH := $(shell readlink -f "$$(command -v javac 2>/dev/null)" 2>/dev/null)
JAVA_HOME  ?= $(patsubst %/bin/javac,%,$(JAVAC_PATH))
JAVAC      := $(JAVA_HOME)/bin/javac
JAVA       := $(JAVA_HOME)/bin/java
JNI_CFLAGS := -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux

# Rooms (CONTRIBUTING.md): every folder of C code is built into one archive
# of its own, and a program or test links the archives; the linker takes
# from them only the objects it needs. A new file needs no rule: it is in
# its folder's archive. main.c of a program is not in an archive.
#   libjcal.so   agent/ agent/base/ agent/core/ agent/metrics/ agent/bci/
#                calibrator/ common/
#   jcal-post    postproc/ common/
#   jcal         agent/launcher/ agent/base/ (the option table) common/
LIB_DIRS   := agent agent/base agent/core agent/metrics agent/bci calibrator
ROOM_DIRS  := common $(LIB_DIRS) postproc agent/launcher
room_src    = $(filter-out %/main.c,$(wildcard $(1)/*.c))
room_lib    = $(BUILD)/lib/$(subst /,-,$(1)).a
ROOM_LIBS  := $(foreach d,$(ROOM_DIRS),$(call room_lib,$(d)))
LIB_OBJ    := $(foreach d,$(LIB_DIRS) common,$(patsubst %.c,$(BUILD)/obj/%.o,$(call room_src,$(d))))
# Every archive, for links that take what they need (tests, tools).
LINK_ALL   := -Wl,--start-group $(ROOM_LIBS) -Wl,--end-group
TEST_SRC   := $(wildcard native-tests/test-*.c)
TEST_BIN   := $(TEST_SRC:native-tests/%.c=$(BUILD)/tests/%)

# Virtual-thread tests need a JDK >= 21 ($$JAVA21_HOME or /usr/lib/jvm);
# without one they are skipped with a visible message.
ifeq ($(origin JAVA21_HOME),undefined)
JAVA21_HOME := $(shell scripts/find-jdk21.sh)
endif

# make fuzz [FUZZ_SECONDS=60]: each libFuzzer harness of native-tests/fuzz/
# for FUZZ_SECONDS, from its seed corpus; new inputs go to $(BUILD)/fuzz/.
# Regression inputs are replayed by native-tests/test-fuzz-regressions.c in
# `make test`.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES   := $(patsubst native-tests/fuzz/%.c,%,$(wildcard native-tests/fuzz/fuzz-*.c))
# The largest allocation one input may cause (native-tests/fuzz/fuzz-targets.h).
FUZZ_MALLOC_MB := $(shell sed -n 's/^\#define FUZZ_MALLOC_LIMIT_MB \([0-9]*\).*/\1/p' \
		    native-tests/fuzz/fuzz-targets.h)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%)
# The harnesses link the archives of every room, built again with clang
# and the fuzzer's instrumentation under $(FUZZ_DIR).
FUZZ_LIBS    := $(foreach d,$(ROOM_DIRS),$(FUZZ_DIR)/lib/$(subst /,-,$(d)).a)

ASAN_BUILD ?= build/asan
TSAN_BUILD ?= build/tsan
# Events of the synthetic trace of make bench-post (bench/gen-trace.c).
BENCH_EVENTS ?= 100000000

.PHONY: all check check-asan test test-long demo deps lint clean check-jdk java-classes native-test java-test \
	bci-test asan asan-build asan-agent tsan tsan-build fuzz fuzz-build bench bench-metric bench-post man install \
	uninstall deb

# ---- Commands ----------------------------------------------------------------

all: $(BUILD)/libjcal.so $(BUILD)/jcal-post $(BUILD)/jcal $(BUILD)/jcal-calibrator.jar $(BUILD)/jcal-agent.jar \
     java-classes \
     $(BUILD)/libjcaltest.so $(BUILD)/javatests21.stamp $(BUILD)/launcher-test/libjcal.so

test:
	@scripts/install-deps.sh --tests
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(TEST_BIN) $(BUILD)/jcal-bci-rewrite
	@$(MAKE) --no-print-directory asan-build
	@$(MAKE) --no-print-directory tsan-build
	@JAVA_HOME=$(JAVA_HOME) scripts/run-all-tests.sh

# One test by name, or every native test; no package installed, no
# sanitizer build (scripts/check.sh, which says how names are found).
check:
	@MAKE="$(MAKE)" BUILD=$(BUILD) JAVA_HOME=$(JAVA_HOME) scripts/check.sh $(T)

# make check-asan T=NAME: one native test file built and run under
# ASan+UBSan (the sanitizer tree, $(ASAN_BUILD)), without building the rest.
check-asan:
	@test -n "$(T)" || { echo "usage: make check-asan T=NAME (a native test: options, test-calltree...)"; exit 2; }
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) $(ASAN_FLAGS) \
	  $(ASAN_BUILD)/tests/test-$(patsubst test-%,%,$(T))
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(ASAN_BUILD)/tests/test-$(patsubst test-%,%,$(T))

demo: deps
	@$(MAKE) --no-print-directory all
	@JAVA_HOME=$(JAVA_HOME) scripts/demo.sh

deps:
	@scripts/install-deps.sh

# ---- libjcal.so and its jars -------------------------------------------------

check-jdk:
	@test -f "$(JAVA_HOME)/include/jvmti.h" || { \
	  echo "error: jvmti.h not found under JAVA_HOME=$(JAVA_HOME)."; \
	  echo "       Install the JDK headers: apt-get install openjdk-17-jdk-headless"; \
	  echo "       (or run scripts/install-deps.sh as root), or set JAVA_HOME."; exit 1; }

# Everything linked into libjcal.so is hidden but the entry points
# (agent/libjcal.map); common/ is also linked into jcal-post and the tests,
# where hidden changes nothing. The rooms of libjcal.so see the JDK's JNI
# and JVMTI headers.
$(foreach d,$(LIB_DIRS),$(patsubst %.c,$(BUILD)/obj/%.o,$(call room_src,$(d)))): \
	CFLAGS += $(JNI_CFLAGS) -fvisibility=hidden
$(foreach d,$(LIB_DIRS),$(patsubst %.c,$(BUILD)/obj/%.o,$(call room_src,$(d)))): | check-jdk
$(BUILD)/obj/common/%.o: CFLAGS += -fvisibility=hidden

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# One archive per room (see ROOM_DIRS).
define room_rule
$(call room_lib,$(1)): $(patsubst %.c,$(BUILD)/obj/%.o,$(call room_src,$(1)))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	$(AR) rcs $$@ $$^
endef
$(foreach d,$(ROOM_DIRS),$(eval $(call room_rule,$(d))))

# The tree builder's loop adds each step's delta to two figures of a node;
# GCC's SLP vectorizer packs the two adds into SSE moves and shuffles,
# more instructions than the two adds (docs/history/performance.md, section 3).
$(BUILD)/obj/common/calltree.o: CFLAGS += -fno-tree-slp-vectorize

$(BUILD)/libjcal.so: $(LIB_OBJ) agent/libjcal.map
	$(CC) -shared -Wl,--version-script=agent/libjcal.map -o $@ $(LIB_OBJ) $(LDLIBS)

# The calibration workload's Java classes, shipped beside libjcal.so
# (calibrator/calibrate.c).
CALIB_JAVA := $(shell find calibrator/java -name '*.java' 2>/dev/null)
$(BUILD)/jcal-calibrator.jar: $(CALIB_JAVA) | check-jdk
	@rm -rf $(BUILD)/calibrator && mkdir -p $(BUILD)/calibrator
	$(JAVAC) --release 11 -d $(BUILD)/calibrator $(CALIB_JAVA)
	$(JAVA_HOME)/bin/jar cf $@ -C $(BUILD)/calibrator .

# The jcal.Control region API and the mode=bci probes (jcal.Tracker), put
# on the boot class path by the agent. jcal.FfmProbes (agent/java22/), the
# probes' critical foreign downcalls on JDK 22+, needs a JDK >= 22 to
# compile ($$JAVA22_HOME or /usr/lib/jvm); without one the jar has no
# FfmProbes and the probes call through JNI on every JDK.
ifeq ($(origin JAVA22_HOME),undefined)
JAVA22_HOME := $(shell scripts/find-jdk21.sh 22)
endif
AGENT_JAVA := $(shell find agent/java -name '*.java' 2>/dev/null)
AGENT_JAVA22 := $(shell find agent/java22 -name '*.java' 2>/dev/null)
$(BUILD)/jcal-agent.jar: $(AGENT_JAVA) $(AGENT_JAVA22) | check-jdk
	@rm -rf $(BUILD)/agent-java && mkdir -p $(BUILD)/agent-java
	$(JAVAC) --release 11 -d $(BUILD)/agent-java $(AGENT_JAVA)
	$(if $(JAVA22_HOME),$(JAVA22_HOME)/bin/javac --release 22 -cp $(BUILD)/agent-java \
	  -d $(BUILD)/agent-java $(AGENT_JAVA22))
	$(JAVA_HOME)/bin/jar cf $@ -C $(BUILD)/agent-java .

# ---- jcal-post ---------------------------------------------------------------

$(BUILD)/jcal-post: $(BUILD)/obj/postproc/main.o $(call room_lib,postproc) $(call room_lib,common)
	$(CC) -o $@ $^ $(LDLIBS) $(POST_LDLIBS)

# ---- Man pages -----------------------------------------------------------------
# Printed by the programs from the same tables as their --help (and the
# agent's `help`): jcal-post(1), jcal(1), libjcal(7).
MAN_PAGES := $(BUILD)/man/jcal-post.1 $(BUILD)/man/jcal.1 $(BUILD)/man/libjcal.7

man: $(MAN_PAGES)

$(BUILD)/man/jcal-post.1: $(BUILD)/jcal-post
	@mkdir -p $(dir $@)
	$< --man > $@.tmp && mv $@.tmp $@

$(BUILD)/man/jcal.1: $(BUILD)/jcal
	@mkdir -p $(dir $@)
	$< --man > $@.tmp && mv $@.tmp $@

$(BUILD)/man/libjcal.7: $(BUILD)/jcal
	@mkdir -p $(dir $@)
	$< --man-agent > $@.tmp && mv $@.tmp $@

# ---- Install -------------------------------------------------------------------
# libjcal.so finds its jars beside itself, so they go into one directory
# (lib/jcal/); jcal-post and jcal look there for libjcal.so (../lib/jcal/).
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define JCAL_AGENT_VERSION "\(.*\)"/\1/p' agent/core/agent_state.h)
INSTALL_BIN := $(BUILD)/jcal-post $(BUILD)/jcal
INSTALL_LIB := $(BUILD)/libjcal.so $(BUILD)/jcal-agent.jar $(BUILD)/jcal-calibrator.jar
# The documentation keeps its folders, so that README's links to docs/ and
# the history's links work in the installed copy too.
INSTALL_DOC := README.md LICENSE
INSTALL_DOCS := $(wildcard docs/*.md)
INSTALL_HIST := $(wildcard docs/history/*.md)
I_BIN := $(DESTDIR)$(PREFIX)/bin
I_LIB := $(DESTDIR)$(PREFIX)/lib/jcal
I_MAN := $(DESTDIR)$(PREFIX)/share/man
I_DOC := $(DESTDIR)$(PREFIX)/share/doc/jcal

# umask 022 for the directories made: a shell's umask 000 must not give
# others write access to them (nor make dpkg-deb refuse the package).
install: $(INSTALL_BIN) $(INSTALL_LIB) $(MAN_PAGES)
	umask 022 && install -d $(I_BIN) $(I_LIB) $(I_MAN)/man1 $(I_MAN)/man7 $(I_DOC)/docs/history
	install -m 755 $(INSTALL_BIN) $(I_BIN)/
	install -m 644 $(INSTALL_LIB) $(I_LIB)/
	install -m 644 $(BUILD)/man/jcal-post.1 $(BUILD)/man/jcal.1 $(I_MAN)/man1/
	install -m 644 $(BUILD)/man/libjcal.7 $(I_MAN)/man7/
	install -m 644 $(INSTALL_DOC) $(I_DOC)/
	install -m 644 $(INSTALL_DOCS) $(I_DOC)/docs/
	install -m 644 $(INSTALL_HIST) $(I_DOC)/docs/history/

uninstall:
	rm -f $(I_BIN)/jcal-post $(I_BIN)/jcal $(addprefix $(I_LIB)/,$(notdir $(INSTALL_LIB))) \
	      $(I_MAN)/man1/jcal-post.1 $(I_MAN)/man1/jcal.1 $(I_MAN)/man7/libjcal.7 \
	      $(addprefix $(I_DOC)/,$(notdir $(INSTALL_DOC))) \
	      $(addprefix $(I_DOC)/docs/,$(notdir $(INSTALL_DOCS))) \
	      $(addprefix $(I_DOC)/docs/history/,$(notdir $(INSTALL_HIST)))
	-rmdir $(I_LIB) $(I_DOC)/docs/history $(I_DOC)/docs $(I_DOC) 2>/dev/null

# The same files under /usr, as a package dpkg-deb builds without network.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT := $(BUILD)/deb/root
DEB_FILE := $(BUILD)/jcal_$(VERSION)_$(DEB_ARCH).deb

deb: $(INSTALL_BIN) $(INSTALL_LIB) $(MAN_PAGES)
	rm -rf $(DEB_ROOT) && umask 022 && mkdir -p $(DEB_ROOT)/DEBIAN
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(abspath $(DEB_ROOT))
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/*.1 $(DEB_ROOT)/usr/share/man/man7/*.7
	umask 022 && sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' \
	    -e "s/@SIZE@/$$(du -sk $(DEB_ROOT)/usr | cut -f1)/" scripts/deb-control.in \
	    > $(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group --build $(DEB_ROOT) $(DEB_FILE)

# ---- jcal (the launcher) -----------------------------------------------------

# The launcher prints libjcal(7) from the agent's option table
# (agent/base/options.c).
$(BUILD)/jcal: $(BUILD)/obj/agent/launcher/main.o $(call room_lib,agent/launcher) \
	       $(call room_lib,agent/base) $(call room_lib,common)
	$(CC) -o $@ $^ -lm

# ---- Tests -------------------------------------------------------------------

# A test links every room's archive and gets the objects it uses; it sees
# the JDK's headers, as the rooms of libjcal.so do.
$(TEST_BIN): $(BUILD)/tests/%: native-tests/%.c $(ROOM_LIBS) $(wildcard native-tests/*.h native-tests/fuzz/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -o $@ $< $(LINK_ALL) $(LDLIBS) $(POST_LDLIBS)

# A test that includes native-tests/alloc_limit.h asserts the largest
# allocation an input causes: its malloc, calloc and realloc are wrapped.
ALLOC_WRAP_TESTS := $(patsubst native-tests/%.c,$(BUILD)/tests/%,$(shell grep -l 'alloc_limit\.h' native-tests/test-*.c))
$(ALLOC_WRAP_TESTS): override LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

native-test: $(TEST_BIN)
	@scripts/run-native-tests.sh $(BUILD)/tests

# Java test classes and the demo program.
JAVA_SRC := $(shell find javatests/src -name '*.java' 2>/dev/null)
java-classes: $(BUILD)/javatests.stamp
$(BUILD)/javatests.stamp: $(JAVA_SRC) $(BUILD)/jcal-agent.jar | check-jdk
	@mkdir -p $(BUILD)/javatests
	@if [ -n "$(JAVA_SRC)" ]; then \
	  $(JAVAC) -cp $(BUILD)/jcal-agent.jar -d $(BUILD)/javatests $(JAVA_SRC); fi
	@touch $@

# JNI test library of the end-to-end tests (javatests/native).
$(BUILD)/libjcaltest.so: $(wildcard javatests/native/*.c) | check-jdk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -shared -o $@ $^ -lpthread

# The launcher's stand-in agent (native-tests/launcher/echo_agent.c), with
# the jars jcal checks for beside it.
$(BUILD)/launcher-test/libjcal.so: native-tests/launcher/echo_agent.c common/attach_reply.h \
				   $(BUILD)/jcal-agent.jar $(BUILD)/jcal-calibrator.jar | check-jdk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -shared -o $@ $< -lpthread
	cp $(BUILD)/jcal-agent.jar $(BUILD)/jcal-calibrator.jar $(dir $@)

JAVA21_SRC := $(shell find javatests/src21 -name '*.java' 2>/dev/null)
$(BUILD)/javatests21.stamp: $(JAVA21_SRC)
	@mkdir -p $(BUILD)/javatests21
	@if [ -n "$(JAVA21_HOME)" ]; then \
	  echo "$(JAVA21_HOME)/bin/javac -d $(BUILD)/javatests21 ..."; \
	  $(JAVA21_HOME)/bin/javac -d $(BUILD)/javatests21 $(JAVA21_SRC) || exit 1; \
	  echo "$(JAVA21_HOME)" > $(BUILD)/javatests21/JAVA_HOME; \
	else \
	  echo "SKIP: no JDK >= 21 found (set JAVA21_HOME): virtual-thread tests will be skipped"; \
	  rm -f $(BUILD)/javatests21/JAVA_HOME; \
	fi
	@touch $@

java-test: all
	@JAVA_HOME=$(JAVA_HOME) javatests/run.sh

# mode=bci: the rewriter's command-line front end, the class files its unit
# test reads (native-tests/bci/src plus a generated Big.java), and the
# verifier tests (native-tests/bci/run.sh).
BCI_JAVA := $(wildcard native-tests/bci/src/bcitest/*.java)
$(BUILD)/jcal-bci-rewrite: native-tests/bci/jcal-bci-rewrite.c $(ROOM_LIBS)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -o $@ $< $(LINK_ALL) $(LDLIBS)

$(BUILD)/bci/classes.stamp: $(BCI_JAVA) native-tests/bci/gen-big.sh | check-jdk
	@rm -rf $(BUILD)/bci/classes && mkdir -p $(BUILD)/bci/classes $(BUILD)/bci/gen/bcitest
	native-tests/bci/gen-big.sh $(BUILD)/bci/gen/bcitest/Big.java
	$(JAVAC) -d $(BUILD)/bci/classes $(BCI_JAVA) $(BUILD)/bci/gen/bcitest/Big.java
	@touch $@

# A test that includes native-tests/classcorpus.h reads those class files.
CLASS_CORPUS_TESTS := $(patsubst native-tests/%.c,$(BUILD)/tests/%,$(shell grep -l 'classcorpus\.h' native-tests/test-*.c))
$(CLASS_CORPUS_TESTS): $(BUILD)/bci/classes.stamp

bci-test: $(BUILD)/jcal-bci-rewrite
	@JAVA_HOME=$(JAVA_HOME) native-tests/bci/run.sh $(BUILD)

# Every class of the Debian jars of native-tests/bci/jars.sh, rewritten and
# linked under -Xverify:all on JDK 17 and 25 (make test runs a sample).
test-long: $(BUILD)/jcal-bci-rewrite
	@scripts/install-deps.sh --tests
	@JAVA_HOME=$(JAVA_HOME) native-tests/bci/jars.sh $(BUILD) long

# Sanitizer builds in their own tree: the native tests (make asan) and
# libjcal.so (tested by javatests/asan-check.sh). They share
# $(ASAN_BUILD)/obj, so both use the same flags; `make test` builds both
# through asan-build.
ASAN_FLAGS = OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	     LDLIBS="$(LDLIBS) -fsanitize=address,undefined"
asan-build: asan-agent
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) $(ASAN_FLAGS) $(ASAN_BUILD)/tests-all

asan-agent:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) $(ASAN_FLAGS) $(ASAN_BUILD)/libjcal.so

asan: asan-build
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  scripts/run-native-tests.sh $(ASAN_BUILD)/tests

# ThreadSanitizer build of the native tests that run threads (the lock-free
# method index beside its writer, the agent's trees, jcal-post's tree
# workers, per-thread counters, the reader's safety checks); `make test`
# runs them too. -Wno-tsan: TSan does not model atomic_thread_fence, which
# the method index's seqlock uses (its data are atomics all the same).
# A test says so in its header comment ("make tsan"): no list to keep here.
TSAN_TESTS := $(patsubst native-tests/%.c,%,$(shell grep -l 'make tsan' native-tests/test-*.c))
TSAN_FLAGS = OPT="-O1 -g -fsanitize=thread -Wno-tsan" LDLIBS="$(LDLIBS) -fsanitize=thread"
tsan-build:
	@test -n "$(TSAN_TESTS)" && $(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) $(TSAN_FLAGS) \
	  $(addprefix $(TSAN_BUILD)/tests/,$(TSAN_TESTS))

tsan: tsan-build
	@TSAN_OPTIONS=halt_on_error=1 scripts/run-native-tests.sh $(TSAN_BUILD)/tests

$(BUILD)/tests-all: $(TEST_BIN)

$(FUZZ_DIR)/obj/%.o: %.c | check-jdk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -I. $(JNI_CFLAGS) -MMD -MP -c $< -o $@

define fuzz_room_rule
$(FUZZ_DIR)/lib/$(subst /,-,$(1)).a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(call room_src,$(1)))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	$(AR) rcs $$@ $$^
endef
$(foreach d,$(ROOM_DIRS),$(eval $(call fuzz_room_rule,$(d))))

$(FUZZ_BIN): $(FUZZ_DIR)/%: native-tests/fuzz/%.c $(wildcard native-tests/fuzz/*.h) $(FUZZ_LIBS)
	$(FUZZ_CC) $(CSTD) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer -I. $(JNI_CFLAGS) \
	  -o $@ $< -Wl,--start-group $(FUZZ_LIBS) -Wl,--end-group $(LDLIBS) $(POST_LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	@for h in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$h $(FUZZ_DIR)/crashes; \
	  echo "== $$h ($(FUZZ_SECONDS) s)"; \
	  $(FUZZ_DIR)/$$h -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -malloc_limit_mb=$(FUZZ_MALLOC_MB) \
	    -artifact_prefix=$(FUZZ_DIR)/crashes/$$h- \
	    $$(test -f native-tests/fuzz/$$h.dict && echo -dict=native-tests/fuzz/$$h.dict) \
	    $(FUZZ_DIR)/corpus/$$h native-tests/fuzz/corpus/$$h || exit 1; \
	done

# ---- Benchmarks --------------------------------------------------------------

# Benchmarks (bench/): the count-only baseline agent and the workloads.
BENCH_JAVA := $(shell find bench/java -name '*.java' 2>/dev/null)
$(BUILD)/libcount.so: bench/count_agent.c | check-jdk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -shared -o $@ $<

# The soak's floor of mode=bci: a retransform-capable agent that copies bytes.
$(BUILD)/libcopy.so: bench/copy_agent.c | check-jdk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -shared -o $@ $<

$(BUILD)/bench.stamp: $(BENCH_JAVA) $(BUILD)/jcal-agent.jar | check-jdk
	@mkdir -p $(BUILD)/bench
	$(JAVAC) -cp $(BUILD)/jcal-agent.jar -d $(BUILD)/bench $(BENCH_JAVA)
	@touch $@

bench: all $(BUILD)/libcount.so $(BUILD)/libcopy.so $(BUILD)/bench.stamp
	@JAVA_HOME=$(JAVA_HOME) bench/agent-cost.sh

# ns per metric read, per backend (docs/metrics.md)
$(BUILD)/metric-read: bench/metric-read.c $(ROOM_LIBS)
	$(CC) $(CFLAGS) $(JNI_CFLAGS) -o $@ $< $(LINK_ALL) $(LDLIBS)

bench-metric: $(BUILD)/metric-read
	$(BUILD)/metric-read

# jcal-post throughput and memory (bench/post-cost.sh, docs/performance.md):
# a synthetic trace of BENCH_EVENTS events from bench/gen-trace.c.
$(BUILD)/gen-trace: bench/gen-trace.c $(call room_lib,common)
	$(CC) $(CFLAGS) -o $@ $^ -lz

# Many short threads (docs/performance.md, "jcal-post memory vs threads").
$(BUILD)/gen-threads: bench/gen-threads.c native-tests/threadgen.h native-tests/tracegen.h \
		      $(BUILD)/obj/common/trace_encoder.o
	$(CC) $(CFLAGS) -Inative-tests -o $@ $< $(BUILD)/obj/common/trace_encoder.o -lz

# The snapshots of many recordings (docs/performance.md, "jcal-post FILE...").
$(BUILD)/gen-snapshots: bench/gen-snapshots.c native-tests/snapgen.h native-tests/modelgen.h \
			$(ROOM_LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_ALL) $(LDLIBS)

bench-post: $(BUILD)/jcal-post $(BUILD)/gen-trace
	@BUILD=$(BUILD) bench/post-cost.sh $(BENCH_EVENTS)

# ---- Lint --------------------------------------------------------------------

# clang-format (.clang-format) and clang-tidy (.clang-tidy) over every C file
# the project keeps; run by .ci/run before the tests.
lint:
	@scripts/lint.sh "$(JAVA_HOME)"

# ---- Clean -------------------------------------------------------------------

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)
