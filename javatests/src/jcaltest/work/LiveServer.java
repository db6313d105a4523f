package jcaltest.work;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

/**
 * A small HTTP server on loopback for the live-profiling tests, started
 * without the agent: /work counts the request and does a little work,
 * /count answers how many /work requests it served (on a daemon thread
 * "live-worker" with -Djcaltest.daemon=true, on a pool of N threads with
 * -Djcaltest.threads=N), /region does the same work
 * inside a jcal.Control region (found by reflection: the agent puts the
 * class on the boot class path when it loads), /slow does the work of
 * /work and then naps 30 ms (a slow request), /mid calls mid() 100,000
 * times in a loop (which the JIT compiles with mid() inlined: the
 * inlined=count test). Prints "port N", then
 * serves until stdin closes (at most 180 s).
 */
public class LiveServer {
	static final AtomicLong served = new AtomicLong();
	static long sink;

	static long compute(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += leaf(i);
		return s;
	}

	static long leaf(int i) {
		return (i * 31L) ^ (i >>> 3);
	}

	/** Loop-free, but not tiny (it calls): what the JIT inlines into midLoop(). */
	static long mid(int i) {
		return leaf(i) + (i & 7);
	}

	static long midLoop(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += mid(i);
		return s;
	}

	static final int MID_CALLS = 100_000;

	static final class Mid implements HttpHandler {
		@Override
		public void handle(HttpExchange ex) throws IOException {
			sink += midLoop(MID_CALLS);
			answer(ex, "ok\n");
		}
	}

	static void answer(HttpExchange ex, String body) throws IOException {
		byte[] b = body.getBytes(StandardCharsets.UTF_8);
		ex.sendResponseHeaders(200, b.length);
		try (OutputStream o = ex.getResponseBody()) {
			o.write(b);
		}
	}

	static final class Work implements HttpHandler {
		@Override
		public void handle(HttpExchange ex) throws IOException {
			served.incrementAndGet();
			sink += compute(50);
			answer(ex, "ok\n");
		}
	}

	/** /work's work, then a nap of NAP_MS: a slow request. */
	static final class Slow implements HttpHandler {
		static final int NAP_MS = 30;

		static void nap() throws IOException {
			try {
				Thread.sleep(NAP_MS);
			} catch (InterruptedException e) {
				throw new IOException(e);
			}
		}

		@Override
		public void handle(HttpExchange ex) throws IOException {
			served.incrementAndGet();
			sink += compute(50);
			nap();
			answer(ex, "ok\n");
		}
	}

	/** compute() between jcal.Control.start() and stop(). */
	static final class Region implements HttpHandler {
		private Method start, stop;

		@Override
		public void handle(HttpExchange ex) throws IOException {
			try {
				if (start == null) {
					Class<?> c = Class.forName("jcal.Control");
					start = c.getMethod("start");
					stop = c.getMethod("stop");
				}
				start.invoke(null);
				sink += compute(50);
				stop.invoke(null);
			} catch (ReflectiveOperationException e) {
				throw new IOException("no jcal.Control: " + e, e);
			}
			answer(ex, "ok\n");
		}
	}

	static final class Count implements HttpHandler {
		@Override
		public void handle(HttpExchange ex) throws IOException {
			answer(ex, served.get() + "\n");
		}
	}

	public static void main(String[] args) throws Exception {
		HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
		s.createContext("/work", new Work());
		s.createContext("/count", new Count());
		s.createContext("/region", new Region());
		s.createContext("/slow", new Slow());
		s.createContext("/mid", new Mid());
		/* -Djcaltest.daemon=true: requests run on one daemon thread,
		 * "live-worker" (the dispatcher thread is not a daemon) */
		if (Boolean.getBoolean("jcaltest.daemon"))
			s.setExecutor(Executors.newSingleThreadExecutor(r -> {
				Thread w = new Thread(r, "live-worker");
				w.setDaemon(true);
				return w;
			}));
		/* -Djcaltest.threads=N: requests run on a pool of N threads "live-pool" */
		int pool = Integer.getInteger("jcaltest.threads", 0);
		if (pool > 0)
			s.setExecutor(Executors.newFixedThreadPool(pool, r -> new Thread(r, "live-pool")));
		s.start();
		System.out.println("port " + s.getAddress().getPort());
		System.out.flush();
		Thread t = new Thread(() -> {
			try {
				while (System.in.read() >= 0) {
				}
			} catch (IOException e) {
			}
		});
		t.setDaemon(true);
		t.start();
		t.join(180_000);
		s.stop(0);
	}
}
