package jcaltest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the launcher's suites (LauncherTests, LauncherSafety) share: JVMs
 * that run jcaltest.work.Hold until told to end, jcal (build/jcal) run
 * under a timeout, the checks of its exit code and its one error line, and
 * two users made for a test and removed after it.
 */
final class LauncherKit {
	static final String HOLD = "jcaltest.work.Hold";
	final Runner r;
	final String jcal, echoLib;
	final List<String> javas = new ArrayList<>();

	LauncherKit(Runner r) throws Exception {
		this.r = r;
		String build = System.getProperty("jcal.build", "build");
		jcal = Path.of(build, "jcal").toString();
		echoLib = Path.of(build, "launcher-test", "libjcal.so").toString();
		javas.add(r.java);
		Path j21 = Path.of(build, "javatests21", "JAVA_HOME");
		if (Files.exists(j21))
			javas.add(Path.of(Files.readString(j21).trim(), "bin", "java").toString());
	}

	/** A JVM running Hold (in a 0755 directory of /tmp, its working directory) until close(). */
	final class Jvm implements AutoCloseable {
		final Process p;
		final long pid;
		final Path dir, go, out;

		Jvm(String java, List<String> prefix, String... flags) throws Exception {
			dir = Files.createTempDirectory(Path.of("/tmp"), "jcallauncher");
			Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
			go = dir.resolve("go");
			out = dir.resolve("stdout.txt");
			List<String> cmd = new ArrayList<>(prefix);
			cmd.add(java);
			cmd.addAll(Arrays.asList(flags));
			if (!Arrays.asList(flags).contains("-jar"))
				cmd.addAll(List.of("-cp", r.classes, HOLD));
			cmd.add(go.toString());
			p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
					.redirectError(dir.resolve("stderr.txt").toFile()).start();
			pid = p.pid();
			long end = System.nanoTime() + 30_000_000_000L;
			while (!stdout().contains("holding") && p.isAlive() && System.nanoTime() < end)
				Thread.sleep(20);
			if (!stdout().contains("holding"))
				throw new IllegalStateException("the JVM did not start: " + cmd + ": " + stdout() + stderr());
		}

		String stdout() throws Exception {
			return Files.readString(out, StandardCharsets.UTF_8);
		}

		String stderr() throws Exception {
			return Files.readString(dir.resolve("stderr.txt"), StandardCharsets.UTF_8);
		}

		@Override
		public void close() throws Exception {
			Files.writeString(go, "");
			if (!p.waitFor(10, TimeUnit.SECONDS)) {
				p.destroyForcibly();
				p.waitFor(10, TimeUnit.SECONDS);
			}
			Runner.deleteTree(dir.toFile());
		}
	}

	Jvm jvm(String java, List<String> prefix, String... flags) throws Exception {
		return new Jvm(java, prefix, flags);
	}

	Runner.Result run(List<String> cmd, int seconds) throws Exception {
		return r.runFor(r.tmp.toFile(), cmd, Map.of(), null, seconds);
	}

	/** jcal ARGS, run after prefix (e.g. setpriv ...), under a 60 s timeout. */
	Runner.Result jcal(List<String> prefix, Object... args) throws Exception {
		List<String> cmd = new ArrayList<>(prefix);
		cmd.add(jcal);
		for (Object a : args)
			cmd.add(a.toString());
		Runner.Result res = run(cmd, 60);
		r.check(res != null, "jcal " + Arrays.toString(args) + " did not finish within 60 s");
		if (res != null) {
			Matcher m = REPLY_DIR.matcher(res.out + res.err);
			while (m.find())
				replyDirs.add(m.group(1));
		}
		return res;
	}

	private static final Pattern REPLY_DIR = Pattern.compile("reply=(/tmp/jcal-reply-[A-Za-z0-9]{6})/reply");
	private final Set<String> replyDirs = new LinkedHashSet<>();

	/** How many reply directories the stand-in agent echoed so far. */
	int replyDirsSeen() {
		return replyDirs.size();
	}

	/** Those of them that are still there. */
	List<String> replyDirsLeft() {
		List<String> left = new ArrayList<>();
		for (String d : replyDirs)
			if (Files.exists(Path.of(d)))
				left.add(d);
		return left;
	}

	Runner.Result jcal(Object... args) throws Exception {
		return jcal(List.of(), args);
	}

	/** Exit code rc and exactly one stderr line, "jcal: error: ..." containing what. */
	void expectError(String what, Runner.Result res, int rc, String contains) {
		if (res == null)
			return;
		List<String> lines = res.errLines();
		r.check(res.rc == rc, what + ": exit " + rc + " expected, got " + res.rc + ": " + res.err);
		r.check(lines.size() == 1 && lines.get(0).startsWith("jcal: error: ") && lines.get(0).contains(contains),
				what + ": one 'jcal: error:' line with '" + contains + "' expected, got: " + res.err);
	}

	void expectOk(String what, Runner.Result res, String outContains) {
		if (res == null)
			return;
		r.check(res.rc == 0, what + ": exit 0 expected, got " + res.rc + ": " + res.err);
		r.check(res.out.contains(outContains), what + ": '" + outContains + "' expected in: " + res.out);
	}

	static boolean alive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	/**
	 * Two users (each with a group of its name) that a test makes with
	 * useradd and removes with userdel when closed, with whatever of theirs
	 * is left in /tmp's hsperfdata directories.
	 */
	static final class Users implements AutoCloseable {
		final String alice, bob;

		private Users(String alice, String bob) {
			this.alice = alice;
			this.bob = bob;
		}

		/** null, with the reason printed as a SKIP line, when users cannot be made here. */
		static Users create() throws Exception {
			if (!System.getProperty("user.name").equals("root") || !Files.isExecutable(Path.of("/usr/sbin/useradd"))
					|| !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
				System.out.println("     SKIP: needs root, useradd and setpriv to run as two users");
				return null;
			}
			String tag = Long.toString(ProcessHandle.current().pid() % 100000);
			Users u = new Users("jcala" + tag, "jcalb" + tag);
			for (String name : List.of(u.alice, u.bob)) {
				sh("userdel", name);
				Process p = new ProcessBuilder("useradd", "-M", "-U", "-s", "/usr/sbin/nologin", name)
						.redirectErrorStream(true).start();
				String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
				if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
					u.close();
					System.out.println("     SKIP: useradd " + name + " failed: " + text.trim());
					return null;
				}
			}
			return u;
		}

		/** setpriv, to run the rest of a command line as user. */
		static List<String> as(String user) {
			return List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups");
		}

		private static void sh(String... cmd) throws Exception {
			Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.start();
			if (!p.waitFor(30, TimeUnit.SECONDS))
				p.destroyForcibly();
		}

		@Override
		public void close() throws Exception {
			for (String name : List.of(alice, bob)) {
				Runner.deleteTree(Path.of("/tmp", "hsperfdata_" + name).toFile());
				sh("userdel", name);
			}
		}
	}
}
