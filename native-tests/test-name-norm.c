/*
 * test-name-norm.c - the names jcal-post diff matches by
 * (postproc/name_norm.c): tables of class names, descriptors and thread
 * names as JDK 17 and JDK 25 traces hold them (a program with lambdas, a
 * proxy, reflection, a thread pool, a thread and the common pool, traced
 * by the agent in mode=events), and of the generated classes of CGLIB,
 * Spring, Hibernate, ByteBuddy, Mockito and Javassist, each with its
 * normalised form and the kinds replaced; a truncating buffer.
 */
#include "postproc/name_norm.h"
#include "native-tests/test.h"

#define HID NAME_NORM_HIDDEN
#define LAM NAME_NORM_LAMBDA
#define PRX NAME_NORM_PROXY
#define ACC NAME_NORM_ACCESSOR
#define CGL NAME_NORM_CGLIB
#define HIB NAME_NORM_HIBERNATE

static void test_classes(void)
{
	static const struct {
		int line;
		const char *in, *out;
		unsigned kinds, primary;
	} cases[] = {
	    /* JDK 17: lambdas carry a counter and an address */
	    {__LINE__, "LNormNames$$Lambda$1.0x00007fc60c000a08;", "LNormNames$$Lambda$*.0x*;",
	     LAM | HID, LAM},
	    {__LINE__, "NormNames$$Lambda$10.0x00007fc60c003440", "NormNames$$Lambda$*.0x*",
	     LAM | HID, LAM},
	    {__LINE__, "Ljava/lang/reflect/Proxy$$Lambda$4.0x00007fc60c041600;",
	     "Ljava/lang/reflect/Proxy$$Lambda$*.0x*;", LAM | HID, LAM},
	    {__LINE__, "Ljava/lang/reflect/ProxyGenerator$$Lambda$6.0x00007fc60c0430a0;",
	     "Ljava/lang/reflect/ProxyGenerator$$Lambda$*.0x*;", LAM | HID, LAM},
	    /* Class.getName()'s form of the same */
	    {__LINE__, "com.app.Foo$$Lambda$14/0x0000000800c03000", "com.app.Foo$$Lambda$*/0x*",
	     LAM | HID, LAM},
	    /* JDK 25: an address only */
	    {__LINE__, "LNormNames$$Lambda.0x0000000012041210;", "LNormNames$$Lambda.0x*;", HID,
	     HID},
	    {__LINE__, "Ljava/lang/VirtualThread$$Lambda.0x00000000120018a8;",
	     "Ljava/lang/VirtualThread$$Lambda.0x*;", HID, HID},
	    {__LINE__, "com.app.Foo$$Lambda/0x000000080012c000", "com.app.Foo$$Lambda/0x*", HID,
	     HID},
	    /* lambda forms, JDK 17 and 25 */
	    {__LINE__, "Ljava/lang/invoke/LambdaForm$MH.0x00007fc60c000400;",
	     "Ljava/lang/invoke/LambdaForm$MH.0x*;", HID, HID},
	    {__LINE__, "Ljava/lang/invoke/LambdaForm$DMH.0x0000000012043000;",
	     "Ljava/lang/invoke/LambdaForm$DMH.0x*;", HID, HID},
	    {__LINE__, "java.lang.invoke.LambdaForm$MH/0x00007f9fd8001000",
	     "java.lang.invoke.LambdaForm$MH/0x*", HID, HID},
	    /* proxies: in the interface's package, or a jdk.proxyN module */
	    {__LINE__, "L$Proxy0;", "L$Proxy*;", PRX, PRX},
	    {__LINE__, "Ljdk/proxy1/$Proxy12;", "Ljdk/proxy*/$Proxy*;", PRX, PRX},
	    {__LINE__, "jdk.proxy2.$Proxy7", "jdk.proxy*.$Proxy*", PRX, PRX},
	    {__LINE__, "Lcom/sun/proxy/$Proxy5;", "Lcom/sun/proxy/$Proxy*;", PRX, PRX},
	    /* reflection accessors (JDK 17) */
	    {__LINE__, "Ljdk/internal/reflect/GeneratedMethodAccessor1;",
	     "Ljdk/internal/reflect/GeneratedMethodAccessor*;", ACC, ACC},
	    {__LINE__, "Ljdk/internal/reflect/GeneratedConstructorAccessor17;",
	     "Ljdk/internal/reflect/GeneratedConstructorAccessor*;", ACC, ACC},
	    {__LINE__, "jdk.internal.reflect.GeneratedSerializationConstructorAccessor3",
	     "jdk.internal.reflect.GeneratedSerializationConstructorAccessor*", ACC, ACC},
	    {__LINE__, "sun.reflect.GeneratedMethodAccessor204",
	     "sun.reflect.GeneratedMethodAccessor*", ACC, ACC},
	    /* CGLIB and Spring */
	    {__LINE__, "com.app.Service$$EnhancerByCGLIB$$1a2b3c4d",
	     "com.app.Service$$EnhancerByCGLIB$$*", CGL, CGL},
	    {__LINE__, "Lcom/app/Service$$EnhancerBySpringCGLIB$$8f3a2b11;",
	     "Lcom/app/Service$$EnhancerBySpringCGLIB$$*;", CGL, CGL},
	    {__LINE__, "com.app.Service$$FastClassBySpringCGLIB$$e1f2",
	     "com.app.Service$$FastClassBySpringCGLIB$$*", CGL, CGL},
	    {__LINE__, "com.app.Service$$SpringCGLIB$$0", "com.app.Service$$SpringCGLIB$$*", CGL,
	     CGL},
	    /* Hibernate, ByteBuddy, Mockito, Javassist */
	    {__LINE__, "com.app.Order$HibernateProxy$Qx3kLm9Z", "com.app.Order$HibernateProxy$*",
	     HIB, HIB},
	    {__LINE__, "com.app.Order$ByteBuddy$aB12", "com.app.Order$ByteBuddy$*", HIB, HIB},
	    {__LINE__, "com.app.Repo$MockitoMock$1734892", "com.app.Repo$MockitoMock$*", HIB, HIB},
	    {__LINE__, "com.app.Order_$$_jvst3f2_1", "com.app.Order_$$_jvst*", HIB, HIB},
	    {__LINE__, "com.app.Order_$$_javassist_12", "com.app.Order_$$_javassist_*", HIB, HIB},
	    /* descriptors: every class name in them */
	    {__LINE__, "(Lcom/app/Service$$EnhancerByCGLIB$$1a2b;Ljdk/proxy1/$Proxy3;)V",
	     "(Lcom/app/Service$$EnhancerByCGLIB$$*;Ljdk/proxy*/$Proxy*;)V", CGL | PRX, PRX},
	    /* what stays: names without an address or counter */
	    {__LINE__, "Ljava/lang/invoke/LambdaForm$Name;", "Ljava/lang/invoke/LambdaForm$Name;",
	     0, 0},
	    {__LINE__, "Ljava/lang/reflect/Proxy$ProxyBuilder$1;",
	     "Ljava/lang/reflect/Proxy$ProxyBuilder$1;", 0, 0},
	    {__LINE__, "Ljava/lang/invoke/BoundMethodHandle$Species_LL;",
	     "Ljava/lang/invoke/BoundMethodHandle$Species_LL;", 0, 0},
	    {__LINE__, "Ljdk/internal/reflect/DirectMethodHandleAccessor;",
	     "Ljdk/internal/reflect/DirectMethodHandleAccessor;", 0, 0},
	    {__LINE__, "(Ljava/lang/Object;ILjava/lang/Object;)I",
	     "(Ljava/lang/Object;ILjava/lang/Object;)I", 0, 0},
	    {__LINE__, "LDemo$Parser;", "LDemo$Parser;", 0, 0},
	    {__LINE__, "$Proxy", "$Proxy", 0, 0},
	    {__LINE__, "x.0x", "x.0x", 0, 0},
	    {__LINE__, "a$$CGLIB$$", "a$$CGLIB$$", 0, 0},
	    {__LINE__, "", "", 0, 0},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned kinds = 99;
		size_t n = name_norm_class(cases[i].in, buf, sizeof(buf), &kinds);

		if (strcmp(buf, cases[i].out) || n != strlen(cases[i].out) ||
		    kinds != cases[i].kinds || name_norm_primary(kinds) != cases[i].primary) {
			fprintf(stderr, "  line %d: '%s' -> '%s' kinds %#x primary %#x\n",
				cases[i].line, cases[i].in, buf, kinds, name_norm_primary(kinds));
			CHECK(0);
		}
	}
}

static void test_threads(void)
{
	static const struct {
		int line;
		const char *in, *out;
	} cases[] = {
	    /* JDK 17 and 25, the same program */
	    {__LINE__, "main", "main"},
	    {__LINE__, "pool-1-thread-1", "pool-*-thread-*"},
	    {__LINE__, "pool-1-thread-2", "pool-*-thread-*"},
	    {__LINE__, "pool-3-thread-17", "pool-*-thread-*"},
	    {__LINE__, "Thread-0", "Thread-*"},
	    {__LINE__, "Thread-12", "Thread-*"},
	    {__LINE__, "ForkJoinPool.commonPool-worker-1", "ForkJoinPool.commonPool-worker-*"},
	    {__LINE__, "ForkJoinPool-1-worker-3", "ForkJoinPool-*-worker-*"},
	    {__LINE__, "Notification Thread", "Notification Thread"},
	    {__LINE__, "Common-Cleaner", "Common-Cleaner"},
	    {__LINE__, "DestroyJavaVM", "DestroyJavaVM"},
	    {__LINE__, "VirtualThread-unblocker", "VirtualThread-unblocker"},
	    {__LINE__, "Signal Dispatcher", "Signal Dispatcher"},
	    /* servers and libraries: the port stays, the worker's number goes */
	    {__LINE__, "http-nio-8080-exec-7", "http-nio-8080-exec-*"},
	    {__LINE__, "Catalina-utility-2", "Catalina-utility-*"},
	    {__LINE__, "HikariPool-1 housekeeper", "HikariPool-* housekeeper"},
	    {__LINE__, "grpc-default-executor-3", "grpc-default-executor-*"},
	    {__LINE__, "Timer-0", "Timer-*"},
	    {__LINE__, "worker_12", "worker_*"},
	    {__LINE__, "job#4", "job#*"},
	    {__LINE__, "pool-12", "pool-*"},
	    /* a number without a separator, or not at the end, stays */
	    {__LINE__, "C2 CompilerThread0", "C2 CompilerThread0"},
	    {__LINE__, "Thread-0-x", "Thread-0-x"},
	    {__LINE__, "42", "42"},
	    {__LINE__, "", ""},
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int changed = -1;
		size_t n = name_norm_thread(cases[i].in, buf, sizeof(buf), &changed);

		if (strcmp(buf, cases[i].out) || n != strlen(cases[i].out) ||
		    changed != !!strcmp(cases[i].in, cases[i].out)) {
			fprintf(stderr, "  line %d: '%s' -> '%s' changed %d\n", cases[i].line,
				cases[i].in, buf, changed);
			CHECK(0);
		}
	}
}

/* The pool of a thread: only the number that ends its name goes, so that
 * two pools of one executor kind stay apart. */
static void test_pools(void)
{
	static const struct {
		int line;
		const char *in, *out;
	} cases[] = {
	    {__LINE__, "pool-1-thread-3", "pool-1-thread-*"},
	    {__LINE__, "pool-2-thread-3", "pool-2-thread-*"},
	    {__LINE__, "http-nio-8080-exec-10", "http-nio-8080-exec-*"},
	    {__LINE__, "ForkJoinPool.commonPool-worker-2", "ForkJoinPool.commonPool-worker-*"},
	    {__LINE__, "ForkJoinPool-1-worker-3", "ForkJoinPool-1-worker-*"},
	    {__LINE__, "Thread-12", "Thread-*"},
	    {__LINE__, "worker_12", "worker_*"},
	    {__LINE__, "job#4", "job#*"},
	    {__LINE__, "pool-12", "pool-*"},
	    {__LINE__, "HikariPool-1 housekeeper", "HikariPool-1 housekeeper"},
	    {__LINE__, "C2 CompilerThread0", "C2 CompilerThread0"},
	    {__LINE__, "main", "main"},
	    {__LINE__, "42", "42"},
	    {__LINE__, "-7", "-7"},
	    {__LINE__, "", ""},
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int pooled = -1;
		size_t n = name_norm_pool(cases[i].in, buf, sizeof(buf), &pooled);

		if (strcmp(buf, cases[i].out) || n != strlen(cases[i].out) ||
		    pooled != !!strcmp(cases[i].in, cases[i].out)) {
			fprintf(stderr, "  line %d: '%s' -> '%s' pooled %d\n", cases[i].line,
				cases[i].in, buf, pooled);
			CHECK(0);
		}
	}
	CHECK_EQ_U(name_norm_pool("pool-1-thread-1", buf, 8, &(int){0}), 15);
	CHECK_STR(buf, "pool-1-");
}

/* A buffer too small keeps a terminated prefix and the length needed. */
static void test_truncated(void)
{
	char buf[8];
	unsigned kinds;
	int changed;

	CHECK_EQ_U(name_norm_class("a.B$$Lambda$3.0x1f", buf, sizeof(buf), &kinds), 17);
	CHECK_STR(buf, "a.B$$La");
	CHECK_EQ_U(kinds, LAM | HID);
	CHECK_EQ_U(name_norm_thread("pool-1-thread-1", buf, sizeof(buf), &changed), 15);
	CHECK_STR(buf, "pool-*-");
	CHECK_EQ_U(name_norm_class("x", buf, 0, &kinds), 1);
}

static void test_labels(void)
{
	CHECK_EQ_U(name_norm_index(NAME_NORM_HIDDEN), 0);
	CHECK_EQ_U(name_norm_index(NAME_NORM_HIBERNATE), 5);
	CHECK_STR(name_norm_label(name_norm_index(NAME_NORM_LAMBDA)), "lambdas");
	CHECK_STR(name_norm_key(name_norm_index(NAME_NORM_ACCESSOR)), "accessors");
	CHECK_STR(name_norm_label(NAME_NORM_NKINDS), "");
}

int main(void)
{
	RUN(test_classes);
	RUN(test_threads);
	RUN(test_pools);
	RUN(test_truncated);
	RUN(test_labels);
	return test_summary("name-norm");
}
