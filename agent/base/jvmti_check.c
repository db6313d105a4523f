/*
 * jvmti_check.c - owns the naming and logging of failed JVMTI calls
 * (jvmti_check.h).
 */
#include "agent/base/jvmti_check.h"

#include "agent/base/log.h"

static int check(jvmtiEnv *jvmti, jvmtiError e, enum jcal_loglevel level, const char *what)
{
	char *name = NULL;

	if (e == JVMTI_ERROR_NONE)
		return 0;
	if (level == JCAL_LOG_DEBUG && !jcal_log_enabled(level))
		return -1; /* no GetErrorName for a line nobody sees */
	if ((*jvmti)->GetErrorName(jvmti, e, &name) != JVMTI_ERROR_NONE)
		name = NULL;
	const char *n = name ? name : "unknown error";
	if (level == JCAL_LOG_ERROR)
		jcal_error("%s failed: %s (%d)", what, n, (int)e);
	else if (level == JCAL_LOG_WARN)
		jcal_warn("%s failed: %s (%d)", what, n, (int)e);
	else
		jcal_debug("%s failed: %s (%d)", what, n, (int)e);
	if (name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	return -1;
}

int jvmti_check(jvmtiEnv *jvmti, jvmtiError e, const char *what)
{
	return check(jvmti, e, JCAL_LOG_ERROR, what);
}

int jvmti_check_warn(jvmtiEnv *jvmti, jvmtiError e, const char *what)
{
	return check(jvmti, e, JCAL_LOG_WARN, what);
}

int jvmti_check_debug(jvmtiEnv *jvmti, jvmtiError e, const char *what)
{
	return check(jvmti, e, JCAL_LOG_DEBUG, what);
}

void jvmti_free(jvmtiEnv *jvmti, void *p)
{
	if (p)
		jvmti_check_debug(jvmti, (*jvmti)->Deallocate(jvmti, (unsigned char *)p),
				  "Deallocate");
}
