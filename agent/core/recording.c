/*
 * recording.c - owns the calibrator's access to the agent's recording
 * (recording.h): thin wrappers over thread_state.c, method_table.c and
 * trace_file.c.
 */
#include "agent/core/recording.h"

#include "agent/core/method_table.h"
#include "agent/core/region_control.h"
#include "agent/core/thread_state.h"
#include "agent/core/trace_file.h"

struct jcal_thread *recording_thread(jvmtiEnv *jvmti)
{
	struct jcal_thread *st = thread_state_get(jvmti);

	return st == &thread_state_ended ? NULL : st;
}

void recording_region_close(struct jcal_thread *st)
{
	thread_state_control(st, JCAL_CTL_STOP, 0);
	st->regions = 0;
}

void recording_region_open(struct jcal_thread *st)
{
	st->regions = 1;
	thread_state_control(st, JCAL_CTL_START, 0);
}

void recording_mark(struct jcal_thread *st, const char *label)
{
	thread_state_control(st, JCAL_CTL_MARK, region_control_label(label));
}

int recording_method_compiled(const char *class_sig, const char *name, const char *desc,
			      uint32_t modifiers)
{
	struct jcal_method *m = method_table_define(class_sig, name, desc, modifiers);

	return m ? atomic_load(&m->compiled) : 0;
}

struct trace_recbuf *recording_meta_begin(void)
{
	struct trace_recbuf *rb = trace_file_lock();

	/* VM death stops tracing before it takes this lock to close the file. */
	if (jcal_stopped()) {
		trace_file_unlock();
		return NULL;
	}
	return rb;
}

void recording_meta_end(void)
{
	trace_file_unlock();
	trace_file_flush();
}

int recording_failed(void)
{
	return trace_file_failed();
}
