/*
 * name_norm.h - the names jcal-post diff matches by (docs/jcal-post.md,
 * "Comparing two runs"): class names and method descriptors with the
 * addresses and counters the JVM or a library puts into generated class
 * names replaced by a fixed token, and thread names with their pool and
 * thread numbers replaced, so that two runs of one build name the same
 * thing the same way; and the pool of a thread, by which the reports group
 * the threads of one pool. Pure functions on strings.
 *
 * Classes (anywhere in the string, in JVM or Java form):
 *   hidden classes   LambdaForm$MH.0x00007f9fd8001000, .../0x...  -> .0x*, /0x*
 *   lambdas          Foo$$Lambda$14/0x0000000800c03000            -> Foo$$Lambda$* /0x*
 *   proxies          jdk.proxy1.$Proxy12, com.sun.proxy.$Proxy5   -> jdk.proxy*.$Proxy*
 *   accessors        GeneratedMethodAccessor17 (Constructor, SerializationConstructor)
 *                                                                   -> GeneratedMethodAccessor*
 *   CGLIB            $$EnhancerByCGLIB$$1a2b3c (any $$...CGLIB$$)  -> $$EnhancerByCGLIB$$*
 *   Hibernate etc.   $HibernateProxy$abc, $ByteBuddy$abc, $MockitoMock$123,
 *                    _$$_jvst1a2_3 (Javassist)                     -> $HibernateProxy$* ...
 * Threads:
 *   "pool-N" (any case of "pool")         pool-3-thread-7 -> pool-*-thread-*
 *   a number ending the name after one of "-_#. "
 *                                          Thread-12 -> Thread-*, http-nio-8080-exec-7 ->
 *                                          http-nio-8080-exec-* (the port stays)
 */
#ifndef JCAL_NAME_NORM_H
#define JCAL_NAME_NORM_H

#include <stddef.h>

/* What a class name's normalisation replaced (bits). */
enum name_norm_kind {
	NAME_NORM_HIDDEN = 1u << 0,    /* a hidden class's address */
	NAME_NORM_LAMBDA = 1u << 1,    /* a lambda's class counter */
	NAME_NORM_PROXY = 1u << 2,     /* java.lang.reflect.Proxy classes and modules */
	NAME_NORM_ACCESSOR = 1u << 3,  /* generated reflection accessors */
	NAME_NORM_CGLIB = 1u << 4,     /* CGLIB (and Spring's) generated classes */
	NAME_NORM_HIBERNATE = 1u << 5, /* Hibernate, ByteBuddy, Mockito, Javassist proxies */
};
#define NAME_NORM_NKINDS 6

/* Writes s (a class name or a method descriptor) normalised to buf,
 * always terminated when len > 0; *kinds gets the bits of what was
 * replaced (0: s is unchanged). Returns the length the whole result
 * needs, like snprintf. */
size_t name_norm_class(const char *s, char *buf, size_t len, unsigned *kinds);

/* The one kind a name whose replacements are kinds is counted under: the
 * most specific (a lambda's class has an address too: a lambda). 0 for
 * none. */
unsigned name_norm_primary(unsigned kinds);

/* The index (0 .. NAME_NORM_NKINDS-1) of a single kind bit. */
unsigned name_norm_index(unsigned kind);

/* "hidden classes", "lambdas", ... for the text note; "hidden_classes",
 * "lambdas", ... for JSON keys; by index. */
const char *name_norm_label(unsigned index);
const char *name_norm_key(unsigned index);

/* Writes the thread name s normalised to buf (as name_norm_class); *changed
 * gets 1 when it differs from s. Returns the length needed. */
size_t name_norm_thread(const char *s, char *buf, size_t len, int *changed);

/* The pool a thread named s belongs to (docs/jcal-post.md, "Thread
 * pools"): s with only the number that ends it after one of "-_#. "
 * replaced by '*' (pool-3-thread-7 -> pool-3-thread-*, http-nio-8080-exec-7
 * -> http-nio-8080-exec-*), written to buf as name_norm_class; *pooled gets
 * 1 when s ends with such a number, else 0 (buf is then s). Returns the
 * length needed. */
size_t name_norm_pool(const char *s, char *buf, size_t len, int *pooled);

#endif
