package jcaltest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The jcal launcher on a shared machine (docs/live-profiling.md): a
 * failed first start puts jcal-agent.jar on the boot class path once.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class LauncherSafety {
	private final Runner r;
	private final LauncherKit k;

	private LauncherSafety(Runner r) throws Exception {
		this.r = r;
		k = new LauncherKit(r);
	}

	/** A first start that fails puts jcal-agent.jar on the boot class path once, not at each try. */
	private boolean testBootJarOnce() throws Exception {
		byte[] so = Files.readAllBytes(Path.of(r.agent));
		if (!new String(so, StandardCharsets.ISO_8859_1).contains("Agent_OnAttach")) {
			System.out.println("     SKIP: " + r.agent + " has no Agent_OnAttach yet");
			return false;
		}
		for (String java : k.javas) {
			Path log = r.tmp.resolve("classload-" + System.nanoTime() + ".log");
			try (LauncherKit.Jvm j = k.jvm(java, List.of(), "-XX:+EnableDynamicAgentLoading",
					"-Xlog:class+load=info:file=" + log)) {
				for (int i = 0; i < 3; i++) {
					Runner.Result bad = k.jcal("start", j.pid, "--lib", r.agent, "-o", "/nonexistent/dir/x.bin");
					r.check(bad != null && bad.rc == 1, java + ": a start that cannot write its file: exit 1: "
							+ (bad == null ? "" : bad.rc + " " + bad.err));
				}
				Runner.Result ok = k.jcal("start", j.pid, "-o", r.tmp.resolve("once-" + j.pid + ".bin"));
				r.check(ok != null && ok.rc == 0, java + ": then a start that works: " + (ok == null ? "" : ok.rc + " " + ok.err));
				k.jcal("stop", j.pid);
				long opened = Files.readAllLines(log).stream().filter(l -> l.contains("opened:") && l.contains("jcal-agent.jar")).count();
				r.check(opened == 1, java + ": jcal-agent.jar put on the boot class path once, not " + opened + " times");
				long warned = j.stderr().lines().filter(l -> l.contains("bootstrap classpath has been appended")).count();
				r.check(warned <= 1, java + ": at most one class-sharing warning, not " + warned);
			}
		}
		return true;
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		LauncherSafety s;
		try {
			s = new LauncherSafety(r);
		} catch (Exception e) {
			throw new IllegalStateException(e);
		}
		return new Runner.Tests()
				.addSkippable("launcher-boot-jar-once", s::testBootJarOnce);
	}
}
