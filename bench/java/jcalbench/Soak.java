package jcalbench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.function.IntUnaryOperator;

/**
 * The soak workload of bench/soak.sh: for the given seconds it keeps
 * loading and unloading classes, starting and ending threads and calling
 * methods, at a bounded rate (so that a trace stays a few GB over ten
 * minutes). Each round defines SoakPayload in LOADERS new class loaders
 * (half as a copy under its own name, half under one of NAMES generated
 * names, patched into its bytes), calls it from the main thread and from
 * THREADS new threads that then end, and drops the loaders; System.gc()
 * every GC_EVERY rounds lets the JVM unload them. Two long-lived workers
 * call the last payload all along. Ends with one line of totals, including
 * the classes the JVM unloaded.
 */
public final class Soak {
	static final int LOADERS = 4;
	static final int THREADS = 4;
	static final int NAMES = 200;
	static final int GC_EVERY = 20;
	static final int CALLS = 200; /* payload loop length per call */

	/** Defines one class from bytes, delegating everything else. */
	static final class OneClassLoader extends ClassLoader {
		private final String name;
		private final byte[] bytes;

		OneClassLoader(String name, byte[] bytes) {
			super(Soak.class.getClassLoader());
			this.name = name;
			this.bytes = bytes;
		}

		@Override
		protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
			if (!n.equals(name))
				return super.loadClass(n, resolve);
			synchronized (getClassLoadingLock(n)) {
				Class<?> c = findLoadedClass(n);
				return c != null ? c : defineClass(n, bytes, 0, bytes.length);
			}
		}
	}

	private static final String PAYLOAD = "jcalbench/SoakPayload";

	static byte[] payloadBytes() throws IOException {
		try (InputStream in = Soak.class.getResourceAsStream("SoakPayload.class")) {
			return in.readAllBytes();
		}
	}

	/** bytes with every occurrence of the internal name replaced by one as long (same constant-pool lengths). */
	static byte[] renamed(byte[] bytes, String internalName) {
		byte[] from = PAYLOAD.getBytes(StandardCharsets.UTF_8), to = internalName.getBytes(StandardCharsets.UTF_8);
		if (from.length != to.length)
			throw new IllegalArgumentException(internalName);
		byte[] out = bytes.clone();
		for (int i = 0; i + from.length <= out.length; i++) {
			int k = 0;
			while (k < from.length && out[i + k] == from[k])
				k++;
			if (k == from.length)
				System.arraycopy(to, 0, out, i, to.length);
		}
		return out;
	}

	/** Generated name k: jcalbench/SoakP + 6 digits, as long as SoakPayload. */
	static String generatedName(int k) {
		return String.format("jcalbench/SoakP%06d", k);
	}

	static IntUnaryOperator load(byte[] original, byte[][] generated, int round, int i) throws Exception {
		String name;
		byte[] bytes;
		if (i % 2 == 0) {
			name = PAYLOAD;
			bytes = original;
		} else {
			int k = (round * LOADERS + i) / 2 % NAMES;
			name = generatedName(k);
			bytes = generated[k];
		}
		Class<?> c = new OneClassLoader(name.replace('/', '.'), bytes).loadClass(name.replace('/', '.'));
		return (IntUnaryOperator) c.getConstructor().newInstance();
	}

	static volatile IntUnaryOperator shared;
	static volatile boolean done;

	public static void main(String[] args) throws Exception {
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 600;
		long end = System.nanoTime() + seconds * 1_000_000_000L;
		byte[] original = payloadBytes();
		byte[][] generated = new byte[NAMES][];
		for (int k = 0; k < NAMES; k++)
			generated[k] = renamed(original, generatedName(k));
		shared = load(original, generated, 0, 0);
		long[] workerCalls = new long[2];
		Thread[] workers = new Thread[2];
		for (int w = 0; w < workers.length; w++) {
			int me = w;
			workers[w] = new Thread(() -> {
				int sink = 0;
				while (!done) {
					for (int j = 0; j < 4; j++)
						sink ^= shared.applyAsInt(CALLS);
					workerCalls[me] += 4;
					try {
						Thread.sleep(5);
					} catch (InterruptedException e) {
						return;
					}
				}
				if (sink == 42)
					System.out.print("");
			}, "soak-worker-" + w);
			workers[w].start();
		}
		long rounds = 0, threads = 0, loads = 0;
		int sink = 0;
		while (System.nanoTime() < end) {
			IntUnaryOperator[] ops = new IntUnaryOperator[LOADERS];
			for (int i = 0; i < LOADERS; i++) {
				ops[i] = load(original, generated, (int) rounds, i);
				sink ^= ops[i].applyAsInt(CALLS);
				loads++;
			}
			Thread[] ts = new Thread[THREADS];
			for (int t = 0; t < THREADS; t++) {
				IntUnaryOperator op = ops[t % LOADERS];
				ts[t] = new Thread(() -> op.applyAsInt(CALLS), "soak-short-" + (threads + t));
				ts[t].start();
			}
			for (Thread t : ts)
				t.join();
			threads += THREADS;
			shared = ops[LOADERS - 1];
			rounds++;
			if (rounds % GC_EVERY == 0)
				System.gc();
			Thread.sleep(5);
		}
		done = true;
		for (Thread w : workers)
			w.join();
		ClassLoadingMXBean cl = ManagementFactory.getClassLoadingMXBean();
		System.out.println("soak: " + seconds + " s, " + rounds + " rounds, " + loads + " classes defined, "
				+ cl.getUnloadedClassCount() + " unloaded, " + threads + " short threads, "
				+ (workerCalls[0] + workerCalls[1]) + " worker calls (sink " + sink + ")");
	}
}
