/*
 * agent_man.c - libjcal(7), the man page of the agent's options, written
 * from the agent's own option table (agent/base/options.c), the one its `help`
 * prints, so the two never drift. Printed by `jcal --man-agent`.
 */
#include "agent/launcher/agent_man.h"

#include "agent/base/options.h"
#include "common/roff.h"

void agent_man(FILE *f, const char *version)
{
	fprintf(f, ".TH LIBJCAL 7 \"\" \"jcal %s\" \"jcal\"\n", version);
	fputs(".SH NAME\nlibjcal.so \\- the jcal agent: a calibrated instrumentation profiler "
	      "for Java\n"
	      ".SH SYNOPSIS\n.B java\n\\fB\\-agentpath:\\fR\\fIPREFIX\\fR/lib/jcal/libjcal.so="
	      "\\fIOPT\\fR[,\\fIOPT\\fR...] ...\n"
	      ".SH DESCRIPTION\nA JVMTI agent that sees every method entry and exit of the "
	      "profiled JVM (JVMTI method events, mode=events, or probes added to the bytecode, "
	      "mode=bci), reads a per\\-thread counter at each one and writes a trace that "
	      "jcal\\-post(1) turns into calibrated call trees. Started with the JVM through "
	      "\\fB\\-agentpath\\fR, or loaded into a running JVM by jcal(1). The jars beside "
	      "libjcal.so (jcal\\-agent.jar, jcal\\-calibrator.jar) belong to it: keep the "
	      "directory whole.\n"
	      ".SH OPTIONS\nOptions are separated by commas; the first names the command "
	      "(trace, calibrate or help; start, stop, dump and status when loaded into a "
	      "running JVM).\n",
	      f);
	for (size_t i = 0; i < jcal_options_nrows(); i++) {
		const char *key, *syntax, *help;

		jcal_options_row(i, &key, &syntax, &help);
		fputs(".TP\n\\fB", f);
		roff_text(f, key);
		fputs("\\fR", f);
		if (syntax) {
			fputs("=\\fI", f);
			roff_text(f, syntax);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		roff_text(f, help);
		fputc('\n', f);
	}
	fputs(".SH A LATER START\nA start to an agent already running in the JVM (jcal start, "
	      "or a later load) begins a new recording; what it does with each option it "
	      "gives:\n",
	      f);
	for (size_t i = 0; i < jcal_options_nrows(); i++) {
		const char *key, *syntax, *help;
		enum jcal_later l = jcal_options_row_later(i);

		jcal_options_row(i, &key, &syntax, &help);
		if (l == JCAL_LATER_COMMAND)
			continue;
		fputs(".TP\n\\fB", f);
		roff_text(f, key);
		fputs(syntax ? "=\\fR\n" : "\\fR\n", f);
		roff_text(f, jcal_later_text(l));
		fputc('\n', f);
	}
	fputs(".SH ENVIRONMENT\n.TP\n.B JCAL_CALIB_DIR\nthe calibration directory "
	      "(default: $HOME/.local/share/jcal/calib)\n"
	      ".SH EXAMPLE\n.nf\njava \\-agentpath:/usr/local/lib/jcal/libjcal.so=trace,out=t.bin "
	      "\\-cp app Main\njcal\\-post t.bin\n.fi\n"
	      ".SH SEE ALSO\njcal\\-post(1), jcal(1); docs/ in the jcal sources\n",
	      f);
}
