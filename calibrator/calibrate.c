/*
 * calibrate.c - drives a calibration run (the `calibrate` option).
 *
 * 1. Agent_OnLoad adds jcal-calibrator.jar (beside libjcal.so) to the class
 *    path; method events are NOT enabled globally in this mode.
 * 2. VMInit starts the native thread "jcal-calibrator", which attaches to
 *    the JVM, registers the workload's natives, runs every program a few
 *    times to warm up, then enables MethodEntry/Exit for itself only and
 *    runs them many more times from the thread root.
 *    With mode=bci the workload's Java node methods carry probes (agent/bci/bci_agent.c
 *    instruments jcal.calib.Workload), which are always active: the
 *    programs use node methods I, i, H and h (natives are not traced), one
 *    cold round is measured while all run interpreted (I/i keys), the
 *    warm-up until the JIT has compiled I and i is left out of the trace as
 *    an untraced region, and the measured rounds then run I/i compiled
 *    (J/j) and H/h, too long for HotSpot to compile, interpreted (I/i):
 *    every key of I i J j O, those mixing the two kinds included.
 * 3. VMInit then runs jcal.calib.EnvTimer in a child JVM (-Xint, no agent:
 *    calib_child.c builds its environment;
 *    with mode=bci without -Xint, after a warm-up: the uninstrumented JIT
 *    run, timing the same compiled and interpreted node methods) for the
 *    call costs, records env.KEY meta records, and calls System.exit(0).
 * 4. VM death closes the trace; calibrate_finish derives the table from it
 *    with the same code as `jcal-post --report calib` and writes it, only
 *    when every step completed (else no table, exit 1), and renames the
 *    run's own trace to last-calibration.bin.
 * Every wait is bounded: a stuck JVM fails with a message, never hangs.
 */
#include "calibrator/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "calibrator/calib_child.h"
#include "common/calib_derive.h"
#include "common/calib_dir.h"
#include "calibrator/calib_env.h"
#include "calibrator/calib_natives.h"
#include "calibrator/calib_programs.h"
#include "common/calib_table.h"
#include "calibrator/calib_worktime.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/lib_dir.h"
#include "agent/base/log.h"
#include "agent/core/recording.h"
#include "common/seqkey.h"

#define CALIB_THREAD_NAME "jcal-calibrator"
#define WARMUP_ROUNDS 30
#define MEASURE_ROUNDS 300
#define INRUN_ROUNDS 100      /* recalibrate=start: a shorter burst */
#define BCI_COLD_ROUNDS 1     /* mode=bci: measured before the JIT compiles */
#define BCI_WARMUP_ROUNDS 100 /* mode=bci: at least, untraced... */
#define BCI_WARMUP_MAX 1000   /* ...until Workload.I and i are compiled */
#define ENV_BCI_WARMUP 20000  /* mode=bci: EnvTimer calls per loop to warm up */
/* Work loop lengths (Workload.work) besides 0: after every WORK_EVERY
 * measured rounds with empty bodies, one round at each, after a mark
 * CALIB_WORK_MARK "K" in the thread's events, so that every key is also
 * measured with bodies of known cost (docs/calibration-format.md, "a= b=").
 * EnvTimer.WORK lists the same lengths. */
static const int work_levels[] = {2, 8, 32, 128};
#define NWORK_LEVELS (int)(sizeof(work_levels) / sizeof(work_levels[0]))
#define WORK_EVERY 10
#define WORKLOAD_TIMEOUT_S 300
#define ENV_TIMEOUT_S 180

extern char **environ;

static char jar_path[1100];

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int failed;
	char err[512];
	uint64_t runs;
} work = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, "", 0};

/* The calibration directory, at most CALIB_DIR_MAX bytes: room is left in
 * a path buffer of JCAL_OPT_PATH_MAX bytes for the per-run trace name. */
#define CALIB_DIR_MAX (JCAL_OPT_PATH_MAX - 64)
#define LAST_TRACE "last-calibration.bin"

static int calib_dir_get(char *dir, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("JCAL_CALIB_DIR"), *home = getenv("HOME");

	if (len > CALIB_DIR_MAX + 1)
		len = CALIB_DIR_MAX + 1;
	if (calib_dir_default(dir, len) == 0)
		return 0;
	if (env && *env)
		snprintf(err, errlen,
			 "calibrate: JCAL_CALIB_DIR is too long (%zu bytes; at most %zu bytes)",
			 strlen(env), len - 1);
	else if (home && *home)
		snprintf(
		    err, errlen,
		    "calibrate: HOME is too long for the calibration directory "
		    "$HOME/.local/share/jcal/calib (at most %zu bytes in all); set JCAL_CALIB_DIR",
		    len - 1);
	else
		snprintf(err, errlen,
			 "calibrate: no calibration directory: JCAL_CALIB_DIR and HOME are unset");
	return -1;
}

/*
 * The calibration trace of this run: a fresh, unpredictable name in the
 * calibration directory (calibration-PID-RANDOM.bin) that does not exist
 * yet, so that nothing planted there (a symlink) is written through, and
 * calibrations running at once each write their own.
 */
static int fresh_trace_name(const char *dir, char *out, size_t len, char *err, size_t errlen)
{
	for (unsigned i = 0; i < 32; i++) {
		uint64_t r = 0;
		struct stat sb;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
			    ((uint64_t)getpid() << 40) ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull);
		}
		int n = snprintf(out, len, "%s/calibration-%ld-%016llx.bin", dir, (long)getpid(),
				 (unsigned long long)r);
		if (n < 0 || (size_t)n >= len) {
			snprintf(err, errlen, "calibrate: the trace path in %.300s is too long",
				 dir);
			return -1;
		}
		if (lstat(out, &sb) != 0 && errno == ENOENT)
			return 0;
	}
	snprintf(err, errlen, "calibrate: no free trace name in %.300s", dir);
	return -1;
}

/* Where calibrate_onload put the trace, when it chose the name. */
static char own_trace_dir[JCAL_OPT_PATH_MAX];

int calibrate_onload(jvmtiEnv *jvmti, char *out_path, size_t out_len, char *err, size_t errlen)
{
	char dir[JCAL_OPT_PATH_MAX];

	/* No calibration inside a calibration's env-timer child (calib_child.h). */
	if (calib_child_refuse(getenv(CALIB_CHILD_MARKER), err, errlen))
		return -1;
	if (jcal_lib_file("jcal-calibrator.jar", jar_path, sizeof(jar_path))) {
		snprintf(err, errlen,
			 "calibrate: %s not found (it is built beside libjcal.so by make)",
			 jar_path);
		return -1;
	}
	if (jvmti_check_debug(jvmti, (*jvmti)->AddToSystemClassLoaderSearch(jvmti, jar_path),
			      "AddToSystemClassLoaderSearch")) {
		snprintf(err, errlen, "calibrate: cannot add %s to the class path", jar_path);
		return -1;
	}
	/* The trace goes to the calibration directory unless out= was given. */
	if (jcal.opts.command == JCAL_CMD_CALIBRATE &&
	    (out_path[0] == '\0' || !strcmp(jcal.opts.out, "jcal-%p.bin"))) {
		if (calib_dir_get(dir, sizeof(dir), err, errlen) ||
		    calib_dir_create(dir, err, errlen) ||
		    fresh_trace_name(dir, out_path, out_len, err, errlen))
			return -1;
		snprintf(own_trace_dir, sizeof(own_trace_dir), "%s", dir);
	}
	return 0;
}

static void workload_fail(const char *msg)
{
	pthread_mutex_lock(&work.lock);
	work.failed = 1;
	snprintf(work.err, sizeof(work.err), "%s", msg);
	pthread_mutex_unlock(&work.lock);
}

static int bci_mode(void)
{
	return jcal.opts.mode == JCAL_MODE_BCI;
}

static int native_type(unsigned t)
{
	return t == JCAL_MT_NATIVE_STATIC || t == JCAL_MT_NATIVE;
}

/* Keys the calibration can produce in this mode: mode=bci traces no
 * natives, so its keys are those of types I i J j O. */
static int key_wanted(const struct seqkey *k)
{
	if (!bci_mode())
		return seqkey_reachable(SEQKEY_MODE_EVENTS, k);
	return seqkey_reachable(SEQKEY_MODE_BCI, k) && !native_type(k->m1) && !native_type(k->m2) &&
	       !native_type(k->m3);
}

/* mode=bci: how many of the static Workload method st and the instance
 * method inst (I and i, or H and h) have compiled code. */
static int workload_jitted(const char *st, const char *inst)
{
	return (recording_method_compiled("Ljcal/calib/Workload;", st, "([II)V", 0x0009) > 0) +
	       (recording_method_compiled("Ljcal/calib/Workload;", inst, "([II)V", 0x0001) > 0);
}

static int set_events(jvmtiEnv *jvmti, jvmtiEventMode mode, jthread self)
{
	/* The caller says what failed in its own words. */
	if (jvmti_check_debug(
		jvmti,
		(*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_METHOD_ENTRY, self),
		"SetEventNotificationMode(MethodEntry)"))
		return -1;
	if (jvmti_check_debug(
		jvmti,
		(*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_METHOD_EXIT, self),
		"SetEventNotificationMode(MethodExit)"))
		return -1;
	return 0;
}

/* mode=events: the work loop's untraced cost, timed between the traced
 * rounds (calib_worktime.h); worktime_ok when its leaves exist. */
static struct calib_worktime worktime;
static int worktime_ok;

static void run_rounds(JNIEnv *env, jintArray *arr, const struct calib_prog *p, size_t n,
		       int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++)
			calib_natives_call(env, p[i].code[0], arr[i], 0);
	work.runs += (uint64_t)rounds * n;
}

/* Sets the work loop and marks it in the thread's events (st may be NULL:
 * then only the loop is set). */
static void set_work(JNIEnv *env, struct jcal_thread *st, int iterations)
{
	char label[48];

	calib_natives_set_work(env, iterations);
	if (st) {
		snprintf(label, sizeof(label), CALIB_WORK_MARK "%d", iterations);
		recording_mark(st, label);
	}
}

/* The measured rounds: empty bodies, and after every WORK_EVERY of them one
 * round at each work loop length. Without the thread's trace state (no
 * marks to say which length a step had), and in a traced program's own
 * trace (recalibrate=, whose marks the user would see), only the empty
 * bodies run. With self (mode=events), the loops are then timed with the
 * thread's events off; the mark of length 0 that follows keeps that time
 * out of every delta. */
static void run_measured(jvmtiEnv *jvmti, JNIEnv *env, jintArray *arr, const struct calib_prog *p,
			 size_t n, int rounds, struct jcal_thread *st, jthread self)
{
	int with_work = jcal.opts.command != JCAL_CMD_TRACE;

	for (int done = 0; done < rounds; done += WORK_EVERY) {
		run_rounds(env, arr, p, n, rounds - done < WORK_EVERY ? rounds - done : WORK_EVERY);
		if (!with_work)
			continue;
		if (!st)
			st = recording_thread(jvmti); /* made at the thread's first event */
		if (!st)
			continue;
		for (int l = 0; l < NWORK_LEVELS; l++) {
			set_work(env, st, work_levels[l]);
			run_rounds(env, arr, p, n, 1);
		}
		if (self && worktime_ok && !set_events(jvmti, JVMTI_DISABLE, self)) {
			calib_worktime_sample(env, &worktime, work_levels, NWORK_LEVELS);
			if (set_events(jvmti, JVMTI_ENABLE, self))
				workload_fail("calibrate: cannot enable method events again");
		}
		set_work(env, st, 0);
	}
}

/*
 * mode=bci: the probes record whenever the thread's region is open, so the
 * warm-up is an untraced region (STOP/START control events: calib_derive
 * takes no delta across them). A cold round first, while every node method
 * runs interpreted; then the warm-up until the JIT has compiled Workload.I
 * and i; then the measured rounds, where I/i run compiled (J/j) and H/h,
 * which HotSpot does not compile, interpreted (I/i): every pair of types.
 */
static void bci_rounds(jvmtiEnv *jvmti, JNIEnv *env, jintArray *arr, const struct calib_prog *p,
		       size_t n)
{
	struct jcal_thread *st = recording_thread(jvmti);
	int rounds = 0;

	if (!st) {
		workload_fail("calibrate: the calibrator thread has no trace state");
		return;
	}
	run_rounds(env, arr, p, n, BCI_COLD_ROUNDS);
	recording_region_close(st);
	while (rounds < BCI_WARMUP_MAX &&
	       (rounds < BCI_WARMUP_ROUNDS || workload_jitted("I", "i") < 2)) {
		/* every work loop length too: the JIT compiles the loops */
		calib_natives_set_work(env,
				       (rounds / 10) % (NWORK_LEVELS + 1)
					   ? work_levels[(rounds / 10) % (NWORK_LEVELS + 1) - 1]
					   : 0);
		run_rounds(env, arr, p, n, 10);
		rounds += 10;
	}
	calib_natives_set_work(env, 0);
	recording_region_open(st);
	if (workload_jitted("I", "i") < 2)
		jcal_warn("calibrate: Workload.I/i not compiled after %d warm-up rounds: the table "
			  "may lack J/j keys",
			  rounds);
	/* H/h pass HotSpot's huge-method limit; -XX:-DontCompileHugeMethods
	 * compiles them anyway */
	if (workload_jitted("H", "h") > 0)
		jcal_warn(
		    "calibrate: Workload.H/h were compiled (-XX:-DontCompileHugeMethods?): the "
		    "table may lack the keys that mix interpreted and jitted types");
	jcal_debug("calibrate: mode=bci warm-up %d rounds, I/i %d jitted, H/h %d jitted", rounds,
		   workload_jitted("I", "i"), workload_jitted("H", "h"));
	run_measured(jvmti, env, arr, p, n, MEASURE_ROUNDS, st, NULL);
}

static void *workload_main(void *arg)
{
	jvmtiEnv *jvmti = arg;
	JNIEnv *env = NULL;
	JavaVMAttachArgs args = {JNI_VERSION_1_6, (char *)CALIB_THREAD_NAME, NULL};
	struct calib_prog *progs = NULL;
	size_t n = 0;
	jintArray *arr = NULL;
	jthread self = NULL;
	struct jcal_thread *st;
	char err[512];

	if ((*jcal.vm)->AttachCurrentThread(jcal.vm, (void **)&env, &args) != JNI_OK) {
		workload_fail("calibrate: cannot attach the calibrator thread to the JVM");
		goto out;
	}
	/* In a traced JVM (recalibrate=) the thread's events are on already:
	 * everything up to the measured rounds (loading the workload classes and
	 * natives, the warm-up) is left out of the trace as an untraced region,
	 * and so is the detach (Thread.exit) after them. */
	st = jcal.opts.command == JCAL_CMD_TRACE ? recording_thread(jvmti) : NULL;
	if (st)
		recording_region_close(st);
	if (calib_natives_register_workload(env, err, sizeof(err))) {
		workload_fail(err);
		goto detach;
	}
	n = bci_mode() ? calib_programs_build_bci(&progs) : calib_programs_build(&progs);
	arr = n ? calloc(n, sizeof(*arr)) : NULL;
	if (!arr) {
		workload_fail("calibrate: out of memory building the workload");
		goto detach;
	}
	for (size_t i = 0; i < n; i++) {
		jintArray a = (*env)->NewIntArray(env, progs[i].len);
		if (!a) {
			workload_fail("calibrate: cannot allocate a workload array");
			goto detach;
		}
		(*env)->SetIntArrayRegion(env, a, 0, progs[i].len, (const jint *)progs[i].code);
		arr[i] = (*env)->NewGlobalRef(env, a);
		(*env)->DeleteLocalRef(env, a);
	}
	if (bci_mode()) {
		bci_rounds(jvmti, env, arr, progs, n);
		goto detach;
	}
	/* Warm-up without events: resolves call sites, initialises classes. */
	run_rounds(env, arr, progs, n, WARMUP_ROUNDS);
	worktime_ok = !st && !calib_worktime_init(env, &worktime);
	if (st)
		recording_region_open(st);
	if (jvmti_check_debug(jvmti, (*jvmti)->GetCurrentThread(jvmti, &self),
			      "GetCurrentThread") ||
	    set_events(jvmti, JVMTI_ENABLE, self)) {
		workload_fail("calibrate: cannot enable method events for the calibrator thread");
		goto detach;
	}
	run_measured(jvmti, env, arr, progs, n, st ? INRUN_ROUNDS : MEASURE_ROUNDS, st, self);
	set_events(jvmti, JVMTI_DISABLE, self);
	if (st)
		recording_region_close(st);
detach:
	if (worktime_ok)
		calib_worktime_free(env, &worktime);
	if (arr) {
		for (size_t i = 0; i < n; i++)
			if (arr[i])
				(*env)->DeleteGlobalRef(env, arr[i]);
		free(arr);
	}
	calib_programs_free(progs, n);
	if (env)
		(*jcal.vm)->DetachCurrentThread(jcal.vm);
out:
	pthread_mutex_lock(&work.lock);
	work.done = 1;
	pthread_cond_signal(&work.cond);
	pthread_mutex_unlock(&work.lock);
	return NULL;
}

/* Runs the workload thread and waits for it, bounded. */
static int run_workload(jvmtiEnv *jvmti, char *err, size_t errlen)
{
	pthread_t t;
	struct timespec deadline;
	int rc = 0;

	/* recalibrate=both runs it twice */
	pthread_mutex_lock(&work.lock);
	work.done = work.failed = 0;
	pthread_mutex_unlock(&work.lock);
	if (pthread_create(&t, NULL, workload_main, jvmti) != 0) {
		snprintf(err, errlen, "calibrate: cannot start the calibrator thread: %s",
			 strerror(errno));
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += WORKLOAD_TIMEOUT_S;
	pthread_mutex_lock(&work.lock);
	while (!work.done && rc == 0)
		rc = pthread_cond_timedwait(&work.cond, &work.lock, &deadline);
	int done = work.done, failed = work.failed;
	if (failed)
		snprintf(err, errlen, "%s", work.err);
	pthread_mutex_unlock(&work.lock);
	if (!done) {
		snprintf(err, errlen, "calibrate: the workload did not finish within %d s",
			 WORKLOAD_TIMEOUT_S);
		return -1;
	}
	pthread_join(t, NULL);
	return failed ? -1 : 0;
}

/* java.home, read once from a JVM-attached thread: the periodic timer
 * thread of recalibrate=PERIOD is not attached, and JVMTI refuses it. */
static char java_home[1024];

int calibrate_prepare(jvmtiEnv *jvmti)
{
	char *home = NULL;

	if (java_home[0])
		return 0;
	/* The callers say what is missing. */
	if (jvmti_check_debug(jvmti, (*jvmti)->GetSystemProperty(jvmti, "java.home", &home),
			      "GetSystemProperty(java.home)") ||
	    !home)
		return -1;
	snprintf(java_home, sizeof(java_home), "%s", home);
	jvmti_free(jvmti, home);
	return 0;
}

/* Runs the env timer in a child JVM; fills out with its output. */
static int run_env_timer(jvmtiEnv *jvmti, char *out, size_t outlen, char *err, size_t errlen)
{
	char java[1200], lib[1100];
	int fds[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	size_t len = 0;
	int status = 0;
	time_t start = time(NULL);

	if (calibrate_prepare(jvmti)) {
		snprintf(err, errlen, "calibrate: java.home is not known");
		return -1;
	}
	snprintf(java, sizeof(java), "%s/bin/java", java_home);
	jcal_lib_file("libjcal.so", lib, sizeof(lib));
	/* mode=events runs traced threads interpreted, mode=bci jitted: the
	 * uninstrumented truth is -Xint, or the JIT after a warm-up. */
	char warm[16];
	snprintf(warm, sizeof(warm), "%d", ENV_BCI_WARMUP);
	/* EnvTimer loads libjcal.so with System.load, a restricted method that
	 * JDK 24 and later warn about unless native access is enabled. */
	char native[] = "--enable-native-access=ALL-UNNAMED";
	char *argv_xint[] = {java,  "-Xint",  "-Xshare:auto",	     native,
			     "-cp", jar_path, "jcal.calib.EnvTimer", lib,
			     NULL};
	char *argv_jit[] = {java, "-Xshare:auto", native, "-cp", jar_path, "jcal.calib.EnvTimer",
			    lib,  "10000",	  "15",	  warm,	 "bci",	   NULL};
	char **argv = bci_mode() ? argv_jit : argv_xint;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "calibrate: pipe: %s", strerror(errno));
		return -1;
	}
	/* The child must not inherit this agent through the environment: jcal's
	 * options are taken out of the JVM option variables, and the marker
	 * makes an agent loaded into it anyway refuse (calib_child.h). */
	char **envp = calib_child_env(environ, lib, getpid());
	if (!envp) {
		close(fds[0]);
		close(fds[1]);
		snprintf(err, errlen, "calibrate: out of memory for the env timer's environment");
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	int rc = posix_spawn(&pid, java, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	calib_child_env_free(envp);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		snprintf(err, errlen, "calibrate: cannot start %.300s: %s", java, strerror(rc));
		return -1;
	}
	for (;;) {
		struct pollfd p = {fds[0], POLLIN, 0};
		int left = (int)(ENV_TIMEOUT_S - (time(NULL) - start));
		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(fds[0]);
			snprintf(err, errlen,
				 "calibrate: the env timer JVM did not finish within %d s",
				 ENV_TIMEOUT_S);
			return -1;
		}
		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t r = read(fds[0], out + len, outlen - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len >= outlen - 1)
			break;
	}
	out[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen,
			 "calibrate: the env timer JVM (%.300s%s ... EnvTimer) failed "
			 "(status %d)",
			 java, bci_mode() ? "" : " -Xint", status);
		return -1;
	}
	return 0;
}

/* Writes env.KEY meta records for every key reachable in this mode. */
static unsigned write_env_meta(const struct calib_env *e)
{
	struct trace_recbuf *rb;
	double scale = 1.0;
	unsigned n = 0;
	char name[SEQKEY_TEXT_LEN], value[32];

	/* env is measured in ns; tsc traces count ticks. */
	if (!strcmp(jcal.metrics.m[0].name, "tsc") && jcal.metrics.tsc_hz)
		scale = (double)jcal.metrics.tsc_hz / 1e9;
	/* VM death stops tracing before it takes the file lock to close the
	 * file: a periodic burst that ends after that has nowhere to go. */
	rb = recording_meta_begin();
	if (!rb)
		return 0;
	trace_rec_meta(rb, "calib.thread", CALIB_THREAD_NAME);
	if (bci_mode())
		trace_rec_meta(
		    rb, "env.method",
		    "jit-child-jvm: calls between the workload's node methods timed per "
		    "caller/callee type in a JVM in mixed mode without agent after a warm-up "
		    "of 20000 calls per loop (the JIT run; J j compiled, I i too long to "
		    "compile), each call split in halves around the callee's entry and exit");
	else
		trace_rec_meta(
		    rb, "env.method",
		    "xint-child-jvm: empty calls timed per caller/callee type in a -Xint "
		    "JVM without agent, each call split in halves around the callee's "
		    "entry and exit");
	/* the work loop's own cost per type and length, the steps' true work:
	 * timed in this JVM (mode=events) or in the env child (mode=bci) */
	const char *types = bci_mode() ? "IiJj" : "IiNn";
	for (const char *t = types; *t; t++)
		for (int l = 0; l < NWORK_LEVELS; l++) {
			double ns = bci_mode() ? calib_env_work(e, *t, work_levels[l])
					       : calib_worktime_ns(&worktime, (int)(t - types), l);
			char key[48];

			if (ns < 0)
				continue;
			snprintf(key, sizeof(key), CALIB_WORK_META "%c.%d", *t, work_levels[l]);
			snprintf(value, sizeof(value), "%llu",
				 (unsigned long long)(ns * scale + 0.5));
			trace_rec_meta(rb, key, value);
		}
	struct seqkey k;
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		seqkey_from_index(i, &k);
		if (!key_wanted(&k))
			continue;
		seqkey_format(&k, name);
		double ns = calib_env_key(e, name);
		if (ns < 0)
			continue;
		char key[32];
		snprintf(key, sizeof(key), "env.%s", name);
		snprintf(value, sizeof(value), "%llu", (unsigned long long)(ns * scale + 0.5));
		trace_rec_meta(rb, key, value);
		n++;
	}
	recording_meta_end();
	return n;
}

static void exit_jvm(JNIEnv *jni, int status)
{
	jclass sys = (*jni)->FindClass(jni, "java/lang/System");
	jmethodID m = sys ? (*jni)->GetStaticMethodID(jni, sys, "exit", "(I)V") : NULL;

	if (m)
		(*jni)->CallStaticVoidMethod(jni, sys, m, (jint)status);
	/* Not reached unless System.exit failed. */
	exit(status);
}

/* How the calibrate command went, for calibrate_finish at VM death. */
enum { CALIB_NOT_RUN, CALIB_FAILED, CALIB_COMPLETE };
static atomic_int calib_state;

#define NO_TABLE                                                                                   \
	"the calibration is incomplete: no table written (an existing table is left as it was)"

/* Ends a calibration that cannot give a table: one error line, exit 1. */
static void calibrate_fail(JNIEnv *jni, const char *reason)
{
	atomic_store(&calib_state, CALIB_FAILED);
	jcal_error("%s; %s", reason, NO_TABLE);
	exit_jvm(jni, 1);
}

void calibrate_vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
	char err[1024];
	static char env_out[16384];
	struct calib_env env;

	jcal_info("calibrating: metric %s, trace %s", jcal.metrics.m[0].name, jcal.out_path);
	if (run_workload(jvmti, err, sizeof(err)))
		calibrate_fail(jni, err);
	if (run_env_timer(jvmti, env_out, sizeof(env_out), err, sizeof(err)) ||
	    calib_env_parse(&env, env_out, err, sizeof(err)))
		calibrate_fail(jni, err);
	unsigned n = write_env_meta(&env);
	if (recording_failed()) {
		snprintf(err, sizeof(err),
			 "calibrate: a write to the calibration trace %.600s failed (file size "
			 "limit or disk full?)",
			 jcal.out_path);
		calibrate_fail(jni, err);
	}
	jcal_debug("calibrate: %llu program runs, %u env keys", (unsigned long long)work.runs, n);
	atomic_store(&calib_state, CALIB_COMPLETE);
	exit_jvm(jni, 0);
}

/* Names the reachable keys the workload did not produce (at most 24). */
static void report_missing(const struct calib_table *t)
{
	char line[24 * SEQKEY_TEXT_LEN + 64], name[SEQKEY_TEXT_LEN];
	size_t len = 0;
	unsigned missing = 0;
	struct seqkey k;

	line[0] = '\0';
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		seqkey_from_index(i, &k);
		if (!key_wanted(&k) || calib_table_get(t, &k))
			continue;
		if (missing++ < 24)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %s",
						seqkey_format(&k, name));
	}
	if (missing)
		jcal_info(
		    "keys the workload did not produce (%u; jcal-post falls back for them):%s%s",
		    missing, line, missing > 24 ? " ..." : "");
}

static pthread_mutex_t inrun_lock = PTHREAD_MUTEX_INITIALIZER;

void calibrate_inrun(jvmtiEnv *jvmti, JNIEnv *jni)
{
	char err[1024];
	static char env_out[16384];
	struct calib_env env;

	(void)jni;
	/* start, end and periodic bursts share the workload state: one at a time */
	pthread_mutex_lock(&inrun_lock);
	if (jcal_stopped())
		goto out;
	jcal_info("recalibrate: running the calibration workload in this JVM (~3 s)");
	if (run_workload(jvmti, err, sizeof(err)) ||
	    run_env_timer(jvmti, env_out, sizeof(env_out), err, sizeof(err)) ||
	    calib_env_parse(&env, env_out, err, sizeof(err))) {
		if (!jcal_stopped())
			jcal_warn("recalibrate failed, the trace lacks this in-run calibration: %s",
				  err);
		goto out;
	}
	write_env_meta(&env);
out:
	pthread_mutex_unlock(&inrun_lock);
}

static void JNICALL hooks_recalibrate(JNIEnv *jni, jclass cls)
{
	(void)cls;
	if (!jcal_stopped())
		calibrate_inrun(jcal.jvmti, jni);
}

void calibrate_install_end_hook(JNIEnv *jni)
{
	static const JNINativeMethod native = {"recalibrate", "()V", (void *)hooks_recalibrate};
	jclass cls = (*jni)->FindClass(jni, "jcal/Hooks");
	jmethodID install = cls ? (*jni)->GetStaticMethodID(jni, cls, "install", "()V") : NULL;

	if (!install || (*jni)->RegisterNatives(jni, cls, &native, 1) != 0) {
		(*jni)->ExceptionClear(jni);
		jcal_warn("recalibrate=end: cannot install the shutdown hook (jcal-agent.jar?)");
	} else {
		(*jni)->CallStaticVoidMethod(jni, cls, install);
		if ((*jni)->ExceptionCheck(jni)) {
			(*jni)->ExceptionClear(jni);
			jcal_warn("recalibrate=end: cannot install the shutdown hook");
		}
	}
	if (cls)
		(*jni)->DeleteLocalRef(jni, cls);
}

/*
 * A trace whose name calibrate_onload chose becomes last-calibration.bin
 * for the user to inspect, by an atomic rename, when that entry is a
 * regular file or absent (rename never follows a symlink; anything else
 * there is left alone and the trace keeps its own name). Returns the path
 * the trace has now.
 */
static const char *keep_trace(const char *trace_path, char *buf, size_t len)
{
	struct stat sb;

	if (!own_trace_dir[0])
		return trace_path;
	int n = snprintf(buf, len, "%s/" LAST_TRACE, own_trace_dir);
	if (n < 0 || (size_t)n >= len)
		return trace_path;
	if (lstat(buf, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		jcal_warn("calibrate: %s is not a regular file: left alone; this run's trace stays "
			  "at %s",
			  buf, trace_path);
		return trace_path;
	}
	if (rename(trace_path, buf) != 0) {
		jcal_warn("calibrate: cannot rename %s to %s: %s; the trace stays there",
			  trace_path, buf, strerror(errno));
		return trace_path;
	}
	return buf;
}

int calibrate_finish(const char *trace_path)
{
	struct calib_table table;
	struct calib_derive_info info;
	char err[1024], dir[JCAL_OPT_PATH_MAX], path[2048], kept[JCAL_OPT_PATH_MAX + 64];
	unsigned reachable = 0, covered = 0;
	int state = atomic_load(&calib_state);

	/* Incomplete: said so already (CALIB_FAILED), or the run never got to
	 * its end, or the trace lost a write at the end. */
	if (state != CALIB_COMPLETE || recording_failed()) {
		const char *t = keep_trace(trace_path, kept, sizeof(kept));
		if (state == CALIB_NOT_RUN)
			jcal_error(
			    "calibrate: the JVM ended before the calibration did (trace %s); %s", t,
			    NO_TABLE);
		else if (state == CALIB_COMPLETE)
			jcal_error(
			    "calibrate: a write to the calibration trace %s failed (file size "
			    "limit or disk full?); %s",
			    t, NO_TABLE);
		else
			jcal_info("calibrate: the incomplete calibration's trace is %s", t);
		return -1;
	}
	memset(&info, 0, sizeof(info));
	int derived = calib_derive_file(trace_path, &table, &info, err, sizeof(err));
	const char *t = keep_trace(trace_path, kept, sizeof(kept));
	if (derived) {
		jcal_error("calibrate: %s; %s", err, NO_TABLE);
		calib_table_free(&table);
		return -1;
	}
	/* Every key the workload produced has an environment cost unless the
	 * trace lost its env records. */
	if (info.truncated || info.env_missing || !info.calib_thread[0]) {
		if (info.truncated)
			snprintf(err, sizeof(err), "the trace %s is cut short (%s)", t,
				 info.trace_msg);
		else
			snprintf(err, sizeof(err),
				 "the trace %s lacks the env timer's records (%u keys without an "
				 "environment cost)",
				 t, info.env_missing);
		jcal_error("calibrate: %s; %s", err, NO_TABLE);
		calib_table_free(&table);
		return -1;
	}
	if (jcal.opts.table[0]) {
		snprintf(path, sizeof(path), "%s", jcal.opts.table);
	} else if (calib_dir_get(dir, sizeof(dir), err, sizeof(err)) ||
		   calib_dir_create(dir, err, sizeof(err)) ||
		   calib_dir_path(dir, &table.fp, path, sizeof(path))) {
		jcal_error("calibrate: no calibration directory: %s", err);
		calib_table_free(&table);
		return -1;
	}
	if (calib_table_write_file(&table, path, err, sizeof(err))) {
		jcal_error("calibrate: %s", err);
		calib_table_free(&table);
		return -1;
	}
	for (unsigned i = 0; i < SEQKEY_COUNT; i++) {
		struct seqkey k;
		seqkey_from_index(i, &k);
		if (key_wanted(&k)) {
			reachable++;
			covered += calib_table_get(&table, &k) != NULL;
		}
	}
	jcal_info("calibration table written to %s (trace %s)", path, t);
	jcal_info("key coverage: %u of %u keys reachable in mode=%s; %llu samples from "
		  "thread %s; %u keys without an environment cost",
		  covered, reachable, bci_mode() ? "bci without natives (I i J j O)" : "events",
		  (unsigned long long)info.deltas,
		  info.calib_thread[0] ? info.calib_thread : "(all)", info.env_missing);
	if (info.work_levels > 1)
		jcal_info(
		    "overhead against the step's own work: a fit for %u keys (%u with a single "
		    "body cost: a step that ran in no body; %u with too few samples); %u work "
		    "loop lengths, %llu samples with a work loop",
		    info.fit_keys, info.fit_one_work, info.fit_too_few, info.work_levels,
		    (unsigned long long)info.work_deltas);
	report_missing(&table);
	calib_table_free(&table);
	return 0;
}
