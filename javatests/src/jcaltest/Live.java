package jcaltest;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Profiling a running JVM: a server started without the agent is recorded
 * through the jcal launcher (start/stop, then record -d), the handler's
 * call count equals the requests sent during the recording, and after stop
 * the probes are gone. Also duration= and maxsize= at start-up, the
 * OUT.part file of a running recording, and jcal.Control without the agent.
 * Uses Runner's helpers; run by jcaltest.Main (javatests/run.sh).
 */
public final class Live {
	private static final String W = "jcaltest.work.";
	private static final String HANDLE = W + "LiveServer$Work.handle";
	private final Runner r;
	private final String jcal;

	private Live(Runner r) {
		this.r = r;
		this.jcal = new File(new File(r.post).getParentFile(), "jcal").getPath();
	}

	/** A server JVM without the agent, and its port (also jcaltest.OtherAgents). */
	static final class Server implements AutoCloseable {
		final Process p;
		final int port;
		final long pid;

		Server(Runner r, Path log, String... jvmOptions) throws Exception {
			this(r, log, java.util.Map.of(), jvmOptions);
		}

		/** The same with env added to the JVM's environment (jcaltest.LaterStart). */
		Server(Runner r, Path log, java.util.Map<String, String> env, String... jvmOptions) throws Exception {
			this(log, command(r.java, r.classes, jvmOptions), env);
		}

		/** java with jvmOptions running LiveServer from classes. */
		static List<String> command(String java, String classes, String... jvmOptions) {
			List<String> cmd = new ArrayList<>(List.of(java));
			cmd.addAll(List.of(jvmOptions));
			/* nodelay: no 40 ms delayed-ACK stall per request on loopback */
			cmd.addAll(List.of("-Dsun.net.httpserver.nodelay=true", "-cp", classes, W + "LiveServer"));
			return cmd;
		}

		/** The server that cmd (command(), maybe behind setpriv) runs. */
		Server(Path log, List<String> cmd, java.util.Map<String, String> env) throws Exception {
			ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
			pb.environment().putAll(env);
			p = pb.start();
			pid = p.pid();
			BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
			String line = in.readLine();
			/* -agentlib:jdwp (jcaltest.OtherAgents) says where it listens first */
			while (line != null && line.startsWith("Listening for transport"))
				line = in.readLine();
			if (line == null || !line.startsWith("port ")) {
				p.destroyForcibly();
				throw new IllegalStateException("server did not start: " + line + " " + Files.readString(log));
			}
			port = Integer.parseInt(line.substring(5).trim());
		}

		String get(String path) throws Exception {
			HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
			c.setConnectTimeout(10_000);
			c.setReadTimeout(10_000);
			try (InputStream in = c.getInputStream()) {
				return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
			}
		}

		/** Sends n requests to /work, one after the other; returns requests per second. */
		double work(int n) throws Exception {
			long t0 = System.nanoTime();
			for (int i = 0; i < n; i++)
				if (!"ok".equals(get("/work")))
					throw new IllegalStateException("bad answer");
			return n / ((System.nanoTime() - t0) / 1e9);
		}

		long served() throws Exception {
			return Long.parseLong(get("/count"));
		}

		@Override
		public void close() throws Exception {
			p.getOutputStream().close();
			if (!p.waitFor(20, TimeUnit.SECONDS))
				p.destroyForcibly();
		}
	}

	private Runner.Result launcher(String... args) throws Exception {
		List<String> cmd = new ArrayList<>();
		cmd.add(jcal);
		cmd.addAll(List.of(args));
		return r.run(r.tmp.toFile(), cmd);
	}

	private static long field(String text, String key) {
		Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + ":\\s*(\\d+)").matcher(text);
		return m.find() ? Long.parseLong(m.group(1)) : -1;
	}

	private long calls(Path t, String method) throws Exception {
		Long n = r.flatCalls(t, "").get(method);
		return n == null ? 0 : n;
	}

	/**
	 * jcal start / stop on a server that runs without the agent: every
	 * request sent between them is counted once, the file appears under
	 * its name only when complete, and after stop no probe runs.
	 */
	private void testStartStop() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "live");
		Path out = dir.resolve("live.bin");
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(3000); /* warm-up: the rates below compare compiled code */
			double before = s.work(1000);
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString());
			r.check(st.rc == 0, "jcal start: exit 0 expected, got " + st.rc + ": " + st.out + st.err);
			long served0 = s.served();
			int k = 1000;
			double during = s.work(k);
			long served1 = s.served();
			r.check(Files.exists(Path.of(out + ".part")) && !Files.exists(out),
					"while recording only " + out.getFileName() + ".part exists");
			Runner.Result status = launcher("status", Long.toString(s.pid));
			r.check(status.rc == 0 && status.out.startsWith("recording: yes"),
					"status while recording: " + status.out + status.err);
			Runner.Result stop = launcher("stop", Long.toString(s.pid));
			r.check(stop.rc == 0, "jcal stop: exit 0 expected, got " + stop.rc + ": " + stop.out + stop.err);
			r.check(Files.exists(out) && !Files.exists(Path.of(out + ".part")), "after stop the file is under its name");
			Runner.Result idle = launcher("status", Long.toString(s.pid));
			long probes0 = field(idle.out, "probe calls while stopped");
			r.check(idle.out.startsWith("recording: no") && probes0 >= 0, "status after stop: " + idle.out);
			double after = s.work(1000);
			Runner.Result idle2 = launcher("status", Long.toString(s.pid));
			long probes1 = field(idle2.out, "probe calls while stopped");
			r.check(probes1 == probes0, "the probes are gone after stop: " + (probes1 - probes0)
					+ " probe calls during 1000 requests");
			/* Figures only (a noisy machine): bench/live-throughput.sh measures them. */
			System.out.printf("      requests/s before %.0f, recording %.0f, after stop %.0f (after/before %.2f)%n",
					before, during, after, after / before);
			r.check(served1 - served0 == k, "the server counted " + (served1 - served0) + " requests, sent " + k);
			r.check(calls(out, HANDLE) == k, "handle() calls in the recording: " + calls(out, HANDLE) + ", sent " + k);
			r.check(calls(out, W + "LiveServer.compute") == k, "compute() calls: " + calls(out, W + "LiveServer.compute"));
			r.check(calls(out, W + "LiveServer.leaf") == 50L * k, "leaf() calls: " + calls(out, W + "LiveServer.leaf"));
			Runner.Result sum = r.post(out, "--report", "summary");
			r.check(sum.out.contains("stopped:") && sum.out.contains("stop command") && sum.out.contains("complete"),
					"summary says the recording was stopped: " + sum.out);

			/* A second recording of the same JVM, bounded by -d. */
			Path out2 = dir.resolve("second.bin");
			Process rec = new ProcessBuilder(jcal, "record", Long.toString(s.pid), "-d", "6s", "-o", out2.toString())
					.redirectErrorStream(true).redirectOutput(dir.resolve("record.log").toFile()).start();
			long deadline = System.nanoTime() + 20_000_000_000L;
			boolean on = false;
			while (!on && System.nanoTime() < deadline) {
				on = launcher("status", Long.toString(s.pid)).out.startsWith("recording: yes");
				if (!on)
					Thread.sleep(100);
			}
			r.check(on, "record: the recording started");
			long t0 = System.nanoTime();
			int k2 = 200;
			s.work(k2);
			double secs = (System.nanoTime() - t0) / 1e9;
			r.check(rec.waitFor(60, TimeUnit.SECONDS) && rec.exitValue() == 0,
					"jcal record exits 0: " + Files.readString(dir.resolve("record.log")));
			if (secs < 4)
				r.check(calls(out2, HANDLE) == k2, "record -d 6s: handle() calls " + calls(out2, HANDLE) + ", sent " + k2);
			else
				System.out.println("      (requests took " + secs + " s: the window may have closed; count not checked)");
			Runner.Result sum2 = r.post(out2, "--report", "summary");
			r.check(sum2.out.contains("duration=6s reached"), "summary of record -d: " + sum2.out);
		}
	}

	/**
	 * The same by hand with the JDK's jcmd (the option string quoted once
	 * more: jcmd splits arguments at '='): start, status through a reply
	 * file, a second start refused, stop; the handler's calls exact.
	 */
	private void testJcmd() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "jcmd");
		Path out = dir.resolve("j.bin");
		Path reply;
		String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(100);
			Runner.Result st = r.run(dir.toFile(), List.of(jcmd, Long.toString(s.pid), "JVMTI.agent_load", r.agent,
					"'start,out=" + out + "'"));
			r.check(st.rc == 0 && st.out.contains("return code: 0"), "jcmd start: " + st.out + st.err);
			int k = 250;
			s.work(k);
			reply = replyFile(dir);
			Runner.Result again = r.run(dir.toFile(), List.of(jcmd, Long.toString(s.pid), "JVMTI.agent_load", r.agent,
					"'start,out=" + dir.resolve("other.bin") + ",reply=" + reply + "'"));
			r.check(again.out.contains("return code: 2") && Files.readString(reply).contains("a recording is running"),
					"a second start is refused with code 2: " + again.out + Files.readString(reply));
			reply = replyFile(dir);
			Runner.Result stat = r.run(dir.toFile(), List.of(jcmd, Long.toString(s.pid), "JVMTI.agent_load", r.agent,
					"'status,reply=" + reply + "'"));
			String text = Files.readString(reply);
			r.check(stat.out.contains("return code: 0") && text.startsWith("recording: yes") && text.contains("mode: bci"),
					"jcmd status: " + stat.out + text);
			reply = replyFile(dir);
			Runner.Result stop = r.run(dir.toFile(), List.of(jcmd, Long.toString(s.pid), "JVMTI.agent_load", r.agent,
					"'stop,reply=" + reply + "'"));
			r.check(stop.out.contains("return code: 0") && Files.readString(reply).contains("wrote " + out),
					"jcmd stop: " + stop.out + Files.readString(reply));
			reply = replyFile(dir);
			Runner.Result none = r.run(dir.toFile(), List.of(jcmd, Long.toString(s.pid), "JVMTI.agent_load", r.agent,
					"'stop,reply=" + reply + "'"));
			r.check(none.out.contains("return code: 3"), "stop without a recording: code 3: " + none.out);
			r.check(calls(out, HANDLE) == k, "handle() calls: " + calls(out, HANDLE) + ", sent " + k);
		}
	}

	/**
	 * A reply file as the agent accepts one (common/attach_reply.h): an
	 * empty 0600 file in a new directory jcal-reply-* of mode 0700.
	 */
	static Path replyFile(Path dir) throws Exception {
		Path d = Files.createTempDirectory(dir, "jcal-reply-");
		Path f = d.resolve("reply");
		Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
		return f;
	}

	private Runner.Result jcmd(Path dir, long pid, String options) throws Exception {
		String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
		return r.run(dir.toFile(), List.of(jcmd, Long.toString(pid), "JVMTI.agent_load", r.agent, "'" + options + "'"));
	}

	/**
	 * Two running JVMs given the same out=: the second refuses with one
	 * line and code 4, the first one's recording is complete and exact.
	 */
	private void testSameOut() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "sameout");
		Path out = dir.resolve("shared.bin"), reply = replyFile(dir);
		try (Server a = new Server(r, dir.resolve("a.log")); Server b = new Server(r, dir.resolve("b.log"))) {
			Runner.Result st = jcmd(dir, a.pid, "start,out=" + out);
			r.check(st.out.contains("return code: 0"), "first JVM starts: " + st.out + st.err);
			Runner.Result second = jcmd(dir, b.pid, "start,out=" + out + ",reply=" + reply);
			String text = Files.readString(reply);
			r.check(second.out.contains("return code: 4"), "second JVM refused with code 4: " + second.out);
			r.check(text.startsWith("jcal: error: ") && text.contains("being written by another jcal agent")
					&& text.split("\n").length == 1, "one error line naming the conflict: " + text);
			int k = 120;
			a.work(k);
			b.work(k);
			r.check(jcmd(dir, a.pid, "stop").out.contains("return code: 0"), "first JVM stops");
			r.check(calls(out, HANDLE) == k, "the first recording is intact: handle() " + calls(out, HANDLE));
			Path reply2 = replyFile(dir);
			r.check(jcmd(dir, b.pid, "status,reply=" + reply2).out.contains("return code: 0")
					&& Files.readString(reply2).startsWith("recording: no"), "the second JVM records nothing");
		}
	}

	/**
	 * A JVM started with the agent (mode=events): jcal dump copies the
	 * running trace into a complete file, jcal stop ends it, and a second
	 * recording in the same JVM (method events enabled again, every method
	 * defined again, threads started again) counts its requests exactly.
	 */
	private void testDumpAndRestart() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "restart");
		Path first = dir.resolve("first.bin"), dump = dir.resolve("dump.bin"), second = dir.resolve("second.bin");
		try (Server s = new Server(r, dir.resolve("server.log"), "-agentpath:" + r.agent + "=trace,quiet,out=" + first)) {
			String pid = Long.toString(s.pid);
			int k = 200;
			s.work(k);
			Runner.Result d = launcher("dump", pid, "-o", dump.toString());
			r.check(d.rc == 0 && Files.exists(dump) && !Files.exists(Path.of(dump + ".part")),
					"jcal dump: exit 0 and a complete file: " + d.out + d.err);
			Runner.Result ds = r.post(dump, "--report", "summary");
			r.check(ds.rc == 0 && ds.out.contains("complete") && !ds.err.contains("warning"),
					"the dump reads as a complete trace: " + ds.out + ds.err);
			r.check(launcher("stop", pid).rc == 0, "jcal stop of a JVM started with the agent");
			r.check(calls(first, HANDLE) == k, "first recording: handle() " + calls(first, HANDLE) + ", sent " + k);
			s.work(50); /* not recorded */
			Runner.Result st = launcher("start", pid, "-o", second.toString());
			r.check(st.rc == 0, "second start: " + st.out + st.err);
			int k2 = 150;
			s.work(k2);
			r.check(launcher("stop", pid).rc == 0, "second stop");
			r.check(calls(second, HANDLE) == k2,
					"second recording: handle() " + calls(second, HANDLE) + ", sent " + k2);
			Runner.Result sum = r.post(second, "--report", "summary");
			r.check(sum.rc == 0 && sum.out.contains("mode events") && sum.out.contains("stop command")
					&& !sum.out.contains("<unknown method"), "second recording's summary: " + sum.out + sum.err);
		}
	}

	private static final String H2_JAR = "/usr/share/java/h2.jar";

	/**
	 * A real program from Debian (libh2-java): an H2 TCP server started
	 * without the agent; `jcal start`, a client runs a script of N inserts,
	 * `jcal stop`. H2 executes each INSERT once, plus one insert of its own:
	 * the TCP server registers each new connection in its management
	 * database (TcpServer.addConnection), and the script's client connects
	 * once.
	 */
	private boolean testH2() throws Exception {
		if (!Files.isReadable(Path.of(H2_JAR))) {
			System.out.println("      SKIP: " + H2_JAR + " not installed (scripts/install-deps.sh --tests installs libh2-java)");
			return false;
		}
		Path dir = Files.createTempDirectory(r.tmp, "h2");
		Path out = dir.resolve("h2.bin"), script = dir.resolve("inserts.sql");
		int port;
		try (java.net.ServerSocket ss = new java.net.ServerSocket(0)) {
			port = ss.getLocalPort();
		}
		String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:jcal;DB_CLOSE_DELAY=-1";
		int n = 120;
		StringBuilder sql = new StringBuilder();
		for (int i = 1; i <= n; i++)
			sql.append("INSERT INTO T VALUES(").append(i).append(", 'v").append(i).append("');\n");
		Files.writeString(script, sql);
		Process server = new ProcessBuilder(r.java, "-cp", H2_JAR, "org.h2.tools.Server", "-tcp", "-tcpPort",
				Integer.toString(port), "-ifNotExists").redirectErrorStream(true)
				.redirectOutput(dir.resolve("server.log").toFile()).start();
		try {
			long deadline = System.nanoTime() + 30_000_000_000L;
			boolean up = false;
			while (!up && System.nanoTime() < deadline) {
				try (java.net.Socket so = new java.net.Socket("127.0.0.1", port)) {
					up = true;
				} catch (java.io.IOException e) {
					Thread.sleep(100);
				}
			}
			r.check(up, "H2 server listens on " + port + ": " + Files.readString(dir.resolve("server.log")));
			Runner.Result create = r.run(dir.toFile(), List.of(r.java, "-cp", H2_JAR, "org.h2.tools.Shell", "-url", url,
					"-user", "sa", "-sql", "CREATE TABLE T(ID INT PRIMARY KEY, V VARCHAR)"));
			r.check(create.rc == 0, "CREATE TABLE: " + create.out + create.err);
			String pid = Long.toString(server.pid());
			Runner.Result st = launcher("start", pid, "-o", out.toString());
			r.check(st.rc == 0, "jcal start on H2: " + st.out + st.err);
			Runner.Result run = r.run(dir.toFile(), List.of(r.java, "-cp", H2_JAR, "org.h2.tools.RunScript", "-url", url,
					"-user", "sa", "-script", script.toString()));
			r.check(run.rc == 0, "RunScript: " + run.out + run.err);
			r.check(launcher("stop", pid).rc == 0, "jcal stop on H2");
			Runner.Result count = r.run(dir.toFile(), List.of(r.java, "-cp", H2_JAR, "org.h2.tools.Shell", "-url", url,
					"-user", "sa", "-sql", "SELECT COUNT(*) FROM T"));
			r.check(count.out.contains("\n" + n + "\n"), "H2 holds " + n + " rows: " + count.out);
			r.check(calls(out, "org.h2.server.TcpServer.addConnection") == 1,
					"one connection during the recording: " + calls(out, "org.h2.server.TcpServer.addConnection"));
			r.check(calls(out, "org.h2.command.dml.Insert.update") == n + 1,
					"Insert.update: " + calls(out, "org.h2.command.dml.Insert.update") + ", expected " + n + " + 1");
			r.check(calls(out, "org.h2.command.dml.Insert.insertRows") == n + 1,
					"Insert.insertRows: " + calls(out, "org.h2.command.dml.Insert.insertRows"));
		} finally {
			server.destroy();
			if (!server.waitFor(20, TimeUnit.SECONDS))
				server.destroyForcibly();
		}
		return true;
	}

	/** duration= and maxsize= for a JVM started with the agent. */
	/**
	 * A daemon thread stays a daemon in every recording of one JVM: the
	 * second start used to rebuild the thread's flags without it, and the
	 * reports called the thread "platform".
	 */
	private void testDaemonRerecord() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "daemon");
		try (Server s = new Server(r, dir.resolve("server.log"), "-Djcaltest.daemon=true")) {
			s.work(50);
			for (String name : List.of("first.bin", "second.bin")) {
				Path out = dir.resolve(name);
				Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString());
				r.check(st.rc == 0, name + ": jcal start: " + st.out + st.err);
				s.work(20);
				Runner.Result stop = launcher("stop", Long.toString(s.pid));
				r.check(stop.rc == 0, name + ": jcal stop: " + stop.out + stop.err);
				r.check(calls(out, HANDLE) == 20, name + ": handle() calls " + calls(out, HANDLE) + ", sent 20");
				Runner.Result sum = r.post(out, "--report", "summary", "--raw");
				r.check(Pattern.compile("(?m)live-worker\\s+daemon\\b").matcher(sum.out).find(),
						name + ": live-worker listed as a daemon thread: " + sum.out);
			}
		}
	}

	private static final String TOMCAT = "/usr/share/tomcat10";

	/** GET url n times (keep-alive); the number of 200 answers. */
	private static int get(String url, int n) throws Exception {
		int ok = 0;
		for (int i = 0; i < n; i++) {
			HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
			if (c.getResponseCode() == 200)
				ok++;
			try (InputStream in = c.getInputStream()) {
				in.readAllBytes();
			}
		}
		return ok;
	}

	/**
	 * A real server from Debian (tomcat10, tomcat10-examples) as users run
	 * it: started without the agent as user tomcat (a private CATALINA_BASE
	 * on a free port), `jcal start PID` with the attach's defaults
	 * (throttling on), N requests to the examples' HelloWorld servlet,
	 * `jcal stop`: the servlet's calls exactly N, and Tomcat's own request
	 * path too (CoyoteAdapter.service once a request), throttled methods
	 * among them or not.
	 */
	private boolean testTomcat() throws Exception {
		if (!Files.isDirectory(Path.of(TOMCAT)) || !Files.isDirectory(Path.of("/usr/share/tomcat10-examples"))
				|| !"root".equals(System.getProperty("user.name"))) {
			System.out.println("      SKIP: needs root and tomcat10, tomcat10-examples (scripts/install-deps.sh --tests)");
			return false;
		}
		/* outside the suite's own directory (0700): Tomcat runs as another user */
		Path dir = Files.createTempDirectory("jcaltomcat");
		Path base = dir.resolve("base");
		int port;
		try (java.net.ServerSocket ss = new java.net.ServerSocket(0)) {
			port = ss.getLocalPort();
		}
		for (String d : List.of("conf", "logs", "work", "temp", "webapps", "lib"))
			Files.createDirectories(base.resolve(d));
		r.run(dir.toFile(), List.of("cp", "-r", "/etc/tomcat10/.", base.resolve("conf").toString()));
		Path xml = base.resolve("conf/server.xml");
		Files.writeString(xml, Files.readString(xml).replace("port=\"8080\"", "port=\"" + port + "\"")
				.replace("port=\"8005\"", "port=\"-1\""));
		r.run(dir.toFile(), List.of("chmod", "755", dir.toString()));
		r.run(dir.toFile(), List.of("chown", "-R", "tomcat:tomcat", base.toString()));
		String url = "http://127.0.0.1:" + port + "/examples/servlets/servlet/HelloWorldExample";
		Path out = base.resolve("tomcat.bin");
		Process tomcat = new ProcessBuilder("runuser", "-u", "tomcat", "--", "env",
				"JAVA_HOME=" + Path.of(r.java).getParent().getParent(), "CATALINA_HOME=" + TOMCAT,
				"CATALINA_BASE=" + base, "CATALINA_TMPDIR=" + base.resolve("temp"), TOMCAT + "/bin/catalina.sh", "run")
				.redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
		try {
			long deadline = System.nanoTime() + 90_000_000_000L;
			boolean up = false;
			while (!up && System.nanoTime() < deadline) {
				try {
					up = get(url, 1) == 1;
				} catch (java.io.IOException e) {
					Thread.sleep(200);
				}
			}
			r.check(up, "Tomcat answers on " + port + ": " + Files.readString(dir.resolve("server.log")));
			if (!up)
				return true;
			Runner.Result ps = r.run(dir.toFile(), List.of("pgrep", "-u", "tomcat", "-f", "catalina.base=" + base));
			String pid = ps.out.trim().split("\\s+")[0];
			get(url, 2000); /* warm-up */
			Runner.Result st = launcher("start", pid, "-o", out.toString());
			r.check(st.rc == 0 && (st.out + st.err).contains("throttle=1000:5000 by default"),
					"jcal start on Tomcat: " + st.out + st.err);
			int n = 3000;
			r.check(get(url, n) == n, "Tomcat answered every request");
			r.check(launcher("stop", pid).rc == 0, "jcal stop on Tomcat");
			r.check(calls(out, "HelloWorldExample.doGet") == n,
					"HelloWorldExample.doGet: " + calls(out, "HelloWorldExample.doGet") + ", sent " + n);
			r.check(calls(out, "org.apache.catalina.connector.CoyoteAdapter.service") == n,
					"CoyoteAdapter.service: " + calls(out, "org.apache.catalina.connector.CoyoteAdapter.service"));
			Map<String, String> sum = r.summaryCsv(out);
			long thr = Long.parseLong(sum.getOrDefault("throttled", "0"));
			r.check(thr > 0, "some of Tomcat's methods were throttled: " + thr);
			System.out.println("      " + thr + " methods throttled");
			r.check(get(url, 100) == 100, "Tomcat still answers after stop");
		} finally {
			r.run(r.tmp.toFile(), List.of("pkill", "-u", "tomcat", "-f", "catalina.base=" + base));
			if (!tomcat.waitFor(30, TimeUnit.SECONDS))
				tomcat.destroyForcibly();
			r.run(r.tmp.toFile(), List.of("rm", "-rf", dir.toString()));
		}
		return true;
	}

	/** Index N of the summary's throttled.N.* rows of method, or -1. */
	private static int throttledIndex(Map<String, String> sum, String method) {
		for (int i = 0; sum.containsKey("throttled." + i + ".method"); i++)
			if (sum.get("throttled." + i + ".method").equals(method))
				return i;
		return -1;
	}

	/**
	 * An attach throttles by default (throttle=1000:5000): leaf(), called
	 * 50 times a request for well under 5 us, keeps only the probe that
	 * counts, so every report over all threads still gives its exact calls
	 * (those recorded before the throttling plus those counted after), the
	 * summary says when and how many of each, and a second recording of
	 * the same JVM, where leaf() is only counted, gives them exactly too.
	 * A later start with throttle=off is refused: the rule is the load's.
	 * (tiny=probe: leaf() is tiny, which by default only counts from the
	 * start: live-tiny-default.)
	 */
	private void testThrottleDefault() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "throttle");
		String leaf = W + "LiveServer.leaf";
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(200);
			Path out = dir.resolve("first.bin");
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString(), "tiny=probe");
			r.check(st.rc == 0 && (st.out + st.err).contains("throttle=1000:5000 by default"),
					"jcal start says it throttles by default: " + st.out + st.err);
			int k = 2000;
			s.work(k);
			Runner.Result status = launcher("status", Long.toString(s.pid));
			r.check(status.out.contains("\nthrottle: 1000:5000, ") && status.out.contains(" methods throttled ("),
					"status says how many methods are throttled: " + status.out);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "jcal stop");
			r.check(calls(out, HANDLE) == k && calls(out, W + "LiveServer.compute") == k,
					"handle() and compute() exact: " + calls(out, HANDLE) + " " + calls(out, W + "LiveServer.compute"));
			r.check(calls(out, leaf) == 50L * k, "leaf() exact in the flat report: " + calls(out, leaf) + ", made " + 50L * k);
			Map<String, String> sum = r.summaryCsv(out);
			int i = throttledIndex(sum, leaf);
			r.check(i >= 0, "leaf() is throttled: " + sum);
			if (i >= 0) {
				long rec = Long.parseLong(sum.get("throttled." + i + ".recorded_calls"));
				long counted = Long.parseLong(sum.getOrDefault("throttled." + i + ".counted_calls", "-1"));
				r.check(rec > 1000 && counted > 0 && rec + counted == 50L * k,
						"leaf(): recorded " + rec + " + counted " + counted + " = " + 50L * k);
				/* the tree keeps the recorded calls only, and says which method lost its probes */
				Runner.Result tree = r.post(out, "--report", "tree", "--thread", "*");
				r.check(tree.out.contains("LiveServer.leaf [throttled]"), "the tree marks leaf(): " + tree.out);
				Long inThreads = r.flatCalls(out, "").get(leaf);
				r.check(inThreads != null && inThreads == 50L * k, "flatCalls: " + inThreads);
			}
			Runner.Result text = r.post(out, "--report", "summary");
			r.check(text.out.contains("(throttle=1000:5000): probes removed") && text.out.contains(" counted after ("),
					"the summary's throttled: section: " + text.out);
			/* the rule is the load's */
			Runner.Result off = launcher("start", Long.toString(s.pid), "-o", dir.resolve("off.bin").toString(),
					"throttle=off");
			r.check(off.rc != 0 && off.err.contains("throttle=off") && off.err.contains("throttles with throttle=1000:5000"),
					"a later throttle=off is refused: " + off.rc + " " + off.err);
			/* a second recording: leaf() only counted */
			Path out2 = dir.resolve("second.bin");
			r.check(launcher("start", Long.toString(s.pid), "-o", out2.toString()).rc == 0, "second start");
			int k2 = 500;
			s.work(k2);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "second stop");
			r.check(calls(out2, HANDLE) == k2, "second: handle() exact: " + calls(out2, HANDLE));
			r.check(calls(out2, leaf) == 50L * k2, "second: leaf() exact, only counted: " + calls(out2, leaf));
			Map<String, String> sum2 = r.summaryCsv(out2);
			int j = throttledIndex(sum2, leaf);
			r.check(j >= 0 && "0".equals(sum2.get("throttled." + j + ".recorded_calls"))
					&& ("" + 50L * k2).equals(sum2.get("throttled." + j + ".counted_calls")),
					"second: leaf() recorded 0, counted " + 50L * k2 + ": " + sum2);
			Runner.Result text2 = r.post(out2, "--report", "summary");
			r.check(text2.out.contains("    before the start  after "),
					"second: a method throttled in the first recording lost its probes before the start: " + text2.out);
			/* diff compares the exact calls too */
			Runner.Result d = r.run(r.tmp.toFile(),
					List.of(r.post, "diff", "--raw", out.toString(), out2.toString(), "--format", "csv"));
			List<List<String>> rows = Runner.csv(d.out);
			int mi = rows.isEmpty() ? -1 : rows.get(0).indexOf("method");
			int bi = rows.isEmpty() ? -1 : rows.get(0).indexOf("calls_base");
			int ni = rows.isEmpty() ? -1 : rows.get(0).indexOf("calls_new");
			boolean seen = false;
			for (List<String> row : rows)
				if (mi >= 0 && bi >= 0 && ni >= 0 && row.size() > Math.max(bi, ni) && row.get(mi).equals(leaf))
					seen = row.get(bi).equals("" + 50L * k) && row.get(ni).equals("" + 50L * k2);
			r.check(seen, "diff: leaf() " + 50L * k + " -> " + 50L * k2 + ": " + d.out + d.err);
		}
	}

	/**
	 * An attach gives tiny methods only the probe that counts their calls
	 * from the start (tiny=count by default): leaf(), which neither calls
	 * nor loops, is never recorded, and yet the flat report gives exactly
	 * the 50 calls a request makes of it, marked [throttled]; the summary
	 * lists it as tiny "from the start" with those calls counted; status
	 * says how many tiny methods only count; compute(), which loops, and
	 * handle() keep their probes and exact calls. A second recording of
	 * the same JVM counts leaf() exactly again, and a later tiny=probe is
	 * refused: the load's setting stays.
	 */
	private void testTinyDefault() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "tiny");
		String leaf = W + "LiveServer.leaf", compute = W + "LiveServer.compute";
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(200);
			Path out = dir.resolve("first.bin");
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString());
			r.check(st.rc == 0 && (st.out + st.err).contains("tiny=count by default"),
					"jcal start says tiny methods only count by default: " + st.out + st.err);
			int k = 1000;
			s.work(k);
			Runner.Result status = launcher("status", Long.toString(s.pid));
			long ntiny = -1;
			Matcher mt = Pattern.compile("(?m)^tiny: count, (\\d+) tiny methods keep only a probe that counts")
					.matcher(status.out);
			if (mt.find())
				ntiny = Long.parseLong(mt.group(1));
			r.check(ntiny >= 1, "status counts the tiny methods: " + status.out);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "jcal stop");
			r.check(calls(out, HANDLE) == k && calls(out, compute) == k,
					"handle() and compute() exact: " + calls(out, HANDLE) + " " + calls(out, compute));
			r.check(calls(out, leaf) == 50L * k, "leaf() exact in the flat report: " + calls(out, leaf) + ", made " + 50L * k);
			Map<String, String> sum = r.summaryCsv(out);
			int i = throttledIndex(sum, leaf);
			r.check(i >= 0 && "tiny".equals(sum.get("throttled." + i + ".reason"))
					&& "0".equals(sum.get("throttled." + i + ".recorded_calls"))
					&& ("" + 50L * k).equals(sum.get("throttled." + i + ".counted_calls")),
					"leaf() is tiny, recorded 0, counted " + 50L * k + ": " + sum);
			r.check(throttledIndex(sum, compute) < 0 && throttledIndex(sum, HANDLE) < 0,
					"compute() and handle() keep their probes: " + sum);
			Runner.Result text = r.post(out, "--report", "summary");
			r.check(text.out.contains("  tiny:  ") && text.out.contains("from the start, their time their callers'")
					&& text.out.contains("    from the start  " + 50L * k + " counted  "),
					"the summary's tiny: section: " + text.out);
			Runner.Result flat = r.post(out, "--report", "flat");
			boolean marked = false;
			for (String line : flat.out.split("\n"))
				marked |= line.contains("LiveServer.leaf") && line.contains("[throttled]");
			r.check(marked, "the flat report marks leaf(): " + flat.out);
			/* the setting is the load's */
			Runner.Result probe = launcher("start", Long.toString(s.pid), "-o", dir.resolve("probe.bin").toString(),
					"tiny=probe");
			r.check(probe.rc != 0 && probe.err.contains("tiny=probe") && probe.err.contains("loaded with tiny=count"),
					"a later tiny=probe is refused: " + probe.rc + " " + probe.err);
			/* a second recording: leaf() counted exactly again */
			Path out2 = dir.resolve("second.bin");
			r.check(launcher("start", Long.toString(s.pid), "-o", out2.toString()).rc == 0, "second start");
			int k2 = 300;
			s.work(k2);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "second stop");
			r.check(calls(out2, HANDLE) == k2 && calls(out2, leaf) == 50L * k2,
					"second: handle() and leaf() exact: " + calls(out2, HANDLE) + " " + calls(out2, leaf));
			/* a third, output=tree: the snapshot carries the counts too */
			Path out3 = dir.resolve("third.tree");
			r.check(launcher("start", Long.toString(s.pid), "-o", out3.toString(), "output=tree").rc == 0,
					"third start (output=tree)");
			int k3 = 200;
			s.work(k3);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "third stop");
			r.check(calls(out3, HANDLE) == k3 && calls(out3, leaf) == 50L * k3,
					"third (tree): handle() and leaf() exact: " + calls(out3, HANDLE) + " " + calls(out3, leaf));
		}
		/* a first start=manual recording reports no counted calls: leaf()
		 * keeps its probes unless tiny= says otherwise */
		try (Server s = new Server(r, dir.resolve("manual.log"))) {
			s.work(20);
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", dir.resolve("manual.bin").toString(),
					"start=manual");
			Runner.Result status = launcher("status", Long.toString(s.pid));
			r.check(st.rc == 0 && !(st.out + st.err).contains("tiny=count") && status.out.contains("\ntiny: probe\n"),
					"start=manual attaches with tiny=probe: " + st.out + st.err + status.out);
			launcher("stop", Long.toString(s.pid));
		}
	}

	/**
	 * inlined=count gives a method the JIT had inlined, without a loop, only
	 * the probe that counts its calls from the attach: mid(),
	 * which calls the tiny leaf() and is inlined into midLoop()'s compiled
	 * loop before the attach (-Xbatch: compiled before the warm-up request
	 * returns), is never recorded, yet the flat report gives exactly its
	 * 100,000 calls a request; the summary lists it under inlined: with
	 * reason=inlined and those calls counted; status counts it; midLoop(),
	 * which loops, keeps its probes and exact calls. A later inlined=probe
	 * is refused. In a JVM attached without it (and throttle=off), mid()
	 * keeps its probes: its calls recorded, exactly.
	 */
	private void testInlined() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "inlined");
		String mid = W + "LiveServer.mid", loop = W + "LiveServer.midLoop";
		long per = 100_000;
		try (Server s = new Server(r, dir.resolve("server.log"), "-Xbatch")) {
			for (int i = 0; i < 30; i++)
				s.get("/mid");
			Path out = dir.resolve("inlined.bin");
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString(), "inlined=count");
			r.check(st.rc == 0, "jcal start inlined=count: " + st.out + st.err);
			int k = 3;
			for (int i = 0; i < k; i++)
				s.get("/mid");
			Runner.Result status = launcher("status", Long.toString(s.pid));
			Matcher mi = Pattern.compile("(?m)^inlined: count, (\\d+) methods the JIT had inlined keep only a probe")
					.matcher(status.out);
			r.check(mi.find() && Long.parseLong(mi.group(1)) >= 1, "status counts the inlined methods: " + status.out);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "jcal stop");
			r.check(calls(out, loop) == k, "midLoop() exact: " + calls(out, loop));
			r.check(calls(out, mid) == per * k, "mid() exact in the flat report: " + calls(out, mid) + ", made " + per * k);
			Map<String, String> sum = r.summaryCsv(out);
			int i = throttledIndex(sum, mid);
			r.check(i >= 0 && "inlined".equals(sum.get("throttled." + i + ".reason"))
					&& "0".equals(sum.get("throttled." + i + ".recorded_calls"))
					&& ("" + per * k).equals(sum.get("throttled." + i + ".counted_calls")),
					"mid() was inlined, recorded 0, counted " + per * k + ": " + sum);
			r.check(throttledIndex(sum, loop) < 0, "midLoop() keeps its probes: " + sum);
			Runner.Result text = r.post(out, "--report", "summary");
			r.check(text.out.contains("  inlined:  ") && text.out.contains("the JIT had inlined them")
					&& text.out.contains("    from the start  " + per * k + " counted  "),
					"the summary's inlined: section: " + text.out);
			Runner.Result probe = launcher("start", Long.toString(s.pid), "-o", dir.resolve("probe.bin").toString(),
					"inlined=probe");
			r.check(probe.rc != 0 && probe.err.contains("inlined=probe") && probe.err.contains("loaded with inlined=count"),
					"a later inlined=probe is refused: " + probe.rc + " " + probe.err);
		}
		try (Server s = new Server(r, dir.resolve("probe.log"), "-Xbatch")) {
			for (int i = 0; i < 30; i++)
				s.get("/mid");
			Path out = dir.resolve("probe.bin");
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString(), "throttle=off");
			Runner.Result status = launcher("status", Long.toString(s.pid));
			r.check(st.rc == 0 && status.out.contains("\ninlined: probe\n"),
					"inlined=probe by default: " + st.out + st.err + status.out);
			s.get("/mid");
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "jcal stop (inlined=probe)");
			Map<String, String> sum = r.summaryCsv(out);
			r.check(throttledIndex(sum, mid) < 0 && calls(out, mid) == per, "mid() keeps its probes, " + per
					+ " calls recorded: " + calls(out, mid) + " " + sum);
		}
	}

	/** status of an output=tree recording counts the events its trees took. */
	private void testTreeStatus() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "treestatus");
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(50);
			/* tiny=probe: leaf() keeps its probes (tiny, it would only be counted) */
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", dir.resolve("t.tree").toString(),
					"output=tree", "tiny=probe");
			r.check(st.rc == 0, "jcal start output=tree: " + st.out + st.err);
			s.work(20);
			Runner.Result status = launcher("status", Long.toString(s.pid));
			long events = field(status.out, "events");
			/* handle, compute and 50 leaf calls a request: 104 events each, and the JDK's around them */
			r.check(status.out.contains(" in the trees") && events >= 20 * 104,
					"status counts the trees' events (at least " + 20 * 104 + "): " + status.out);
			launcher("stop", Long.toString(s.pid));
		}
	}

	/**
	 * jcal start output=tree,slow=20ms on a running server: 40 quick requests and 3 slow ones (a nap of
	 * 30 ms after the same work); status counts the calls kept; the snapshot at stop lists the slow
	 * handler's 3 calls exactly, each at least 30 ms of wall time with nap its largest callee, and no
	 * quick handler among the kept calls.
	 */
	private void testTreeSlow() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "treeslow");
		String slow = W + "LiveServer$Slow.handle", nap = W + "LiveServer$Slow.nap";
		try (Server s = new Server(r, dir.resolve("server.log"))) {
			s.work(50);
			Path out = dir.resolve("s.tree");
			Runner.Result st = launcher("start", Long.toString(s.pid), "-o", out.toString(), "output=tree",
					"metric=cputime+tsc", "slow=20ms");
			r.check(st.rc == 0, "jcal start output=tree,slow=20ms: " + st.out + st.err);
			s.work(20);
			for (int i = 0; i < 3; i++)
				r.check("ok".equals(s.get("/slow")), "a slow request");
			s.work(20);
			Runner.Result status = launcher("status", Long.toString(s.pid));
			r.check(status.rc == 0 && status.out.matches("(?s).*\nslow: \\d+ calls of at least 20000000 ns, the \\d+ longest kept \\(at most 100\\)\n.*"),
					"status: the slow calls: " + status.out + status.err);
			r.check(launcher("stop", Long.toString(s.pid)).rc == 0, "stop");
			Runner.Result res = r.post(out, "--report", "slow", "--top", "100", "--format", "csv");
			r.check(res.rc == 0, "slow of the snapshot: " + res.err);
			List<Map<String, String>> rows = Runner.csvRecords(res.out);
			long handlers = rows.stream().filter(row -> row.get("method").equals(slow)).count();
			long quick = rows.stream().filter(row -> row.get("method").equals(HANDLE)).count();
			r.check(handlers == 3 && quick == 0, "the slow handler's 3 calls, no quick one: " + handlers + ", " + quick
					+ ": " + res.out);
			for (Map<String, String> row : rows)
				if (row.get("method").equals(slow))
					r.check(Long.parseLong(row.get("duration")) >= 30_000_000L && row.get("callees").startsWith(nap + "=")
							&& row.get("path").endsWith(slow),
							"a slow request: 30 ms at least, nap its largest callee: " + row);
		}
	}

	private void testLimitsAtStart() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "limits");
		Path t = dir.resolve("d.bin");
		Runner.Result res = r.run(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,duration=1s,out=" + t,
				"-cp", r.classes, W + "TimedSpin", "4"));
		r.check(res.rc == 0, "duration=1s: JVM exit 0: " + res.err);
		r.check(res.err.contains("stopped: duration=1s reached"), "duration=1s: summary line says why: " + res.err);
		Runner.Result sum = r.post(t, "--report", "summary");
		r.check(sum.rc == 0 && sum.out.contains("complete") && sum.out.contains("duration=1s reached"),
				"duration=1s: complete trace: " + sum.out + sum.err);
		Path m = dir.resolve("m.bin");
		res = r.run(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,maxsize=1M,out=" + m, "-cp",
				r.classes, W + "TimedSpin", "4"));
		r.check(res.rc == 0, "maxsize=1M: JVM exit 0: " + res.err);
		r.check(Files.size(m) <= (1 << 20), "maxsize=1M: the file has " + Files.size(m) + " bytes");
		sum = r.post(m, "--report", "summary");
		r.check(sum.rc == 0 && sum.out.contains("complete") && sum.out.contains("maxsize=1048576 bytes reached")
				&& sum.out.contains("lost events:           0"), "maxsize=1M: complete trace: " + sum.out + sum.err);
	}

	/** jcal.Control is a no-op without the agent: an application may ship its calls. */
	private void testControlWithoutAgent() throws Exception {
		String jar = new File(new File(r.agent).getParentFile(), "jcal-agent.jar").getPath();
		Runner.Result res = r.run(r.tmp.toFile(),
				List.of(r.java, "-cp", r.classes + File.pathSeparator + jar, W + "Regions"));
		r.check(res.rc == 0 && !res.err.contains("UnsatisfiedLinkError"),
				"jcal.Control without the agent: exit " + res.rc + ": " + res.err);
	}

	static Runner.Tests tests(Runner r) {
		Live l = new Live(r);
		return new Runner.Tests()
				.add("live-start-stop", l::testStartStop)
				.add("live-tree-slow", l::testTreeSlow)
				.add("live-jcmd", l::testJcmd)
				.add("live-same-out", l::testSameOut)
				.addSkippable("live-h2", l::testH2)
				.add("live-dump-restart", l::testDumpAndRestart)
				.add("live-limits-at-start", l::testLimitsAtStart)
				.add("live-daemon-rerecord", l::testDaemonRerecord)
				.add("live-tree-status", l::testTreeStatus)
				.add("live-throttle-default", l::testThrottleDefault)
				.add("live-tiny-default", l::testTinyDefault)
				.add("live-inlined", l::testInlined)
				.addSkippable("live-tomcat", l::testTomcat)
				.add("live-control-without-agent", l::testControlWithoutAgent);
	}
}
