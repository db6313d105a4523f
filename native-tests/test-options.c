/*
 * test-options.c - the agent option parser (agent/base/options.c): a table of
 * option strings with the expected outcome, then out= expansion.
 */
#include <string.h>

#include "agent/base/options.h"
#include "native-tests/test.h"

struct opt_case {
	int line;
	const char *input;
	int ok;		       /* 0 parse ok, -1 error */
	const char *err_token; /* error must name this */
	enum jcal_command cmd;
};

static const struct opt_case cases[] = {
    {__LINE__, "trace", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "help", 0, NULL, JCAL_CMD_HELP},
    {__LINE__, "calibrate", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "", 0, NULL, JCAL_CMD_NONE},
    {__LINE__, "trace,out=t.bin,metric=cputime,mode=events,log=a.log,loglevel=debug", 0, NULL,
     JCAL_CMD_TRACE},
    {__LINE__, "trace,metric=tsc+cputime", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,metric=pfm:RETIRED_INSTRUCTIONS", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,metric=auto", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,quiet", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,trace", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "calibrate,table=/tmp/x.calib", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "table=/tmp/x.calib,calibrate", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "trace,table=/tmp/x.calib", -1, "option 'table=/tmp/x.calib' goes with calibrate",
     0},
    {__LINE__, "table=/tmp/x.calib,trace,recalibrate=start", -1,
     "'table=/tmp/x.calib' goes with calibrate", 0},
    {__LINE__, "table=t\nx", -1, "'table=t?x' goes with calibrate", 0},
    {__LINE__, "trace,mode=bci", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,start=manual", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,start=auto", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,start=later", -1, "start=later", 0},
    {__LINE__, "trace,start", -1, "start", 0},
    {__LINE__, "start", 0, NULL, JCAL_CMD_START},
    {__LINE__, "start,start=manual,out=a.bin", 0, NULL, JCAL_CMD_START},
    {__LINE__, "start=manual,start", 0, NULL, JCAL_CMD_START},
    {__LINE__, "stop", 0, NULL, JCAL_CMD_STOP},
    {__LINE__, "stop,reply=/tmp/r", 0, NULL, JCAL_CMD_STOP},
    {__LINE__, "dump,out=/tmp/d.bin", 0, NULL, JCAL_CMD_DUMP},
    {__LINE__, "status", 0, NULL, JCAL_CMD_STATUS},
    {__LINE__, "rotate", 0, NULL, JCAL_CMD_ROTATE},
    {__LINE__, "rotate,out=/tmp/a-%n.bin,reply=/tmp/r", 0, NULL, JCAL_CMD_ROTATE},
    {__LINE__, "rotate,stop", -1, "stop", 0},
    {__LINE__, "status,stop", -1, "stop", 0},
    {__LINE__, "stop=now", -1, "stop=now", 0},
    {__LINE__, "trace,duration=30s", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "start,duration=5m,maxsize=500M", 0, NULL, JCAL_CMD_START},
    {__LINE__, "trace,duration=2h,maxsize=1048576", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,duration=0", -1, "duration=0", 0},
    {__LINE__, "trace,duration=31d", -1, "duration=31d", 0},
    {__LINE__, "trace,duration=721h", -1, "duration=721h", 0},
    {__LINE__, "trace,duration=s", -1, "duration=s", 0},
    {__LINE__, "trace,duration=5,duration=6", -1, "duration=6", 0},
    {__LINE__, "trace,maxsize=10K", -1, "maxsize=10K", 0},
    {__LINE__, "trace,maxsize=2T", -1, "maxsize=2T", 0},
    {__LINE__, "trace,maxsize=99999999999G", -1, "maxsize=99999999999G", 0},
    {__LINE__, "trace,maxsize=1MB", -1, "maxsize=1MB", 0},
    {__LINE__, "calibrate,duration=5s", -1, "duration=", 0},
    {__LINE__, "status,maxsize=1G", -1, "maxsize=", 0},
    {__LINE__, "trace,reply=", -1, "reply=", 0},
    {__LINE__, "trace,recalibrate=start", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,recalibrate=end", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,recalibrate=both", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,recalibrate=sometimes", -1, "recalibrate=sometimes", 0},
    {__LINE__, "trace,recalibrate=60s", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,recalibrate=start,recalibrate=5m", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,recalibrate=9s", -1, "recalibrate=9s", 0},
    {__LINE__, "trace,recalibrate=25h", -1, "recalibrate=25h", 0},
    {__LINE__, "trace,recalibrate=0", -1, "recalibrate=0", 0},
    {__LINE__, "trace,recalibrate=60x", -1, "recalibrate=60x", 0},
    {__LINE__, "trace,recalibrate=60ss", -1, "recalibrate=60ss", 0},
    {__LINE__, "trace,recalibrate=m", -1, "recalibrate=m", 0},
    {__LINE__, "trace,recalibrate=99999999999999999999s", -1, "recalibrate=9999", 0},
    {__LINE__, "trace,output=tree", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=both,maxcontexts=1000", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=tree,maxcontexts=1000000000", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=trace", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=forest", -1, "output=forest", 0},
    {__LINE__, "trace,output", -1, "output", 0},
    {__LINE__, "trace,output=tree,output=both", -1, "output=both", 0},
    {__LINE__, "trace,output=tree,maxcontexts=999", -1, "maxcontexts=999", 0},
    {__LINE__, "trace,output=tree,maxcontexts=1000000001", -1, "maxcontexts=1000000001", 0},
    {__LINE__, "trace,output=tree,maxcontexts=99999999999999999999999", -1, "maxcontexts=9999", 0},
    {__LINE__, "trace,output=tree,maxcontexts=12k", -1, "maxcontexts=12k", 0},
    {__LINE__, "trace,output=tree,maxcontexts=", -1, "maxcontexts=", 0},
    {__LINE__, "trace,output=tree,maxcontexts=-5", -1, "maxcontexts=-5", 0},
    {__LINE__, "trace,maxcontexts=5000", -1, "'maxcontexts=5000' needs output=tree", 0},
    {__LINE__, "trace,output=tree,hists=off", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=tree,slow=50ms", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=both,slow=1us:10000", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=tree,slow=3600s:1", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=tree,slow=2500ns", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,slow=50ms", -1, "'slow=' needs output=tree", 0},
    {__LINE__, "trace,output=tree,slow=50", -1, "'slow=50'", 0},
    {__LINE__, "trace,output=tree,slow=999ns", -1, "'slow=999ns'", 0},
    {__LINE__, "trace,output=tree,slow=3601s", -1, "'slow=3601s'", 0},
    {__LINE__, "trace,output=tree,slow=99999999999999999999ms", -1, "'slow=9999", 0},
    {__LINE__, "trace,output=tree,slow=50ms:0", -1, "'slow=50ms:0'", 0},
    {__LINE__, "trace,output=tree,slow=50ms:10001", -1, "'slow=50ms:10001'", 0},
    {__LINE__, "trace,output=tree,slow=50ms:", -1, "'slow=50ms:'", 0},
    {__LINE__, "trace,output=tree,slow=50ms:5x", -1, "'slow=50ms:5x'", 0},
    {__LINE__, "trace,output=tree,slow=ms", -1, "'slow=ms'", 0},
    {__LINE__, "trace,output=tree,slow=50msx", -1, "'slow=50msx'", 0},
    {__LINE__, "trace,output=both,hists=on", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "start,output=tree,hists=off", 0, NULL, JCAL_CMD_START},
    {__LINE__, "trace,hists=on", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,output=tree,hists=no", -1,
     "bad value in option 'hists=no' (expected on or off)", 0},
    {__LINE__, "trace,output=tree,hists=", -1, "'hists='", 0},
    {__LINE__, "trace,output=tree,hists=OFF", -1, "'hists=OFF'", 0},
    {__LINE__, "trace,output=tree,hists=off,hists=on", -1, "'hists=on': hists= was given already",
     0},
    {__LINE__, "trace,hists=off", -1, "'hists=off' needs output=tree or output=both", 0},
    {__LINE__, "trace,monitors=off", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,monitors=on", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "start,monitors=off", 0, NULL, JCAL_CMD_START},
    {__LINE__, "trace,monitors=no", -1, "bad value in option 'monitors=no' (expected on or off)",
     0},
    {__LINE__, "trace,monitors=", -1, "'monitors='", 0},
    {__LINE__, "trace,monitors=off,monitors=on", -1, "'monitors=on': monitors= was given already",
     0},
    {__LINE__, "start,hists=off", -1, "'hists=off' needs output=tree", 0},
    {__LINE__, "trace,mode=bci,throttle=10000:200", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,output=tree,throttle=1:1", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,throttle=0:200", -1, "'throttle=0:200' (expected CALLS:NS", 0},
    {__LINE__, "trace,mode=bci,throttle=10:0", -1, "'throttle=10:0'", 0},
    {__LINE__, "trace,mode=bci,throttle=10", -1, "'throttle=10'", 0},
    {__LINE__, "trace,mode=bci,throttle=10:", -1, "'throttle=10:'", 0},
    {__LINE__, "trace,mode=bci,throttle=:5", -1, "'throttle=:5'", 0},
    {__LINE__, "trace,mode=bci,throttle=1:2:3", -1, "'throttle=1:2:3'", 0},
    {__LINE__, "trace,mode=bci,throttle=-1:5", -1, "'throttle=-1:5'", 0},
    {__LINE__, "trace,mode=bci,throttle=18446744073709551616:5", -1, "throttle=184467", 0},
    {__LINE__, "trace,mode=bci,throttle=1k:5", -1, "'throttle=1k:5'", 0},
    {__LINE__, "trace,mode=bci,throttle=1:2,throttle=1:2", -1, "throttle= was given already", 0},
    {__LINE__, "trace,throttle=100:50", -1, "'throttle=100:50' needs mode=bci", 0},
    {__LINE__, "calibrate,mode=bci,throttle=100:50", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "calibrate,throttle=100:50", -1, "needs mode=bci", 0},
    {__LINE__, "trace,mode=bci,tiny=count", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,tiny=probe", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,tiny=probe", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,tiny=count", -1, "'tiny=count' needs mode=bci", 0},
    {__LINE__, "trace,mode=bci,tiny=on", -1,
     "bad value in option 'tiny=on' (expected count or probe)", 0},
    {__LINE__, "trace,mode=bci,tiny=", -1, "option 'tiny=' (expected count or probe)", 0},
    {__LINE__, "trace,mode=bci,tiny", -1, "option 'tiny' needs a value", 0},
    {__LINE__, "trace,mode=bci,tiny=count,tiny=count", -1, "tiny= was given already", 0},
    {__LINE__, "calibrate,mode=bci,tiny=count", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "trace,mode=bci,inlined=count", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,inlined=probe", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,inlined=probe", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,inlined=count", -1, "'inlined=count' needs mode=bci", 0},
    {__LINE__, "trace,mode=bci,inlined=yes", -1,
     "bad value in option 'inlined=yes' (expected count or probe)", 0},
    {__LINE__, "trace,mode=bci,inlined", -1, "option 'inlined' needs a value", 0},
    {__LINE__, "trace,mode=bci,inlined=count,inlined=probe", -1, "inlined= was given already", 0},
    {__LINE__, "calibrate,mode=bci,inlined=count", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "trace,mode=bci,probes=static", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,probes=switch", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,probes=switch", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,probes=static", -1, "'probes=static' needs mode=bci", 0},
    {__LINE__, "trace,mode=bci,probes=off", -1,
     "bad value in option 'probes=off' (expected switch or static)", 0},
    {__LINE__, "trace,mode=bci,probes", -1, "option 'probes' needs a value", 0},
    {__LINE__, "trace,mode=bci,probes=static,probes=switch", -1, "probes= was given already", 0},
    {__LINE__, "calibrate,mode=bci,probes=switch", 0, NULL, JCAL_CMD_CALIBRATE},
    {__LINE__, "trace,label=service:web", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,label=service:web,label=env:prod,label=_x9:a b/c=d", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "start,label=run:2", 0, NULL, JCAL_CMD_START},
    {__LINE__, "trace,label=service", -1, "'label=service': expected KEY:VALUE", 0},
    {__LINE__, "trace,label=:web", -1, "'label=:web': expected KEY:VALUE", 0},
    {__LINE__, "trace,label=service:", -1, "'label=service:': expected KEY:VALUE", 0},
    {__LINE__, "trace,label=9x:a", -1, "'label=9x:a'", 0},
    {__LINE__, "trace,label=__x:a", -1, "'label=__x:a'", 0},
    {__LINE__, "trace,label=a-b:c", -1, "'label=a-b:c'", 0},
    {__LINE__, "trace,label=a\tb:c", -1, "label=a?b:c", 0},
    {__LINE__, "trace,label=a:b\x01", -1, "label=a:b?", 0},
    {__LINE__, "trace,label=host:web-1", -1, "labels every sample with host itself", 0},
    {__LINE__, "trace,label=pid:1", -1, "with pid itself", 0},
    {__LINE__, "trace,label=thread:x", -1, "with thread itself", 0},
    {__LINE__, "trace,label=jvm:17", -1, "with jvm itself", 0},
    {__LINE__, "trace,label=env:a,label=env:b", -1, "'label=env:b': label env was given already",
     0},
    {__LINE__,
     "trace,label=a:1,label=b:1,label=c:1,label=d:1,label=e:1,label=f:1,label=g:1,"
     "label=h:1,label=i:1",
     -1, "'label=i:1': at most 8 labels", 0},
    {__LINE__, "trace,label=kxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx:v", -1,
     "under 64 bytes", 0},
    {__LINE__, "trace,label=kyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy:v", 0,
     NULL, JCAL_CMD_TRACE},
    {__LINE__, "calibrate,output=tree", -1, "'output=tree' goes with trace", 0},
    {__LINE__, "trace,output=tree,recalibrate=start", -1, "'output=tree' cannot go with", 0},
    {__LINE__, "trace,output=both,recalibrate=60s", -1, "'output=both' cannot go with", 0},
    {__LINE__, "trace,mode=bci,recalibrate=end", -1, "recalibrate is not available in bci mode", 0},
    {__LINE__, "recalibrate=60s,trace,mode=bci", -1, "'mode=bci': recalibrate", 0},
    {__LINE__, "bogus", -1, "bogus", 0},
    {__LINE__, "trace,bo\ngus", -1, "bo?gus", 0},
    {__LINE__, "trace,bogus=1", -1, "bogus=1", 0},
    {__LINE__, "trace,out=", -1, "out=", 0},
    {__LINE__, "trace,out", -1, "out", 0},
    {__LINE__, "trace,metric=foo", -1, "foo", 0},
    {__LINE__, "trace,metric=cputime+", -1, "metric=cputime+", 0},
    {__LINE__, "trace,metric=+tsc", -1, "metric=+tsc", 0},
    {__LINE__, "trace,metric=tsc+tsc", -1, "tsc", 0},
    {__LINE__, "trace,metric=auto+tsc", -1, "auto", 0},
    {__LINE__, "trace,metric=tsc+cputime+cycles+instructions+pfm:X", -1, "too many", 0},
    {__LINE__, "trace,metric=pfm:", -1, "pfm:", 0},
    {__LINE__, "trace,mode=fast", -1, "mode=fast", 0},
    {__LINE__, "trace,mode=bci,include=com.foo.*", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,exclude=com.foo.*;org.bar.Baz$Inner", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,include=a.B?,mode=bci,include=c.*,exclude=c.D", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,mode=bci,include=*", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "trace,include=com.foo.*", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "calibrate,include=com.foo.*", -1, "not calibrate", 0},
    {__LINE__, "trace,exclude=com.foo.*,mode=events", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "calibrate,mode=bci,exclude=com.foo.*", -1, "exclude=", 0},
    {__LINE__, "trace,mode=bci,include=", -1, "include=", 0},
    {__LINE__, "trace,mode=bci,include", -1, "include", 0},
    {__LINE__, "trace,mode=bci,include=a.*;", -1, "empty pattern", 0},
    {__LINE__, "trace,mode=bci,exclude=;a.*", -1, "exclude=;a.*", 0},
    {__LINE__, "trace,mode=bci,exclude=a.*;;b.*", -1, "empty pattern", 0},
    {__LINE__, "trace,mode=bci,include=com/foo/*", -1, "use dots", 0},
    {__LINE__, "trace,mode=bci,include=com.foo bar", -1, "' '", 0},
    {__LINE__, "trace,mode=bci,exclude=a.[bc]", -1, "'['", 0},
    {__LINE__, "trace,,out=x", -1, "empty option", 0},
    {__LINE__, "trace,", -1, "empty option", 0},
    {__LINE__, ",trace", -1, "empty option", 0},
    {__LINE__, "trace,calibrate", -1, "calibrate", 0},
    {__LINE__, "help,trace", -1, "trace", 0},
    {__LINE__, "help=1", -1, "help=1", 0},
    {__LINE__, "trace=yes", -1, "trace=yes", 0},
    {__LINE__, "trace,loglevel=loud", -1, "loglevel=loud", 0},
    {__LINE__, "trace,=x", -1, "=x", 0},
    {__LINE__, "trace,averyveryveryveryverylongoptionname=1", -1, "averyvery", 0},
    /* A single-valued key given twice is refused, not last-wins. */
    {__LINE__, "trace,out=a.bin,out=b.bin", -1, "out=b.bin", 0},
    {__LINE__, "trace,metric=tsc,metric=cputime", -1, "metric=A+B", 0},
    {__LINE__, "trace,mode=bci,mode=events", -1, "mode=events", 0},
    {__LINE__, "trace,log=a,log=b", -1, "log=b", 0},
    {__LINE__, "trace,loglevel=warn,loglevel=debug", -1, "loglevel=debug", 0},
    {__LINE__, "trace,start=auto,start=manual", -1, "start=manual", 0},
    {__LINE__, "calibrate,table=a,table=b", -1, "table=b", 0},
    {__LINE__, "trace,outfile=x,out=y", -1, "outfile=x", 0},
    /* calib= names the trees' table: output=tree|both, trace or start */
    {__LINE__, "trace,output=tree,calib=/t/table.txt", 0, NULL, JCAL_CMD_TRACE},
    {__LINE__, "start,output=both,calib=/t", 0, NULL, JCAL_CMD_START},
    {__LINE__, "trace,calib=/t", -1, "'calib=/t' needs output=tree or output=both", 0},
    {__LINE__, "start,calib=/t", -1, "'calib=/t' needs output=tree", 0},
    {__LINE__, "calibrate,output=tree,calib=/t", -1, "'output=tree' goes with trace", 0},
    {__LINE__, "calibrate,calib=/t", -1, "'calib=/t' goes with trace or start", 0},
    {__LINE__, "status,calib=/t", -1, "'calib=/t' goes with trace or start", 0},
    {__LINE__, "trace,output=tree,calib=", -1, "calib=", 0},
    {__LINE__, "trace,output=tree,calib=a,calib=b", -1, "calib=b", 0},
    /* maxsize= bounds a trace file: output=tree writes none */
    {__LINE__, "trace,output=tree,maxsize=1M", -1, "'maxsize=' bounds the trace file", 0},
    {__LINE__, "start,maxsize=2M,output=tree", -1, "output=tree writes none", 0},
    {__LINE__, "start,output=both,maxsize=2M", 0, NULL, JCAL_CMD_START},
    /* start without mode=: the running agent's mode decides (session.c) */
    {__LINE__, "start,throttle=100:50", 0, NULL, JCAL_CMD_START},
    {__LINE__, "start,mode=events,throttle=100:50", -1, "'throttle=100:50' needs mode=bci", 0},
    {__LINE__, "start,tiny=count", 0, NULL, JCAL_CMD_START},
    {__LINE__, "start,mode=events,tiny=count", -1, "'tiny=count' needs mode=bci", 0},
    {__LINE__, "start,inlined=count", 0, NULL, JCAL_CMD_START},
    {__LINE__, "start,mode=events,inlined=count", -1, "'inlined=count' needs mode=bci", 0},
    /* one command at a time, and which came first */
    {__LINE__, "start,stop", -1, "'stop' is a command, and 'start' came before it", 0},
    {__LINE__, "start,help", -1, "'help' is a command, and 'start'", 0},
};

/* What a later start may change (docs/live-profiling.md, "A later start"):
 * each case against an agent loaded as agent_opts, reading metrics. */
static void test_later_start(void)
{
	static const struct {
		int line;
		const char *agent, *metrics, *start;
		const char *err; /* NULL: accepted; else the message holds it */
	} cases[] = {
	    {__LINE__, "trace,mode=bci,metric=cputime,throttle=100:50", "cputime", "start", NULL},
	    {__LINE__, "trace,mode=bci,throttle=100:50", "cputime",
	     "start,mode=bci,clock=agentfree,metric=cputime,throttle=100:50", NULL},
	    {__LINE__, "trace,mode=bci", "cycles", "start,metric=auto", NULL},
	    {__LINE__, "trace", "tsc+cputime", "start,metric=tsc+cputime", NULL},
	    {__LINE__, "trace", "cputime",
	     "start,out=x,output=tree,calib=/c,maxcontexts=5000,duration=5s,start=manual,"
	     "include=a.*,exclude=b.*,log=/l,loglevel=debug,quiet,reply=/r",
	     NULL},
	    /* the new recording's own: an agent loaded with hists=off records
	     * the next one with them, and the other way round */
	    {__LINE__, "trace,output=tree,hists=off", "cputime", "start,output=tree", NULL},
	    {__LINE__, "trace,output=tree", "cputime", "start,output=both,hists=off", NULL},
	    {__LINE__, "trace,mode=bci", "cputime", "start,mode=events",
	     "option 'mode=events': this JVM's agent records in mode=bci (fixed when it was "
	     "loaded"},
	    {__LINE__, "trace", "cputime", "start,clock=raw",
	     "option 'clock=raw': this JVM's agent records with clock=agentfree"},
	    {__LINE__, "trace", "cputime", "start,metric=cycles",
	     "option 'metric=cycles': this JVM's agent reads cputime"},
	    {__LINE__, "trace", "tsc+cputime", "start,metric=cputime+tsc",
	     "option 'metric=cputime+tsc': this JVM's agent reads tsc+cputime"},
	    {__LINE__, "trace,mode=bci,throttle=100:50", "cputime", "start,throttle=100:51",
	     "option 'throttle=100:51': this JVM's agent throttles with throttle=100:50"},
	    {__LINE__, "trace,mode=bci", "cputime", "start,throttle=1:1",
	     "option 'throttle=1:1': this JVM's agent was loaded without throttle="},
	    {__LINE__, "trace,mode=bci", "cputime", "start,throttle=off", NULL},
	    {__LINE__, "trace,mode=bci,throttle=1000:5000", "cputime", "start,throttle=off",
	     "option 'throttle=off': this JVM's agent throttles with throttle=1000:5000"},
	    /* tiny= is fixed at load too */
	    {__LINE__, "trace,mode=bci", "cputime", "start,tiny=probe", NULL},
	    {__LINE__, "trace,mode=bci,tiny=count", "cputime", "start,tiny=count", NULL},
	    {__LINE__, "trace,mode=bci,tiny=count", "cputime", "start", NULL},
	    /* probes= is fixed at load too */
	    {__LINE__, "trace,mode=bci", "cputime", "start,probes=switch", NULL},
	    {__LINE__, "trace,mode=bci,probes=static", "cputime", "start,probes=static", NULL},
	    {__LINE__, "trace,mode=bci", "cputime", "start,probes=static",
	     "option 'probes=static': this JVM's agent was loaded with probes=switch (fixed when "
	     "it was loaded: stop the JVM to change it)"},
	    {__LINE__, "trace,mode=bci,probes=static", "cputime", "start,probes=switch",
	     "option 'probes=switch': this JVM's agent was loaded with probes=static"},
	    {__LINE__, "trace,mode=bci", "cputime", "start,tiny=count",
	     "option 'tiny=count': this JVM's agent was loaded with tiny=probe (fixed when it "
	     "was loaded: stop the JVM to change it)"},
	    {__LINE__, "trace,mode=bci,tiny=count", "cputime", "start,tiny=probe",
	     "option 'tiny=probe': this JVM's agent was loaded with tiny=count"},
	    /* inlined= too */
	    {__LINE__, "trace,mode=bci,inlined=count", "cputime", "start,inlined=count", NULL},
	    {__LINE__, "trace,mode=bci", "cputime", "start,inlined=count",
	     "option 'inlined=count': this JVM's agent was loaded with inlined=probe (fixed when "
	     "it was loaded: stop the JVM to change it)"},
	    {__LINE__, "trace,mode=bci,inlined=count", "cputime", "start,inlined=probe",
	     "option 'inlined=probe': this JVM's agent was loaded with inlined=count"},
	    {__LINE__, "trace", "cputime", "start,recalibrate=start",
	     "option 'recalibrate=' is not available for a later recording"},
	    {__LINE__, "trace", "cputime", "start,out=a,mode=bci,clock=raw", "'mode=bci'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jcal_options agent, o;
		char err[512];
		int rc;

		CHECK_EQ_I(jcal_options_parse(cases[i].agent, &agent, err, sizeof(err)), 0);
		CHECK_EQ_I(jcal_options_parse(cases[i].start, &o, err, sizeof(err)), 0);
		rc = jcal_options_later_check(&agent, cases[i].metrics, &o, err, sizeof(err));
		if (cases[i].err ? rc != -1 || !strstr(err, cases[i].err) || strchr(err, '\n')
				 : rc != 0) {
			fprintf(stderr, "  line %d: %s -> %d: %s\n", cases[i].line, cases[i].start,
				rc, rc ? err : "accepted");
			CHECK(0);
		}
	}
}

/* Every row of the option table says what a later start does with it. */
static void test_later_policies(void)
{
	static const struct {
		const char *key;
		enum jcal_later later;
	} some[] = {
	    {"stop", JCAL_LATER_COMMAND},	 {"out", JCAL_LATER_RECORDING},
	    {"rotate", JCAL_LATER_COMMAND},	 {"output", JCAL_LATER_RECORDING},
	    {"calib", JCAL_LATER_RECORDING},	 {"maxsize", JCAL_LATER_RECORDING},
	    {"include", JCAL_LATER_AGENT},	 {"log", JCAL_LATER_AGENT},
	    {"loglevel", JCAL_LATER_AGENT},	 {"mode", JCAL_LATER_FIXED},
	    {"metric", JCAL_LATER_FIXED},	 {"throttle", JCAL_LATER_FIXED},
	    {"tiny", JCAL_LATER_FIXED},		 {"inlined", JCAL_LATER_FIXED},
	    {"recalibrate", JCAL_LATER_REFUSED}, {"label", JCAL_LATER_RECORDING},
	    {"table", JCAL_LATER_REFUSED},	 {"hists", JCAL_LATER_RECORDING},
	    {"monitors", JCAL_LATER_RECORDING},	 {"maxcontexts", JCAL_LATER_RECORDING},
	    {"slow", JCAL_LATER_RECORDING},
	};
	size_t found = 0;

	for (size_t i = 0; i < jcal_options_nrows(); i++) {
		const char *key, *syntax, *help;
		enum jcal_later l = jcal_options_row_later(i);

		jcal_options_row(i, &key, &syntax, &help);
		CHECK(l >= JCAL_LATER_COMMAND && l <= JCAL_LATER_REFUSED);
		CHECK(strcmp(jcal_later_text(l), "?") != 0);
		for (size_t k = 0; k < sizeof(some) / sizeof(some[0]); k++)
			if (!strcmp(key, some[k].key)) {
				CHECK_EQ_I(l, some[k].later);
				found++;
			}
	}
	CHECK_EQ_U(found, sizeof(some) / sizeof(some[0]));
}

static void test_option_table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct opt_case *c = &cases[i];
		struct jcal_options o;
		char err[512];
		int rc = jcal_options_parse(c->input, &o, err, sizeof(err));

		if (rc != c->ok) {
			fprintf(stderr, "  line %d: \"%s\": rc %d, expected %d (%s)\n", c->line,
				c->input, rc, c->ok, err);
			test_cur_failed = 1;
			continue;
		}
		if (rc == 0 && o.command != c->cmd) {
			fprintf(stderr, "  line %d: \"%s\": command %d, expected %d\n", c->line,
				c->input, o.command, c->cmd);
			test_cur_failed = 1;
		}
		if (rc != 0 && (!strstr(err, c->err_token) || strchr(err, '\n'))) {
			fprintf(stderr, "  line %d: \"%s\": message \"%s\" must name \"%s\"\n",
				c->line, c->input, err, c->err_token);
			test_cur_failed = 1;
		}
	}
}

static void test_option_values(void)
{
	struct jcal_options o;
	char err[256];

	CHECK(jcal_options_parse("trace,out=x-%p.bin,metric=tsc+cputime,loglevel=warn", &o, err,
				 sizeof(err)) == 0);
	CHECK_STR(o.out, "x-%p.bin");
	CHECK_EQ_U(o.nmetrics, 2);
	CHECK_STR(o.metric[0], "tsc");
	CHECK_STR(o.metric[1], "cputime");
	CHECK_EQ_U(o.loglevel, JCAL_LOG_WARN);
	CHECK(o.loglevel_given);
	CHECK_EQ_U(o.mode, JCAL_MODE_EVENTS);

	CHECK(jcal_options_parse("trace", &o, err, sizeof(err)) == 0);
	CHECK_STR(o.out, "jcal-%p.bin");
	CHECK_EQ_U(o.nmetrics, 0); /* auto */
	CHECK_EQ_U(o.loglevel, JCAL_LOG_INFO);
	CHECK(!o.loglevel_given); /* a later start keeps the agent's */
	CHECK_STR(o.calib, "");
	CHECK(jcal_options_parse("start,quiet,output=tree,calib=/c/t.txt", &o, err, sizeof(err)) ==
	      0);
	CHECK(o.loglevel_given);
	CHECK_EQ_U(o.loglevel, JCAL_LOG_ERROR);
	CHECK_STR(o.calib, "/c/t.txt");

	CHECK(jcal_options_parse("trace,metric=auto", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.nmetrics, 0);

	/* clock=: agentfree unless raw is asked for; a later start may only
	 * repeat the loaded agent's clock, so whether it was given is kept */
	CHECK_EQ_U(o.clock, JCAL_CLOCK_AGENTFREE);
	CHECK(!o.clock_given);
	CHECK(jcal_options_parse("trace,clock=raw", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.clock, JCAL_CLOCK_RAW);
	CHECK(o.clock_given);
	CHECK_STR(jcal_clock_name(o.clock), "raw");
	CHECK(jcal_options_parse("start,clock=agentfree", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.clock, JCAL_CLOCK_AGENTFREE);
	CHECK_STR(jcal_clock_name(o.clock), "agentfree");
	CHECK(jcal_options_parse("trace,clock=fast", &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "clock=fast") && strstr(err, "expected agentfree or raw"));
	CHECK(jcal_options_parse("trace,clock=raw,clock=raw", &o, err, sizeof(err)) == -1);

	/* quiet wins over a later loglevel. */
	CHECK(jcal_options_parse("trace,quiet,loglevel=debug", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.loglevel, JCAL_LOG_ERROR);
	CHECK(o.quiet);

	CHECK(jcal_options_parse("trace,start=manual", &o, err, sizeof(err)) == 0);
	CHECK(o.start_manual);
	CHECK(!o.mode_given && !o.out_given && !o.duration_s && !o.maxsize && !o.reply[0]);

	CHECK(jcal_options_parse("start,mode=events,out=a.bin,duration=2m,maxsize=3G,reply=/r", &o,
				 err, sizeof(err)) == 0);
	CHECK_EQ_U(o.command, JCAL_CMD_START);
	CHECK(o.mode_given && o.out_given && !o.start_manual);
	CHECK_EQ_U(o.duration_s, 120);
	CHECK_EQ_U(o.maxsize, 3ull << 30);
	CHECK_STR(o.reply, "/r");
	CHECK(jcal_options_parse("trace,duration=90,maxsize=2k", &o, err, sizeof(err)) != 0);
	CHECK(jcal_options_parse("trace,duration=90,maxsize=2048k", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.duration_s, 90);
	CHECK_EQ_U(o.maxsize, 2u << 20);
	CHECK(jcal_command_is_live(JCAL_CMD_STATUS) && !jcal_command_is_live(JCAL_CMD_TRACE));
	CHECK(jcal_options_parse("trace", &o, err, sizeof(err)) == 0);
	CHECK(!o.start_manual);

	/* recalibrate: the period in seconds beside start/end. */
	CHECK(jcal_options_parse("trace,recalibrate=both", &o, err, sizeof(err)) == 0);
	CHECK(o.recalibrate_start && o.recalibrate_end);
	CHECK_EQ_U(o.recalibrate_period_s, 0);
	CHECK(jcal_options_parse("trace,recalibrate=90", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.recalibrate_period_s, 90);
	CHECK(!o.recalibrate_start && !o.recalibrate_end);
	CHECK(jcal_options_parse("trace,recalibrate=end,recalibrate=2m", &o, err, sizeof(err)) ==
	      0);
	CHECK_EQ_U(o.recalibrate_period_s, 120);
	CHECK(!o.recalibrate_start && o.recalibrate_end);
	CHECK(jcal_options_parse("trace,recalibrate=24h", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.recalibrate_period_s, 86400);
	CHECK(jcal_options_parse("trace,recalibrate=10s", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.recalibrate_period_s, 10);

	CHECK(jcal_options_parse(NULL, &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.command, JCAL_CMD_NONE);

	/* tiny=count|probe: probe by default (the attach turns count on) */
	CHECK(jcal_options_parse("trace,mode=bci", &o, err, sizeof(err)) == 0);
	CHECK(!o.tiny_count && !o.tiny_given);
	CHECK(jcal_options_parse("trace,mode=bci,tiny=count", &o, err, sizeof(err)) == 0);
	CHECK(o.tiny_count && o.tiny_given);
	CHECK(jcal_options_parse("start,tiny=probe", &o, err, sizeof(err)) == 0);
	CHECK(!o.tiny_count && o.tiny_given);
	/* inlined=count|probe the same */
	CHECK(jcal_options_parse("trace,mode=bci", &o, err, sizeof(err)) == 0);
	CHECK(!o.inlined_count && !o.inlined_given);
	CHECK(jcal_options_parse("trace,mode=bci,inlined=count", &o, err, sizeof(err)) == 0);
	CHECK(o.inlined_count && o.inlined_given);
	CHECK(jcal_options_parse("start,inlined=probe", &o, err, sizeof(err)) == 0);
	CHECK(!o.inlined_count && o.inlined_given);

	/* throttle=CALLS:NS, off by default */
	CHECK(jcal_options_parse("trace,mode=bci", &o, err, sizeof(err)) == 0);
	CHECK(!o.throttle_calls && !o.throttle_avg && !o.throttle_given);
	CHECK(jcal_options_parse("trace,mode=bci,throttle=10000:200", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.throttle_calls, 10000);
	CHECK_EQ_U(o.throttle_avg, 200);
	CHECK(o.throttle_given);
	/* off: said, so that an attach does not throttle by default */
	CHECK(jcal_options_parse("start,throttle=off", &o, err, sizeof(err)) == 0);
	CHECK(!o.throttle_calls && !o.throttle_avg && o.throttle_given);
	CHECK(jcal_options_parse("trace,throttle=off", &o, err, sizeof(err)) == 0);
	CHECK(jcal_options_parse("start,throttle=Off", &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "'throttle=Off'") && strstr(err, "or off"));
	CHECK(jcal_options_parse("trace,mode=bci,throttle=18446744073709551615:1", &o, err,
				 sizeof(err)) == 0);
	CHECK_EQ_U(o.throttle_calls, UINT64_MAX);

	/* label=KEY:VALUE, in the order given; the value may hold ':' */
	CHECK(jcal_options_parse("trace,label=service:web,label=url:http://x:8080/a", &o, err,
				 sizeof(err)) == 0);
	CHECK_EQ_U(o.nlabels, 2);
	CHECK_STR(o.label_key[0], "service");
	CHECK_STR(o.label_value[0], "web");
	CHECK_STR(o.label_key[1], "url");
	CHECK_STR(o.label_value[1], "http://x:8080/a");
	CHECK(jcal_options_parse("trace", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.nlabels, 0);
	/* the launcher's check: the same rules, nothing copied */
	CHECK_EQ_I(jcal_label_check("env:prod", NULL, NULL, err, sizeof(err)), 0);
	CHECK_EQ_I(jcal_label_check("env", NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "expected KEY:VALUE") != NULL);
	CHECK_EQ_I(jcal_label_check("host:x", NULL, NULL, err, sizeof(err)), -1);
}

/* The mode=bci class filters: defaults, include/exclude, nested classes. */
static void test_bci_filters(void)
{
	static const struct {
		int line;
		const char *opts, *cls;
		int instrumented;
	} cases[] = {
	    {__LINE__, "trace,mode=bci", "com/foo/App", 1},
	    {__LINE__, "trace,mode=bci", "App", 1},
	    {__LINE__, "trace,mode=bci", "java/lang/String", 0},
	    {__LINE__, "trace,mode=bci", "javax/swing/JButton", 0},
	    {__LINE__, "trace,mode=bci", "jdk/internal/misc/Unsafe", 0},
	    {__LINE__, "trace,mode=bci", "sun/nio/ch/Net", 0},
	    {__LINE__, "trace,mode=bci", "com/sun/net/Foo", 0},
	    {__LINE__, "trace,mode=bci", "jcal/Tracker", 0},
	    {__LINE__, "trace,mode=bci", "javafoo/Bar", 1},
	    {__LINE__, "trace,mode=bci", "jdkx/Y", 1},
	    {__LINE__, "trace,mode=bci", "com.sunny.X", 1},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.*", "com/foo/App", 0},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.*", "com/foo/sub/App$1", 0},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.*", "com/bar/App", 1},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.*", "java/util/List", 0},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.App", "com/foo/App$Inner$1", 0},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.App", "com/foo/AppX", 1},
	    {__LINE__, "trace,mode=bci,exclude=com.foo.App$Inner", "com/foo/App", 1},
	    {__LINE__, "trace,mode=bci,exclude=*.Gen?", "a/b/Gen1", 0},
	    {__LINE__, "trace,mode=bci,exclude=*.Gen?", "a/b/Gen12", 1},
	    {__LINE__, "trace,mode=bci,include=java.util.*", "java/util/ArrayList", 1},
	    {__LINE__, "trace,mode=bci,include=java.util.*", "com/foo/App", 0},
	    {__LINE__, "trace,mode=bci,include=java.util.*", "java/lang/String", 0},
	    {__LINE__, "trace,mode=bci,include=java.util.*,exclude=java.util.concurrent.*",
	     "java/util/concurrent/locks/Lock", 0},
	    {__LINE__, "trace,mode=bci,include=java.util.*;com.*", "com/x/Y", 1},
	    {__LINE__, "trace,mode=bci,include=*", "jcal/Control", 0},
	    {__LINE__, "trace,mode=bci,include=*", "sun/misc/X", 1},
	    {__LINE__, "trace,mode=bci,include=com.*.App", "com/a/b/App", 1},
	    {__LINE__, "trace,mode=bci,include=com.*.App", "com/a/b/Apple", 0},
	    {__LINE__, "trace,mode=bci,include=com.foo.App", "com.foo.App", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jcal_options o;
		char err[256];
		if (jcal_options_parse(cases[i].opts, &o, err, sizeof(err))) {
			fprintf(stderr, "  line %d: %s: %s\n", cases[i].line, cases[i].opts, err);
			test_cur_failed = 1;
			continue;
		}
		if (jcal_bci_instrumented(&o, cases[i].cls) != cases[i].instrumented) {
			fprintf(stderr, "  line %d: %s: %s should%s be instrumented\n",
				cases[i].line, cases[i].opts, cases[i].cls,
				cases[i].instrumented ? "" : " not");
			test_cur_failed = 1;
		}
	}

	/* mode=events: no default exclusions; include= selects, exclude= wins. */
	static const struct {
		int line;
		const char *opts, *cls;
		int selected;
	} events[] = {
	    {__LINE__, "trace", "java/lang/String", 1},
	    {__LINE__, "trace,exclude=java.*", "java/lang/String", 0},
	    {__LINE__, "trace,exclude=java.*", "com/foo/App", 1},
	    {__LINE__, "trace,include=com.foo.*", "com/foo/App$1", 1},
	    {__LINE__, "trace,include=com.foo.*", "java/util/List", 0},
	    {__LINE__, "trace,include=com.*,exclude=com.foo.App", "com/foo/App$Inner", 0},
	    {__LINE__, "trace,include=com.*,exclude=com.foo.App", "com/foo/Apple", 1},
	};
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		struct jcal_options o;
		char err[256];
		if (jcal_options_parse(events[i].opts, &o, err, sizeof(err)) ||
		    jcal_class_selected(&o, events[i].cls) != events[i].selected) {
			fprintf(stderr, "  line %d: %s: %s should%s be recorded\n", events[i].line,
				events[i].opts, events[i].cls, events[i].selected ? "" : " not");
			test_cur_failed = 1;
		}
	}

	struct jcal_options o;
	char err[256], list[2 * JCAL_OPT_PATH_MAX];
	CHECK(jcal_options_parse("trace,mode=bci,exclude=a.*,exclude=b.C;d.*", &o, err,
				 sizeof(err)) == 0);
	CHECK_STR(o.bci_exclude, "a.*;b.C;d.*");
	CHECK_STR(o.bci_include, "");
	jcal_bci_exclude_list(&o, list, sizeof(list));
	CHECK_STR(list, JCAL_BCI_DEFAULT_EXCLUDE ";a.*;b.C;d.*");
	CHECK(jcal_options_parse("trace,mode=bci,include=x.*,exclude=x.Y", &o, err, sizeof(err)) ==
	      0);
	jcal_bci_exclude_list(&o, list, sizeof(list));
	CHECK_STR(list, "x.Y");
	CHECK_STR(o.bci_include, "x.*");
	CHECK(jcal_options_parse("trace,mode=bci", &o, err, sizeof(err)) == 0);
	jcal_bci_exclude_list(&o, list, sizeof(list));
	CHECK_STR(list, JCAL_BCI_DEFAULT_EXCLUDE);

	/* Too many patterns in all: an error naming the option, no overflow. */
	char big[4000] = "trace,mode=bci"; /* 200 x 19 bytes more */
	for (int i = 0; i < 200; i++)
		strcat(big, ",exclude=abcdefgh.*");
	CHECK(jcal_options_parse(big, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "too many patterns") != NULL);
	CHECK(strstr(err, "exclude=") != NULL);

	CHECK(jcal_glob_match("a.*", 3, "a/b/C") == 1);
	CHECK(jcal_glob_match("a.*", 3, "a") == 0);
	CHECK(jcal_glob_match("**", 2, "") == 1);
	CHECK(jcal_glob_match("a*b*c", 5, "aXbYbZc") == 1);
	CHECK(jcal_glob_match("a*b*c", 5, "aXbYbZ") == 0);
}

static void test_expand_out(void)
{
	char out[64], err[256];
	time_t t = 1700000000; /* 2023-11-14 22:13:20 UTC */

	CHECK(jcal_options_expand_out("jcal-%p.bin", 4242, t, out, sizeof(out), err, sizeof(err)) ==
	      0);
	CHECK_STR(out, "jcal-4242.bin");
	CHECK(jcal_options_expand_out("a%%b", 1, t, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_STR(out, "a%b");
	CHECK(jcal_options_expand_out("t-%t.bin", 1, t, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_EQ_U(strlen(out), strlen("t-20231114-221320.bin"));
	CHECK(strncmp(out, "t-2023111", 9) == 0);
	CHECK(jcal_options_expand_out("bad%q", 1, t, out, sizeof(out), err, sizeof(err)) == -1);
	CHECK(strstr(err, "%q") != NULL);
	CHECK(jcal_options_expand_out("end%", 1, t, out, sizeof(out), err, sizeof(err)) == -1);
	CHECK(jcal_options_expand_out("%p%p%p%p%p%p%p%p%p%p%p%p%p%p", 1234567, t, out, 40, err,
				      sizeof(err)) == -1);
	CHECK(strstr(err, "too long") != NULL);
	/* %n: the file's number in a continuous recording (1 for the first) */
	CHECK(jcal_options_expand_out("a-%n.bin", 1, t, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_STR(out, "a-1.bin");
	CHECK(jcal_options_expand_out_seq("a-%n-%p.bin", 7, t, 12, out, sizeof(out), err,
					  sizeof(err)) == 0);
	CHECK_STR(out, "a-12-7.bin");
	CHECK(jcal_options_expand_out_seq("%n%%n", 7, t, 3, out, sizeof(out), err, sizeof(err)) ==
	      0);
	CHECK_STR(out, "3%n");
	/* what names a new file at each rotation */
	CHECK(jcal_options_out_varies("a-%n.bin") == 1);
	CHECK(jcal_options_out_varies("a-%t.bin") == 1);
	CHECK(jcal_options_out_varies("a-%p.bin") == 0);
	CHECK(jcal_options_out_varies("a-%%n.bin") == 0);
	CHECK(jcal_options_out_varies("a-%%%n.bin") == 1);
	CHECK(jcal_options_out_varies("a%") == 0);
}

/* hists=on|off: on by default (hists_off 0, a zeroed struct) */
static void test_hists_values(void)
{
	struct jcal_options o;
	char err[256];

	CHECK(jcal_options_parse("trace,output=tree", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.hists_off, 0);
	CHECK(jcal_options_parse("trace,output=tree,hists=off", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.hists_off, 1);
	CHECK(jcal_options_parse("trace,output=both,hists=on", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.hists_off, 0);
}

/* slow=DURATION[:MAX]: none by default; MAX 100 unless given */
static void test_slow_values(void)
{
	struct jcal_options o;
	char err[256];

	CHECK(jcal_options_parse("trace,output=tree", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.slow_ns, 0);
	CHECK(jcal_options_parse("trace,output=tree,slow=50ms", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.slow_ns, 50000000);
	CHECK_EQ_U(o.slow_max, JCAL_SLOW_KEEP_DEFAULT);
	CHECK(jcal_options_parse("trace,output=both,slow=250us:7", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.slow_ns, 250000);
	CHECK_EQ_U(o.slow_max, 7);
	CHECK(jcal_options_parse("trace,output=both,slow=3600s", &o, err, sizeof(err)) == 0);
	CHECK_EQ_U(o.slow_ns, 3600000000000ull);
}

/* monitors=on|off: on by default (monitors_off 0, a zeroed struct) */
static void test_monitors_values(void)
{
	struct jcal_options o;
	char err[256];

	CHECK(jcal_options_parse("trace", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.monitors_off, 0);
	CHECK(jcal_options_parse("trace,monitors=off", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.monitors_off, 1);
	CHECK(jcal_options_parse("trace,mode=bci,monitors=on", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.monitors_off, 0);
}

/* probes=: switch unless given, but static for calibrate (its table serves both) */
static void test_probes_values(void)
{
	struct jcal_options o;
	char err[256];

	CHECK(jcal_options_parse("trace,mode=bci", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.probes_static, 0);
	CHECK_EQ_I(o.probes_given, 0);
	CHECK(jcal_options_parse("trace,mode=bci,probes=static", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.probes_static, 1);
	CHECK_EQ_I(o.probes_given, 1);
	CHECK(jcal_options_parse("calibrate,mode=bci", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.probes_static, 1);
	CHECK(jcal_options_parse("calibrate,mode=bci,probes=switch", &o, err, sizeof(err)) == 0);
	CHECK_EQ_I(o.probes_static, 0);
}

static void test_help_text(void)
{
	const char *h = jcal_options_help();
	static const char *const keys[] = {
	    "help",	"trace",    "calibrate", "out=",   "metric=", "mode=",
	    "table=",	"log=",	    "loglevel=", "quiet",  "start=",  "recalibrate=",
	    "include=", "exclude=", "calib=",	 "label=", "hists=",  "monitors="};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CHECK(strstr(h, keys[i]) != NULL);
}

int main(void)
{
	RUN(test_option_table);
	RUN(test_option_values);
	RUN(test_hists_values);
	RUN(test_slow_values);
	RUN(test_monitors_values);
	RUN(test_probes_values);
	RUN(test_bci_filters);
	RUN(test_expand_out);
	RUN(test_help_text);
	RUN(test_later_start);
	RUN(test_later_policies);
	return test_summary("options");
}
