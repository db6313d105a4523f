/*
 * live.h - a later load of the library into a JVM (Agent_OnAttach): the
 * command it carries, run against the agent, and its reply.
 */
#ifndef JCAL_LIVE_H
#define JCAL_LIVE_H

#include <jvmti.h>

/* Runs the command in options (trace/start, stop, dump, status, help) and
 * writes the answer to reply= (or stderr). Returns an enum jcal_attach_code
 * (common/attach_reply.h), Agent_OnAttach's return value. */
int live_command(JavaVM *vm, const char *options);

#endif
