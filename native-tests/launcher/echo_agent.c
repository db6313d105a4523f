/*
 * echo_agent.c - a stand-in for libjcal.so's command side, for the
 * launcher's tests (javatests LauncherTests): Agent_OnAttach follows the
 * contract of common/attach_reply.h with a pretend recording. start
 * (optionally with duration=Ns, which ends it after N s), stop, dump and
 * status answer into reply=FILE; the first line of status's reply is
 * "recording: yes" or "recording: no"; every reply also echoes the option
 * string received. An option "bogus..." is refused as a bad option. It
 * answers only into a reply file as the agent accepts one: one the caller
 * made for the purpose (a regular, empty file of one link, opened without
 * creating or truncating it), and says so in its return code otherwise.
 */
#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/attach_reply.h"

static atomic_int recording;
static atomic_int generation; /* ends a duration timer of an earlier start */
static char how_ended[64] = "never started";

static void *timer(void *arg)
{
	long secs = (long)(intptr_t)arg >> 16, gen = (long)(intptr_t)arg & 0xffff;
	sleep((unsigned)secs);
	if (atomic_load(&generation) == gen && atomic_exchange(&recording, 0))
		snprintf(how_ended, sizeof(how_ended), "duration reached");
	return NULL;
}

/* The value of key= in options, copied to out; 0 when present. */
static int value_of(const char *options, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);
	for (const char *p = options; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, outlen, "%.*s", (int)strcspn(p + kl + 1, ","), p + kl + 1);
			return 0;
		}
	return -1;
}

static int answer(const char *reply, int code, const char *fmt, const char *options)
{
	struct stat sb;
	if (!reply[0])
		return code;
	FILE *f = fopen(reply, "r+"); /* never creates nor truncates it */
	if (!f)
		return JCAL_ATTACH_OUTPUT;
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) || sb.st_size != 0 || sb.st_nlink != 1) {
		fclose(f);
		return JCAL_ATTACH_OUTPUT;
	}
	fprintf(f, fmt, how_ended);
	fprintf(f, "options: %s\n", options);
	fclose(f);
	return code;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	char reply[512] = "", dur[32];
	(void)vm, (void)reserved;
	if (!options)
		options = "";
	value_of(options, "reply", reply, sizeof(reply));
	if (strstr(options, "bogus"))
		return answer(reply, JCAL_ATTACH_BAD_OPTIONS, "jcal: error: bad option%.0s\n",
			      options);
	if (!strncmp(options, "start", 5)) {
		if (atomic_exchange(&recording, 1))
			return answer(reply, JCAL_ATTACH_RECORDING,
				      "jcal: error: already recording%.0s\n", options);
		int gen = (atomic_fetch_add(&generation, 1) + 1) & 0xffff;
		snprintf(how_ended, sizeof(how_ended), "still running");
		if (value_of(options, "duration", dur, sizeof(dur)) == 0) {
			pthread_t t;
			intptr_t arg = (intptr_t)atol(dur) << 16 | gen;
			if (pthread_create(&t, NULL, timer, (void *)arg) == 0)
				pthread_detach(t);
		}
		return answer(reply, JCAL_ATTACH_OK, "started%.0s\n", options);
	}
	if (!strncmp(options, "stop", 4) || !strncmp(options, "dump", 4)) {
		int stop = options[1] == 't';
		if (!atomic_load(&recording))
			return answer(reply, JCAL_ATTACH_NOT_RECORDING,
				      "jcal: error: not recording%.0s\n", options);
		if (stop && atomic_exchange(&recording, 0))
			snprintf(how_ended, sizeof(how_ended), "stopped by stop");
		return answer(reply, JCAL_ATTACH_OK, stop ? "stopped%.0s\n" : "dumped%.0s\n",
			      options);
	}
	if (!strncmp(options, "status", 6))
		return answer(reply, JCAL_ATTACH_OK,
			      atomic_load(&recording) ? "recording: yes\nended: %s\n"
						      : "recording: no\nended: %s\n",
			      options);
	return answer(reply, JCAL_ATTACH_BAD_OPTIONS, "jcal: error: unknown command%.0s\n",
		      options);
}
