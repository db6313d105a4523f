/*
 * bci_rewrite.h - inserts the entry/exit probes of mode=bci into a class
 * file (pure code, no JVM; tested by native-tests/test-bci-rewrite.c and
 * by running rewritten classes under the JVM verifier).
 *
 * Every method with code gets, with its method id pushed as an int:
 *   at entry                 invokestatic TRACKER.enter(I)V
 *   before every *return     invokestatic TRACKER.exit(I)V
 *   a catch-all handler      invokestatic TRACKER.exitThrow(I)V; athrow
 * covering the original code (in constructors only the code after the
 * super()/this() call, where `this` is initialised). Branches, switches,
 * exception tables, LineNumberTable, LocalVariable(Type)Table and the
 * StackMapTable are relocated; max_stack grows by what the probes need.
 * With native_prefix, native methods get Java wrappers first (bci_native.h),
 * which are then instrumented like the rest.
 * A method the configuration wants only counted (BCI_COUNT_ONLY) gets one
 * probe, at entry: invokestatic TRACKER.count(I)V with its counter's slot;
 * the methods is_tiny accepts are offered to tiny_id, when set, for that,
 * and the other loop-free ones to inlined_id.
 *
 * With switchable (class files of version 51 and later), each of these
 * probes instead pushes the id (the slot) and calls `invokedynamic
 * KIND(I)V`: a call site that TRACKER.site(Lookup, String KIND,
 * MethodType, int ID) bootstraps with the method's id (count: its slot) as
 * static argument, and that jcal.Tracker binds to the probe or to nothing,
 * so the agent turns a method's probes off and on again without
 * redefining its class (docs/agent-internals.md, "Switchable probes").
 * KIND is enter, exit, exitThrow or count. A method whose constants do
 * not fit in the pool is skipped (noted), never given the other kind of
 * probe.
 */
#ifndef JCAL_BCI_REWRITE_H
#define JCAL_BCI_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#define BCI_TRACKER_CLASS "jcal/Tracker"
#define BCI_COUNT_ONLY 2 /* method_id's answer: only count the method's calls */
#define BCI_SITE_DESC                                                                              \
	"(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/"             \
	"MethodType;I)"                                                                            \
	"Ljava/lang/invoke/CallSite;"

struct bci_config {
	const char *tracker; /* internal name; NULL = BCI_TRACKER_CLASS */
	/* Called for each method that can be instrumented (names in modified
	 * UTF-8, the class in internal form "a/b/C"). Returns 0 and sets *id
	 * (1 .. 2^31-1) to instrument it, BCI_COUNT_ONLY and sets *id to a
	 * counter's slot (0 .. 2^31-1) to give it only the counting probe,
	 * any other value to leave it alone. */
	int (*method_id)(void *ctx, const char *cls, const char *name, const char *desc,
			 uint16_t access, uint32_t *id);
	/* Optional: called instead of method_id, with the same arguments and
	 * answers, for a method that is_tiny accepts (bci_tiny, bci_tiny.h,
	 * given with its access flags, code and number of exception handlers):
	 * tiny=count answers BCI_COUNT_ONLY. NULL (either): every method goes
	 * to method_id. */
	int (*tiny_id)(void *ctx, const char *cls, const char *name, const char *desc,
		       uint16_t access, uint32_t *id);
	int (*is_tiny)(uint16_t access, const uint8_t *code, uint32_t code_len, uint16_t nexc);
	/* Optional, the same for a method that is not tiny and that
	 * is_loop_free accepts (bci_loop_free, bci_tiny.h): inlined=count
	 * answers BCI_COUNT_ONLY for those the JIT had inlined. */
	int (*inlined_id)(void *ctx, const char *cls, const char *name, const char *desc,
			  uint16_t access, uint32_t *id);
	int (*is_loop_free)(uint16_t access, const uint8_t *code, uint32_t code_len);
	/* Optional: one line per method that could not be (fully) instrumented. */
	void (*note)(void *ctx, const char *msg);
	void *ctx;
	/* Non-NULL: every native method NAME of the class becomes a Java
	 * wrapper NAME (offered to method_id like any method) that calls the
	 * native renamed native_prefix+NAME (bci_native.h); all of them or
	 * none (noted why). NULL: natives are left as they are. */
	const char *native_prefix;
	/* Non-zero: switchable probes (above) where the class's version
	 * allows them (51 and later); older classes get invokestatic. */
	int switchable;
};

/* Whether cfg->switchable gives the class in in[0..len) switchable probes
 * (its version is 51 or later). */
int bci_switchable_version(const uint8_t *in, size_t len);

struct bci_stats {
	unsigned methods;      /* methods with code */
	unsigned instrumented; /* of which rewritten */
	unsigned skipped;      /* could not be rewritten (see the notes) */
	unsigned no_handler;   /* rewritten without the catch-all handler */
	unsigned natives;      /* native methods given a wrapper (native_prefix) */
	unsigned tiny;	       /* of the instrumented, tiny ones given only the counting probe */
	unsigned inlined;      /* ... and those inlined_id gave only the counting probe */
	unsigned switchable;   /* of the instrumented, those given switchable probes */
};

/* Rewrites the class in in[0..len). Returns 0 and a malloc'd *out (NULL when
 * nothing was changed: the tracker itself, or no method instrumented and no
 * native wrapped), or
 * -1 with a message in err (malformed class, out of memory). */
int bci_rewrite_class(const uint8_t *in, size_t len, const struct bci_config *cfg, uint8_t **out,
		      size_t *outlen, struct bci_stats *st, char *err, size_t errlen);

/* Length of the instruction at code[pc] (switch padding from pc), or 0 when
 * it is not a valid instruction or runs past code_len. */
uint32_t bci_insn_len(const uint8_t *code, uint32_t code_len, uint32_t pc);

#endif
