/*
 * throttled.h - the methods a mode=bci trace says were throttled
 * (throttle=CALLS:NS: their probes taken out while the program ran), read
 * from its throttle.method.ID meta records (common/throttle_fact.h), and
 * their lines in the summary, flat and tree reports (docs/jcal-post.md).
 */
#ifndef JCAL_THROTTLED_H
#define JCAL_THROTTLED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "postproc/flat.h"
#include "postproc/model.h"
#include "common/throttle_fact.h"

struct report_opts;

/* The throttled methods of m in the order they were throttled (then by
 * id), malloc'ed in *out (free it; NULL when none). A malformed record is
 * left out and counted in *bad. Returns 0, or -1 when out of memory. */
int throttled_list(const struct model *m, struct throttle_fact **out, size_t *n, size_t *bad);

/* Whether method id is one of them (a record that does not parse counts:
 * the method lost its probes all the same). */
int throttled_is(const struct model *m, uint32_t method);

/* The calls of throttled method id that its counting probe counted in the
 * recording after its other probes went (the record's counted field):
 * 1 with *counted, 0 when the method was not throttled or its agent did
 * not count (a JDK class, an older agent). */
int throttled_counted(const struct model *m, uint32_t method, uint64_t *counted);

/* Rows of a flat profile over every thread: each throttled
 * method's row gets its counted calls (so its calls are all its calls in
 * the recording), and, with times (a calibrated report: a raw base per call
 * holds the probes' own cost) and when it recorded calls, the time of the counted ones
 * estimated at its recorded base per call (row.estimated, added to its base
 * and cum), taken out of the base of the methods that called it, in
 * proportion to the calls each made of it in the recording (never below 0;
 * the share of calls from a thread's root stays where it is). With
 * add_rows, a throttled method counted but not recorded gets a row of its
 * own (calls only). The rows are sorted again; *rows is realloc'ed.
 * Returns 0, or -1 when out of memory. */
int throttled_flat_calls(const struct model *m, int add_rows, int times, flat_name_fn name,
			 void *name_ctx, struct flat_row **rows, size_t *n, enum flat_sort sort);

/* Whether the trace was recorded with throttle= (its meta "throttle"). */
static inline const char *throttled_rule(const struct model *m)
{
	return model_meta(m, THROTTLE_META_RULE);
}

/* Whether the rule averaged each call's own time (the meta
 * "throttle.time"; older agents averaged entry-to-exit time). */
static inline int throttled_self(const struct model *m)
{
	const char *v = model_meta(m, THROTTLE_META_TIME);

	return v && !strcmp(v, THROTTLE_TIME_SELF);
}

/* The calls a record counts (every call through the method's probes
 * since the agent loaded, recorded or not: what the rule counted): when
 * the recording ended if known, else at the removal of the probes. */
static inline uint64_t throttled_calls(const struct throttle_fact *f)
{
	return f->has_final ? f->final_calls : f->calls;
}

/* The summary's parts: a "throttled:" section (text), "throttled.N.*" rows
 * (CSV), and ,"throttle":{...} (JSON); nothing for a trace recorded
 * without throttle=. Each returns 0 or -1 (no memory). */
int throttled_summary_text(const struct model *m, const struct report_opts *o);
int throttled_summary_csv(const struct model *m, const struct report_opts *o);
int throttled_summary_json(const struct model *m, const struct report_opts *o);

/* The mark of a throttled method's name in text reports. */
#define THROTTLED_MARK " [throttled]"

#endif
