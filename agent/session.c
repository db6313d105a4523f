/*
 * session.c - the live recording session (session.h): the first load of
 * the library into a running JVM (attach), and the recordings' start,
 * stop, dump and status, which take the recording's lock one at a time
 * (docs/live-profiling.md). What a recording's begin and end write, and the
 * load itself, are the lifecycle's (agent.c, through agent_internal.h).
 */
#include "agent/session.h"

#include <dlfcn.h>
#include <jvmti.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_internal.h"
#include "common/attach_reply.h"
#include "agent/core/agent_state.h"
#include "agent/bci/bci_agent.h"
#include "agent/bci/bci_tiny.h"
#include "agent/bci/throttle.h"
#include "agent/base/jvmti_check.h"
#include "agent/base/log.h"
#include "agent/core/method_table.h"
#include "agent/base/options.h"
#include "agent/core/region_control.h"
#include "agent/core/thread_state.h"
#include "agent/recording_limits.h"
#include "agent/core/trace_file.h"
#include "agent/core/tree_recorder.h"

int session_attach(JavaVM *vm, const char *options, char *msg, size_t len)
{
	jvmtiCapabilities pot;
	jvmtiEnv *probe = NULL;
	int events_offered = 0;

	msg[0] = '\0';
	if (agent_load_options(vm, options) != JNI_OK) {
		agent_load_cancel();
		return JCAL_ATTACH_BAD_OPTIONS;
	}
	if (jcal.opts.command == JCAL_CMD_HELP) {
		snprintf(msg, len, "%s", jcal_options_help());
		agent_load_cancel();
		return JCAL_ATTACH_OK;
	}
	if (jcal.opts.command != JCAL_CMD_TRACE && jcal.opts.command != JCAL_CMD_START) {
		if (jcal.opts.command == JCAL_CMD_CALIBRATE)
			jcal_error("calibrate runs at JVM start only "
				   "(java -agentpath:libjcal.so=calibrate)");
		agent_load_cancel();
		return jcal.opts.command == JCAL_CMD_CALIBRATE ? JCAL_ATTACH_BAD_OPTIONS
							       : JCAL_ATTACH_NOT_RECORDING;
	}
	if (jcal_recalibrating()) {
		jcal_error("option 'recalibrate=' is not available when attaching to a running "
			   "JVM (it records in mode=bci)");
		agent_load_cancel();
		return JCAL_ATTACH_BAD_OPTIONS;
	}
	jcal.opts.command = JCAL_CMD_TRACE;
	/* Method entry/exit events can only be had from JVM start on (HotSpot
	 * 17-25 offers them to no agent attached later): bytecode probes then. */
	memset(&pot, 0, sizeof(pot));
	if ((*vm)->GetEnv(vm, (void **)&probe, JVMTI_VERSION_1_2) == JNI_OK) {
		if ((*probe)->GetPotentialCapabilities(probe, &pot) == JVMTI_ERROR_NONE)
			events_offered = pot.can_generate_method_entry_events &&
					 pot.can_generate_method_exit_events;
		(*probe)->DisposeEnvironment(probe);
	}
	if (!events_offered && jcal.opts.mode == JCAL_MODE_EVENTS) {
		if (jcal.opts.mode_given)
			jcal_info("mode=events is not available in a running JVM (no method "
				  "entry/exit events after start-up): recording in mode=bci");
		jcal.opts.mode = JCAL_MODE_BCI;
	}
	/* A server attached to keeps its speed: throttling by default
	 * (docs/live-profiling.md, "What a recording costs a server"). */
	int throttle_default = jcal.opts.mode == JCAL_MODE_BCI && !jcal.opts.throttle_given;
	if (throttle_default) {
		jcal.opts.throttle_calls = JCAL_ATTACH_THROTTLE_CALLS;
		jcal.opts.throttle_avg = JCAL_ATTACH_THROTTLE_NS;
	}
	/* ... and tiny methods count only from the start (agent/bci/bci_tiny.h),
	 * unless the recording is start=manual, which reports no counted calls:
	 * a tiny method would then be in no report at all */
	int tiny_default =
	    jcal.opts.mode == JCAL_MODE_BCI && !jcal.opts.tiny_given && !jcal.opts.start_manual;
	if (tiny_default)
		jcal.opts.tiny_count = 1;
	/* ... and its probes are static: with the counting probes of throttled
	 * and tiny methods, switchable ones cost Debian's Tomcat on JDK 25
	 * more (docs/agent-internals.md, "Switchable probes") */
	if (jcal.opts.mode == JCAL_MODE_BCI && !jcal.opts.probes_given)
		jcal.opts.probes_static = 1;
	if ((jcal.opts.tiny_count || jcal.opts.inlined_count) && jcal.opts.mode != JCAL_MODE_BCI) {
		jcal_error("option '%s' needs mode=bci (this JVM offers method events: "
			   "give mode=bci)",
			   jcal.opts.tiny_count ? "tiny=count" : "inlined=count");
		agent_load_cancel();
		return JCAL_ATTACH_BAD_OPTIONS;
	}
	/* start,throttle= without mode=: the parser left it to the mode chosen */
	if (jcal.opts.throttle_calls && jcal.opts.mode != JCAL_MODE_BCI) {
		jcal_error("option 'throttle=%llu:%llu' needs mode=bci (this JVM offers method "
			   "events: give mode=bci)",
			   (unsigned long long)jcal.opts.throttle_calls,
			   (unsigned long long)jcal.opts.throttle_avg);
		agent_load_cancel();
		return JCAL_ATTACH_BAD_OPTIONS;
	}
	/* HotSpot unloads a library whose first Agent_OnAttach fails: pin it
	 * first, since a failure past the point where callbacks, threads or
	 * thread-local destructors point into it must not unload it. */
	Dl_info self;
	if (dladdr((void *)session_attach, &self) && self.dli_fname &&
	    !dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
		jcal_debug("cannot pin %s in memory: %s", self.dli_fname, dlerror());
	int rc = agent_load_attached(vm, options, session_stop);
	if (rc != JCAL_ATTACH_OK)
		return rc;
	char thr[256] = "", tiny[160] = "";
	if (throttle_default)
		snprintf(
		    thr, sizeof(thr),
		    " (throttle=%u:%u by default: methods called more than %u times whose calls "
		    "average under %u ns keep only a probe that counts them; throttle=off keeps "
		    "their probes)",
		    JCAL_ATTACH_THROTTLE_CALLS, JCAL_ATTACH_THROTTLE_NS, JCAL_ATTACH_THROTTLE_CALLS,
		    JCAL_ATTACH_THROTTLE_NS);
	if (tiny_default)
		snprintf(tiny, sizeof(tiny),
			 " (tiny=count by default: tiny methods, no call, no loop, at most %d "
			 "bytes, only count their calls; tiny=probe times them too)",
			 BCI_TINY_MAX_BYTES);
	jcal_info("attached: recording in mode=%s to %s%s%s%s", jcal_mode_name(jcal.opts.mode),
		  jcal.out_path, jcal.opts.duration_s ? " until duration= or stop" : " until stop",
		  thr, tiny);
	return JCAL_ATTACH_OK;
}

/* A new recording's options over the running agent's (docs/live-profiling.md,
 * "A later start"): mode=, clock=, metric= and throttle= are the load's
 * (refused unless the same), recalibrate= and table= refused; the
 * recording's own options take what it gives or their defaults; the
 * filters stay until a start gives new ones. log= and loglevel= are the
 * session's to apply once the start succeeded. 0, or -1 (said). */
static int take_options(const struct jcal_options *o)
{
	char names[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX], err[1024];

	metric_set_names(&jcal.metrics, names, sizeof(names));
	if (jcal_options_later_check(&jcal.opts, names, o, err, sizeof(err))) {
		jcal_error("%s", err);
		return -1;
	}
	snprintf(jcal.opts.out, sizeof(jcal.opts.out), "%s", o->out);
	jcal.opts.duration_s = o->duration_s;
	jcal.opts.maxsize = o->maxsize;
	jcal.opts.start_manual = o->start_manual;
	jcal.opts.output = o->output;
	jcal.opts.maxcontexts = o->maxcontexts;
	jcal.opts.hists_off = o->hists_off;
	jcal.opts.slow_ns = o->slow_ns;
	jcal.opts.slow_max = o->slow_max;
	jcal.opts.monitors_off = o->monitors_off;
	snprintf(jcal.opts.calib, sizeof(jcal.opts.calib), "%s", o->calib);
	/* this recording's own labels (label=) */
	jcal.opts.nlabels = o->nlabels;
	memcpy(jcal.opts.label_key, o->label_key, sizeof(o->label_key));
	memcpy(jcal.opts.label_value, o->label_value, sizeof(o->label_value));
	if (o->bci_include[0] || o->bci_exclude[0]) {
		memcpy(jcal.opts.bci_include, o->bci_include, sizeof(o->bci_include));
		memcpy(jcal.opts.bci_exclude, o->bci_exclude, sizeof(o->bci_exclude));
	}
	/* mode=events: each method's filter bit follows the new filters */
	method_table_refilter(jcal.opts.mode == JCAL_MODE_EVENTS ? agent_events_filter() : NULL);
	return 0;
}

/* A later start's log= (opened, not yet used: *log) and loglevel=. 0, or
 * -1 (said). */
static int open_log(const struct jcal_options *o, FILE **log)
{
	char err[1200];

	*log = NULL;
	if (o->log[0] && !(*log = jcal_log_open(o->log, err, sizeof(err)))) {
		jcal_error("log=%s: %s", o->log, err);
		return -1;
	}
	return 0;
}

/* The start succeeded: log= and loglevel= from now on. */
static void use_log(const struct jcal_options *o, FILE *log)
{
	if (log) {
		jcal_log_switch(log);
		snprintf(jcal.opts.log, sizeof(jcal.opts.log), "%s", o->log);
	}
	if (o->loglevel_given) {
		jcal.opts.loglevel = o->loglevel;
		jcal.opts.quiet = o->quiet;
		jcal_log_set_level(o->loglevel);
	}
}

/* The recording's header, and with trees its table and the trees made
 * again (the table needs the header's fingerprint, the trees the table).
 * 0, or -1 with err (calib= cannot be used). */
static int begin_output(const char *options, char *err, size_t errlen)
{
	agent_write_header_meta(options);
	if (jcal.opts.mode == JCAL_MODE_BCI)
		bci_agent_write_meta();
	trace_file_begin();
	agent_write_vm_meta(jcal.jvmti);
	if (tree_recorder_choose_table(err, errlen) ||
	    (tree_recorder_on() && tree_recorder_slow_setup(0, err, errlen)))
		return -1;
	/* the trees start afresh, or are emptied and given back by their
	 * threads (output=trace); the table stays: same JVM */
	tree_recorder_reset();
	return 0;
}

/* "output=tree, trees compensated with T" for the start's line. */
static void describe_output(char *buf, size_t len)
{
	const char *path, *note;
	int applied;

	if (!tree_recorder_on()) {
		snprintf(buf, len, "output=trace");
		return;
	}
	applied = tree_recorder_table(&path, &note);
	snprintf(buf, len, "output=%s, trees %s%s", jcal_output_name(jcal.opts.output),
		 applied ? "compensated with " : "not compensated", applied ? path : "");
}

/* What a new file of a recording (a start, a rotation) counts from zero:
 * its lost events and class work; every thread starts again in it. */
static void new_file_state(void)
{
	atomic_store(&jcal.lost_events, 0);
	atomic_store(&jcal.work_classes, 0);
	atomic_store(&jcal.work_metric, 0);
	thread_state_new_recording();
}

int session_start(JNIEnv *jni, const struct jcal_options *o, const char *options, char *msg,
		  size_t len)
{
	char err[1400], what[1200];
	FILE *log = NULL;
	int rc = JCAL_ATTACH_OK;

	if (len)
		msg[0] = '\0';
	struct agent_rec *rec = agent_rec_lock();
	if (rec->active) {
		jcal_error("a recording is running (out=%s): stop it first", trace_file_path());
		rc = JCAL_ATTACH_RECORDING;
		goto out;
	}
	if (atomic_load(&jcal.dead) || jcal.opts.command != JCAL_CMD_TRACE) {
		jcal_error("the agent cannot record again in this JVM (%s)",
			   jcal.opts.command != JCAL_CMD_TRACE ? "it runs calibrate" : "it exits");
		rc = JCAL_ATTACH_FAILED;
		goto out;
	}
	if (take_options(o)) {
		rc = JCAL_ATTACH_BAD_OPTIONS;
		goto out;
	}
	if (open_log(o, &log)) {
		rc = JCAL_ATTACH_OUTPUT;
		goto out;
	}
	rec->file_seq = 1;
	if (jcal_options_expand_out(jcal.opts.out, getpid(), time(NULL), jcal.out_path,
				    sizeof(jcal.out_path), err, sizeof(err)) ||
	    agent_open_output(TRACE_FILE_NOWAIT, err, sizeof(err))) {
		jcal_error("%s", err);
		rc = JCAL_ATTACH_OUTPUT;
		goto out;
	}
	atomic_store(&jcal.session_first, atomic_fetch_add(&jcal.recording, 1) + 1);
	new_file_state();
	if (begin_output(options, err, sizeof(err))) {
		jcal_error("%s", err);
		trace_file_abandon();
		rc = JCAL_ATTACH_BAD_OPTIONS;
		goto out;
	}
	method_table_write_all();
	region_control_write_labels();
	trace_file_flush();
	agent_rec_began(options);
	use_log(o, log);
	log = NULL;
	atomic_store(&jcal.stopped, 0);
	if (jcal.opts.mode == JCAL_MODE_BCI) {
		throttle_new_recording(jni); /* counted calls from here */
		bci_agent_set_probes(jcal.jvmti, jni, 1);
	} else if (!jcal.opts.start_manual) {
		jcal_method_events(JVMTI_ENABLE, NULL, jvmti_check);
	}
	jcal_monitor_events(JVMTI_ENABLE, jvmti_check);
	recording_limits_start(&jcal.opts, session_stop);
	describe_output(what, sizeof(what));
	jcal_info("recording in mode=%s, %s, to %s", jcal_mode_name(jcal.opts.mode), what,
		  jcal.out_path);
out:
	if (log)
		fclose(log);
	agent_rec_unlock();
	return rc;
}

int session_stop(JNIEnv *jni, unsigned limit, const char *reason, char *msg, size_t len)
{
	int rc = JCAL_ATTACH_OK;

	if (len)
		msg[0] = '\0';
	struct agent_rec *rec = agent_rec_lock();
	if (!rec->active || (limit && !recording_limits_current(limit))) {
		if (!limit)
			jcal_error("no recording is running%s%s",
				   rec->last[0] ? "; the last: " : "", rec->last);
		rc = JCAL_ATTACH_NOT_RECORDING;
		goto out;
	}
	/* Its summary line ("wrote ...") is the answer. */
	agent_rec_finish(jni, reason ? reason : "stop command");
	/* Back to full speed: the classes lose their probes (method events
	 * were disabled by the stop itself). */
	if (jcal.opts.mode == JCAL_MODE_BCI && !atomic_load(&jcal.dead))
		bci_agent_set_probes(jcal.jvmti, jni, 0);
out:
	agent_rec_unlock();
	return rc;
}

/* The recording ends here, its file complete, since the next file of a
 * rotation could not be begun (err): the event path stopped, the probes
 * removed, as a stop does. */
static int rotate_failed(JNIEnv *jni, struct agent_rec *rec, const char *err)
{
	rec->active = 0;
	jcal_tracing_stop(); /* the held events are dropped now */
	recording_limits_cancel();
	if (jcal.opts.mode == JCAL_MODE_BCI && !atomic_load(&jcal.dead))
		bci_agent_set_probes(jcal.jvmti, jni, 0);
	jcal_error("rotate: %s; the recording ended with %s", err, trace_file_closed_path());
	return JCAL_ATTACH_OUTPUT;
}

/* The rotation's second half, the event path held: the next file at
 * jcal.out_path begun as a start begins it, with every method defined in
 * it and every thread started again at its next event (marked late: the
 * frames it has open come back as unmatched exits). 0, or -1 with err. */
static int rotate_begin(const char *options, char *err, size_t errlen)
{
	if (agent_open_output(TRACE_FILE_NOWAIT, err, errlen))
		return -1;
	atomic_fetch_add(&jcal.recording, 1);
	new_file_state();
	if (begin_output(options, err, errlen)) {
		trace_file_abandon();
		return -1;
	}
	method_table_write_all();
	region_control_write_labels();
	trace_file_flush();
	agent_rec_began(options);
	return 0;
}

int session_rotate(JNIEnv *jni, const struct jcal_options *o, char *msg, size_t len)
{
	char next[JCAL_OPT_PATH_MAX], err[1400], options[sizeof(((struct agent_rec *)0)->options)];
	int rc = JCAL_ATTACH_OK;

	msg[0] = '\0';
	struct agent_rec *rec = agent_rec_lock();
	if (!rec->active || jcal_stopped()) {
		jcal_error("no recording is running%s: nothing to rotate",
			   rec->active ? " (it is ending)" : "");
		rc = JCAL_ATTACH_NOT_RECORDING;
		goto out;
	}
	unsigned seq = (rec->file_seq ? rec->file_seq : 1) + 1;
	if (jcal_options_expand_out_seq(o->out_given ? o->out : jcal.opts.out, getpid(), time(NULL),
					seq, next, sizeof(next), err, sizeof(err))) {
		jcal_error("rotate: %s", err);
		rc = JCAL_ATTACH_BAD_OPTIONS;
		goto out;
	}
	if (!strcmp(next, trace_file_path())) {
		jcal_error("rotate: the next file would be this one, %s (give out= a new name, or "
			   "%%n or %%t in the start's out=)",
			   next);
		rc = JCAL_ATTACH_BAD_OPTIONS;
		goto out;
	}
	snprintf(options, sizeof(options), "%s", rec->options);
	/* Every event from here waits until the next file is begun; the
	 * buffers hold each thread's events up to now, written to this file. */
	struct timespec held0, held1;
	clock_gettime(CLOCK_MONOTONIC, &held0);
	atomic_store(&jcal.stopped, JCAL_HELD);
	snprintf(err, sizeof(err), "rotated: the recording goes on in %s", next);
	agent_rec_close(jni, err);
	snprintf(jcal.out_path, sizeof(jcal.out_path), "%s", next);
	/* the trees too start again, emptied (begin_output) */
	if (rotate_begin(options, err, sizeof(err))) {
		rc = rotate_failed(jni, rec, err);
		goto out;
	}
	rec->file_seq = seq;
	int held = JCAL_HELD;
	atomic_compare_exchange_strong(&jcal.stopped, &held, 0);
	clock_gettime(CLOCK_MONOTONIC, &held1);
	/* the summary of the file closed is logged (in the reply too) */
	snprintf(msg, len, "rotated: recording to %s (events held %.1f ms)\n", jcal.out_path,
		 (double)(held1.tv_sec - held0.tv_sec) * 1e3 +
		     (double)(held1.tv_nsec - held0.tv_nsec) / 1e6);
out:
	agent_rec_unlock();
	return rc;
}

int session_dump(const char *path, char *msg, size_t len)
{
	char dst[JCAL_OPT_PATH_MAX + 32], err[1200];
	static unsigned dumps;
	int rc = JCAL_ATTACH_OK;

	msg[0] = '\0';
	struct agent_rec *rec = agent_rec_lock();
	if (!rec->active) {
		jcal_error("no recording is running: nothing to dump");
		rc = JCAL_ATTACH_NOT_RECORDING;
		goto out;
	}
	if (path && *path)
		snprintf(dst, sizeof(dst), "%s", path);
	else
		snprintf(dst, sizeof(dst), "%s.dump%u", trace_file_path(), ++dumps);
	if (!strcmp(dst, trace_file_path()) || !strcmp(dst, trace_file_written_path())) {
		jcal_error("dump out=%s: that is the recording's own file", dst);
		rc = JCAL_ATTACH_OUTPUT;
		goto out;
	}
	/* output=tree: a snapshot of the trees; both: the trace's copy and a
	 * snapshot beside it (tree_recorder.h) */
	if (jcal.opts.output == JCAL_OUTPUT_TREE) {
		if (tree_recorder_dump(dst, err, sizeof(err))) {
			jcal_error("dump: %s", err);
			rc = JCAL_ATTACH_OUTPUT;
		} else {
			snprintf(msg, len, "dumped the calling-context trees to %s\n", dst);
		}
		goto out;
	}
	if (trace_file_copy(dst, err, sizeof(err))) {
		jcal_error("dump: %s", err);
		rc = JCAL_ATTACH_OUTPUT;
		goto out;
	}
	snprintf(msg, len,
		 "dumped %llu events to %s (events still in the threads' buffers "
		 "are not in it)\n",
		 (unsigned long long)trace_file_events(), dst);
	if (jcal.opts.output == JCAL_OUTPUT_BOTH) {
		size_t used = strlen(msg);

		strncat(dst, ".tree", sizeof(dst) - strlen(dst) - 1);
		if (tree_recorder_dump(dst, err, sizeof(err))) {
			jcal_error("dump: %s", err);
			rc = JCAL_ATTACH_OUTPUT;
		} else if (used < len) {
			snprintf(msg + used, len - used, "dumped the calling-context trees to %s\n",
				 dst);
		}
	}
out:
	agent_rec_unlock();
	return rc;
}

/* status's line of tiny= or inlined= (KEY: count, N WHAT keep only a probe
 * that counts their calls; or KEY: probe), appended to msg. */
static void count_line(char *msg, size_t len, const char *key, int on, size_t n, const char *what)
{
	size_t used = strlen(msg);

	if (used >= len)
		return;
	if (on)
		snprintf(msg + used, len - used,
			 "%s: count, %zu %s keep only a probe that counts their calls\n", key, n,
			 what);
	else
		snprintf(msg + used, len - used, "%s: probe\n", key);
}

int session_status(char *msg, size_t len)
{
	char names[JCAL_MAX_METRICS * JCAL_OPT_METRIC_MAX], since[64], lim[128] = "";
	struct timespec now;
	struct tm tm;
	uint64_t methods, mids, mids_swept;

	struct agent_rec *rec = agent_rec_lock();
	metric_set_names(&jcal.metrics, names, sizeof(names));
	method_table_stats(&methods, &mids, &mids_swept);
	if (!rec->active) {
		snprintf(msg, len,
			 "recording: no\nmode: %s\nmetric: %s\nprobe calls while stopped: %llu\n"
			 "%s%s%s",
			 jcal_mode_name(jcal.opts.mode), names,
			 (unsigned long long)atomic_load(&jcal.probes_stopped),
			 rec->last[0] ? "last: " : "", rec->last, rec->last[0] ? "\n" : "");
		agent_rec_unlock();
		return JCAL_ATTACH_OK;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&rec->since.tv_sec, &tm);
	strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S", &tm);
	/* output=tree writes no trace: its events are the ones the trees took */
	int tree_only = jcal.opts.output == JCAL_OUTPUT_TREE;
	uint64_t events = trace_file_events();
	if (tree_only)
		tree_recorder_counts(NULL, NULL, NULL, &events);
	double secs = (double)(now.tv_sec - rec->since.tv_sec) +
		      (double)(now.tv_nsec - rec->since.tv_nsec) / 1e9;
	if (jcal.opts.duration_s)
		snprintf(lim, sizeof(lim), "duration=%us ", jcal.opts.duration_s);
	if (jcal.opts.maxsize)
		snprintf(lim + strlen(lim), sizeof(lim) - strlen(lim), "maxsize=%llu ",
			 (unsigned long long)jcal.opts.maxsize);
	snprintf(msg, len,
		 "recording: yes\nmode: %s\nmetric: %s\nout: %s\nwriting: %s\n"
		 "since: %s (%.1f s)\nlimits: %s\nevents: %llu %s\nthreads: %llu\n"
		 "bytes: %llu\nlive: %llu thread states, %lu kernel-thread states\n"
		 "methods: %llu (jmethodIDs %llu, %llu of unloaded classes swept)\n",
		 jcal_mode_name(jcal.opts.mode), names, trace_file_path(),
		 trace_file_written_path(), since, secs, lim[0] ? lim : "none ",
		 (unsigned long long)events, tree_only ? "in the trees" : "written",
		 (unsigned long long)thread_state_count(), (unsigned long long)trace_file_bytes(),
		 (unsigned long long)thread_state_live(), kthread_live(),
		 (unsigned long long)methods, (unsigned long long)mids,
		 (unsigned long long)mids_swept);
	struct throttle_state thr;
	if (throttle_status(&thr) && thr.rule_on && strlen(msg) < len)
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "throttle: %s, %zu methods throttled (%zu keep a probe that counts their "
			 "calls)\n",
			 thr.rule, thr.throttled, thr.counted);
	if (jcal.opts.mode == JCAL_MODE_BCI) {
		count_line(msg, len, "tiny", thr.tiny_on, thr.tiny, "tiny methods");
		count_line(msg, len, "inlined", thr.inlined_on, thr.inlined,
			   "methods the JIT had inlined");
	}
	if (jcal.opts.output != JCAL_OUTPUT_TRACE && strlen(msg) < len) {
		uint64_t contexts, fc, fk;

		tree_recorder_counts(&contexts, &fc, &fk, NULL);
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "output: %s\ncontexts: %llu (folded %llu contexts, %llu calls)\n",
			 jcal_output_name(jcal.opts.output), (unsigned long long)contexts,
			 (unsigned long long)fc, (unsigned long long)fk);
	}
	uint64_t sns, sover, skept, smax;
	if (jcal.opts.output != JCAL_OUTPUT_TRACE &&
	    tree_recorder_slow_counts(&sns, &sover, &skept, &smax) && strlen(msg) < len)
		snprintf(
		    msg + strlen(msg), len - strlen(msg),
		    "slow: %llu calls of at least %llu ns, the %llu longest kept (at most %llu)\n",
		    (unsigned long long)sover, (unsigned long long)sns, (unsigned long long)skept,
		    (unsigned long long)smax);
	agent_rec_unlock();
	return JCAL_ATTACH_OK;
}
