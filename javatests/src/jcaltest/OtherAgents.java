package jcaltest;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import com.sun.jdi.request.VMDeathRequest;

/**
 * jcal beside other agents, in mode=events and mode=bci: the debugger's
 * agent (-agentlib:jdwp, passive, and with a JDI client of this test
 * counting method entries) and a -javaagent (javatests/otheragent, built
 * here into a jar) that rewrites the same classes with ASM to count their
 * method entries, or hands them back unchanged, and retransforms them
 * while they run; each before and after libjcal.so on the command line.
 * The workload (jcaltest.work.AgentsMix) must give jcal's exact counts,
 * exit 0, and in both modes the other agent's counter must still count
 * every entry. Then jcal attached live (jcal start/stop) to a server
 * running jdwp and the counting agent. Skips the ASM cases, visibly, when
 * libasm-java is not installed (scripts/install-deps.sh --tests).
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class OtherAgents {
	private static final String W = "jcaltest.work.";
	private static final Path ASM = Path.of("/usr/share/java/asm.jar");
	private static final String JDWP = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0";
	private static final int TICKS = 200_000;
	private final Runner r;
	private Path countJar, identityJar;

	private OtherAgents(Runner r) {
		this.r = r;
	}

	/** Exact flat counts of AgentsMix (hidden lambda classes aside: only mode=events sees them). */
	private static Map<String, Long> expected(int ticks) {
		String B = W + "Basic.", R = W + "Recursion.", E = W + "Exceptions.", T = W + "Threads.";
		Map<String, Long> m = new TreeMap<>(Runner.map(W + "AgentsMix.main", 1, B + "main", 1, B + "<init>", 1, B + "a", 3,
				B + "b", 6, B + "leaf", 12, R + "main", 1, R + "fib", 465, R + "down", 3001, R + "even", 6, R + "odd", 5,
				E + "main", 1, E + "outer", 5, E + "inner", 5, E + "middle", 5, E + "thrower", 5, E + "after", 5,
				T + "main", 1, T + "step", 4, T + "leaf", 1000, W + "Threads$Worker.<init>", 4,
				W + "Threads$Worker.run", 4, W + "Loop.main", 1, W + "Loop.tick", ticks));
		m.putAll(BciTests.MIX);
		return m;
	}

	private static long sum(Map<String, Long> m) {
		return m.values().stream().mapToLong(Long::longValue).sum();
	}

	/** Flat calls of the workload's classes, hidden (lambda proxy) classes left out. */
	private Map<String, Long> workCalls(Path t) throws Exception {
		Map<String, Long> m = new TreeMap<>();
		for (Map.Entry<String, Long> e : r.flatCalls(t, W).entrySet())
			if (!e.getKey().contains("$$Lambda"))
				m.put(e.getKey(), e.getValue());
		return m;
	}

	/* ---- the other -javaagent, built from javatests/otheragent ---- */

	/** Compiles the agent (with ASM: both transformers) into a jar; null with the reason printed. */
	private Path buildAgent(String name, boolean withAsm) throws Exception {
		Path src = Path.of("javatests/otheragent/jcalother").toAbsolutePath();
		Path classes = Files.createTempDirectory(r.tmp, name);
		List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
		if (withAsm)
			args.addAll(List.of("-cp", ASM.toString(), src.resolve("CountingTransformer.java").toString()));
		args.addAll(List.of(src.resolve("OtherAgent.java").toString(), src.resolve("Counter.java").toString()));
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		if (javac == null) {
			System.out.println("SKIP: no Java compiler in this JDK to build the other agent");
			return null;
		}
		int rc = javac.run(null, null, null, args.toArray(new String[0]));
		r.check(rc == 0, "compiling javatests/otheragent: javac exit " + rc);
		if (rc != 0)
			return null;
		Manifest mf = new Manifest();
		Attributes a = mf.getMainAttributes();
		a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
		a.putValue("Premain-Class", "jcalother.OtherAgent");
		a.putValue("Can-Retransform-Classes", "true");
		if (withAsm)
			a.put(Attributes.Name.CLASS_PATH, ASM.toUri().toString());
		Path jar = r.tmp.resolve(name + ".jar");
		try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), mf)) {
			for (File f : classes.resolve("jcalother").toFile().listFiles()) {
				out.putNextEntry(new JarEntry("jcalother/" + f.getName()));
				out.write(Files.readAllBytes(f.toPath()));
				out.closeEntry();
			}
		}
		return jar;
	}

	private Path countJar() throws Exception {
		if (countJar == null && Files.isReadable(ASM))
			countJar = buildAgent("otheragent-asm", true);
		return countJar;
	}

	private Path identityJar() throws Exception {
		if (identityJar == null)
			identityJar = buildAgent("otheragent", false);
		return identityJar;
	}

	private static boolean skipNoAsm() {
		System.out.println("SKIP: " + ASM + " not installed (libasm-java; scripts/install-deps.sh --tests)");
		return false;
	}

	/* ---- runs ---- */

	/**
	 * AgentsMix under jcal in mode with the other agent's option other
	 * before (or after) -agentpath: exit 0, jcal's exact counts; returns
	 * the JVM's stderr (the other agent's line), null when it failed.
	 */
	private String mix(String name, String mode, String other, boolean otherFirst) throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		String jcal = "-agentpath:" + r.agent + "=trace,quiet,mode=" + mode + ",out=" + t;
		List<String> cmd = new ArrayList<>(List.of(r.java));
		cmd.addAll(otherFirst ? List.of(other, jcal) : List.of(jcal, other));
		cmd.addAll(List.of("-cp", r.classes, W + "AgentsMix", String.valueOf(TICKS)));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 120);
		if (res == null) {
			r.check(false, name + ": timed out (120 s): " + cmd);
			return null;
		}
		r.check(res.rc == 0, name + ": JVM exit " + res.rc + ": " + res.err);
		r.check(res.out.contains("loop ") && res.out.contains("bcimix "), name + ": the workload ran: " + res.out);
		r.check(!res.err.contains("jcal:") && !res.err.contains("#  SIGSEGV") && !res.err.contains("Error"),
				name + ": nothing from jcal and no JVM error on stderr: " + res.err);
		if (!Files.exists(t)) {
			r.check(false, name + ": no trace written");
			return null;
		}
		r.expectExact(name + ": flat calls", expected(TICKS), workCalls(t));
		lastTrace = t;
		return res.err;
	}

	private Path lastTrace;

	private static long otherField(String err, String key) {
		Matcher m = Pattern.compile("otheragent: .*\\b" + key + " (\\d+)").matcher(err);
		return m.find() ? Long.parseLong(m.group(1)) : -1;
	}

	/** jdwp listening (nobody attaches), before and after jcal, both modes. */
	private void testJdwp() throws Exception {
		for (String mode : List.of("events", "bci"))
			for (boolean first : List.of(true, false))
				mix("jdwp-" + mode + (first ? "-first" : "-second"), mode, JDWP, first);
	}

	/**
	 * The counting -javaagent (ASM) before and after jcal, both modes: its
	 * counter sees every method entry of the workload, and so does jcal,
	 * which also counts the counter's own calls exactly.
	 */
	private boolean testCountingAgent() throws Exception {
		Path jar = countJar();
		if (jar == null)
			return skipNoAsm();
		long all = sum(expected(TICKS));
		for (String opts : List.of("count", "count,retransform"))
			for (String mode : List.of("events", "bci"))
				for (boolean first : List.of(true, false)) {
					if (opts.contains("retransform") && !first)
						continue; /* one order is enough for the retransforming run */
					String name = opts.replace(',', '-') + "-" + mode + (first ? "-first" : "-second");
					String err = mix(name, mode, "-javaagent:" + jar + "=" + opts, first);
					if (err == null)
						continue;
					r.check(otherField(err, "hits") == all, name + ": the other agent's counter: " + all
							+ " method entries expected, it counted " + otherField(err, "hits"));
					Map<String, Long> hit = r.flatCalls(lastTrace, "jcalother.Counter.hit");
					r.expectExact(name + ": jcal's count of the counter's calls",
							Runner.map("jcalother.Counter.hit", all), hit);
					if (opts.contains("retransform"))
						r.check(otherField(err, "retransforms") > 0, name + ": it retransformed: " + err);
				}
		return true;
	}

	/** A transformer that hands the bytes back unchanged and retransforms all along, both modes, both orders. */
	private boolean testIdentityRetransform() throws Exception {
		Path jar = identityJar();
		if (jar == null)
			return false;
		for (String mode : List.of("events", "bci"))
			for (boolean first : List.of(true, false)) {
				String name = "identity-" + mode + (first ? "-first" : "-second");
				String err = mix(name, mode, "-javaagent:" + jar + "=identity,retransform", first);
				if (err != null)
					r.check(otherField(err, "retransforms") > 0 && otherField(err, "transformed") > 9,
							name + ": it transformed and retransformed: " + err);
			}
		return true;
	}

	/** Waits for "address: PORT" of jdwp in file f; -1 after 30 s or when p ended. */
	private static int jdwpPort(Path f, Process p) throws Exception {
		Pattern port = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
		for (int i = 0; i < 300 && p.isAlive(); i++) {
			Matcher m = port.matcher(Files.readString(f, StandardCharsets.UTF_8));
			if (m.find())
				return Integer.parseInt(m.group(1));
			Thread.sleep(100);
		}
		return -1;
	}

	/** What JDK 17's jdwp prints when it aborts at VM death on its own race. */
	private static final String JDWP_DEATH_RACE = "JDWP exit error JVMTI_ERROR_WRONG_PHASE(112): cannot get thread local storage";

	/**
	 * A debugger attached over JDWP (suspend=y) that asks for every method
	 * entry of the workload's classes, while jcal records, both modes: the
	 * debugger and jcal count the same calls, jcal's counts are exact.
	 */
	private void testDebugger() throws Exception {
		int ticks = 2000;
		long all = sum(expected(ticks));
		for (String mode : List.of("events", "bci")) {
			String name = "debugger-" + mode;
			Path t = r.tmp.resolve(name + ".bin"), out = r.tmp.resolve(name + ".out"), err = r.tmp.resolve(name + ".err");
			Process p = null;
			long entries = 0;
			int port = 0;
			/* JDK 17's jdwp can abort at VM death, on a thread whose event
			 * it was still handling when the VM became dead (its
			 * GetThreadLocalStorage gets WRONG_PHASE: a race inside jdwp,
			 * seen about once in eight runs of this test, with jcal as it
			 * was before and after its clock changed); that abort, and only
			 * it, is run again, each run checked in full */
			for (int attempt = 1; attempt <= 3; attempt++) {
				/* jdwp's abort writes a crash report: into the test's
				 * directory, not the working one */
				p = new ProcessBuilder(r.java, JDWP.replace("suspend=n", "suspend=y"),
						"-XX:ErrorFile=" + r.tmp.resolve(name + "-hs_err-%p.log"),
						"-agentpath:" + r.agent + "=trace,quiet,mode=" + mode + ",out=" + t, "-cp", r.classes,
						W + "AgentsMix", String.valueOf(ticks)).redirectOutput(out.toFile())
						.redirectError(err.toFile()).start();
				entries = 0;
				try {
					port = jdwpPort(out, p);
					r.check(port > 0, name + ": jdwp's port: " + Files.readString(out) + Files.readString(err));
					if (port <= 0)
						break;
					entries = debug(port);
					r.check(p.waitFor(120, TimeUnit.SECONDS), name + ": the JVM did not end within 120 s");
				} finally {
					p.destroyForcibly();
					p.waitFor(10, TimeUnit.SECONDS);
				}
				if (p.exitValue() != 134 || !Files.readString(err).contains(JDWP_DEATH_RACE))
					break;
				System.out.println("      note: " + name + ": jdwp aborted at VM death (" + JDWP_DEATH_RACE
						+ "), run " + attempt + " of 3");
			}
			if (port <= 0)
				continue;
			r.check(p.exitValue() == 0, name + ": JVM exit " + p.exitValue() + ": " + Files.readString(err));
			r.check(entries == all, name + ": the debugger saw " + entries + " method entries, " + all + " expected");
			r.expectExact(name + ": flat calls", expected(ticks), workCalls(t));
		}
	}

	/** Attaches a JDI client to port, counts method entries into jcaltest.work (hidden classes aside) to the end. */
	private static long debug(int port) throws Exception {
		AttachingConnector c = null;
		for (AttachingConnector a : Bootstrap.virtualMachineManager().attachingConnectors())
			if (a.name().equals("com.sun.jdi.SocketAttach"))
				c = a;
		Map<String, Connector.Argument> args = c.defaultArguments();
		args.get("hostname").setValue("127.0.0.1");
		args.get("port").setValue(String.valueOf(port));
		args.get("timeout").setValue("20000");
		VirtualMachine vm = c.attach(args);
		MethodEntryRequest req = vm.eventRequestManager().createMethodEntryRequest();
		req.addClassFilter(W + "*");
		req.setSuspendPolicy(EventRequest.SUSPEND_NONE);
		req.enable();
		/* When the workload's main returns (the VM stopped there), the
		 * method events are switched off, so that none is in flight in
		 * jdwp while the VM dies: jdwp of JDK 17 can abort then with
		 * JVMTI_ERROR_WRONG_PHASE in its thread control. */
		MethodExitRequest end = vm.eventRequestManager().createMethodExitRequest();
		end.addClassFilter(W + "AgentsMix");
		end.setSuspendPolicy(EventRequest.SUSPEND_ALL);
		end.enable();
		/* The VM waits at its death until the events before it are read: a
		 * method look-up on a late event would otherwise find it gone. */
		VMDeathRequest death = vm.eventRequestManager().createVMDeathRequest();
		death.setSuspendPolicy(EventRequest.SUSPEND_ALL);
		death.enable();
		vm.resume();
		long n = 0;
		long deadline = System.nanoTime() + 120_000_000_000L;
		while (System.nanoTime() < deadline) {
			EventSet set = vm.eventQueue().remove(1000);
			if (set == null)
				continue;
			for (Event e : set) {
				if (e instanceof MethodEntryEvent) {
					if (!((MethodEntryEvent) e).method().declaringType().name().contains("$$Lambda"))
						n++;
				} else if (e instanceof MethodExitEvent) {
					if (((MethodExitEvent) e).method().name().equals("main")) {
						req.disable();
						end.disable();
					}
				} else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
					/* every entry came before: let the VM go (dispose
					 * resumes what the death request suspended) */
					if (e instanceof VMDeathEvent)
						try {
							vm.dispose();
						} catch (VMDisconnectedException gone) {
							// already gone: nothing to resume
						}
					return n;
				}
			}
			set.resume();
		}
		return n;
	}

	/**
	 * jcal attached live (start, requests, stop) to a server that runs
	 * jdwp and, when ASM is there, the counting agent: the handler's calls
	 * exact; the server goes on and ends normally.
	 */
	private void testLiveAttach() throws Exception {
		Path jar = countJar();
		List<List<String>> variants = new ArrayList<>();
		variants.add(List.of(JDWP));
		if (jar != null)
			variants.add(List.of(JDWP, "-javaagent:" + jar + "=count"));
		String jcal = new File(new File(r.post).getParentFile(), "jcal").getPath();
		int v = 0;
		for (List<String> opts : variants) {
			String name = "live-" + (v++ == 0 ? "jdwp" : "jdwp-javaagent");
			Path log = r.tmp.resolve(name + ".log"), t = r.tmp.resolve(name + ".bin");
			try (Live.Server s = new Live.Server(r, log, opts.toArray(new String[0]))) {
				s.work(200);
				Runner.Result st = r.run(r.tmp.toFile(), List.of(jcal, "start", Long.toString(s.pid), "-o", t.toString()));
				r.check(st.rc == 0, name + ": jcal start: " + st.rc + ": " + st.out + st.err);
				int k = 300;
				s.work(k);
				Runner.Result stop = r.run(r.tmp.toFile(), List.of(jcal, "stop", Long.toString(s.pid)));
				r.check(stop.rc == 0, name + ": jcal stop: " + stop.rc + ": " + stop.out + stop.err);
				s.work(50);
				Map<String, Long> want = Runner.map(W + "LiveServer$Work.handle", k, W + "LiveServer.compute", k,
						W + "LiveServer.leaf", 50L * k), got = new TreeMap<>(r.flatCalls(t, W + "LiveServer"));
				got.keySet().retainAll(want.keySet());
				r.expectExact(name + ": calls while recording", want, got);
				r.check(s.served() == 200 + k + 50, name + ": the server served every request");
			}
			String text = Files.readString(log);
			r.check(!text.contains("SIGSEGV") && !text.contains("Error"), name + ": server's stderr: " + text);
		}
	}

	static Runner.Tests tests(Runner r) {
		OtherAgents o = new OtherAgents(r);
		return new Runner.Tests()
				.add("jdwp", o::testJdwp)
				.addSkippable("javaagent-counting", o::testCountingAgent)
				.addSkippable("javaagent-identity-retransform", o::testIdentityRetransform)
				.add("jdwp-debugger", o::testDebugger)
				.add("live-attach-jdwp", o::testLiveAttach);
	}
}
