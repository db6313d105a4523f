/*
 * attach_reply.h - what a running agent answers to a command passed by a
 * later load of the library (jcmd PID JVMTI.agent_load, or the jcal
 * launcher): the return code of Agent_OnAttach, which HotSpot hands back to
 * the attaching process, and the reply= file convention.
 *
 * A command is the agent option string "COMMAND[,key=value...]" with
 * COMMAND one of trace/start (begin a recording), stop, dump, status.
 * Every command accepts reply=FILE: a file the caller made for the answer,
 * which the agent fills (text lines; a failure is one "jcal: error: ..."
 * line). The agent writes only an empty regular file with one link, of the
 * JVM's user, mode 0600 or stricter, not a symbolic link, in a directory
 * named jcal-reply-* of the same user that no one else may write to (the
 * jcal launcher's mkdtemp /tmp/jcal-reply-XXXXXX/reply); it never creates
 * or truncates it. With any other file the command does not run and the
 * code is JCAL_ATTACH_OUTPUT (common/safe_open.h, docs/live-profiling.md).
 */
#ifndef JCAL_ATTACH_REPLY_H
#define JCAL_ATTACH_REPLY_H

enum jcal_attach_code {
	JCAL_ATTACH_OK = 0,
	JCAL_ATTACH_BAD_OPTIONS = 1,   /* unknown command or option, bad value */
	JCAL_ATTACH_RECORDING = 2,     /* start while a recording runs */
	JCAL_ATTACH_NOT_RECORDING = 3, /* stop or dump with no recording */
	JCAL_ATTACH_OUTPUT = 4,	       /* out= or reply= cannot be written */
	JCAL_ATTACH_FAILED = 5,	       /* JVMTI refused, jars missing, no memory */
};

#endif
