package jcaltest.work;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A steady workload for continuous recordings: prints "ready", waits for
 * the file args[0] (go), then THREADS threads call batch() in a loop, each
 * batch() calling leaf() BATCH times (so that batches stay open across the
 * recording's rotations), until the file args[1] (stop) exists; then
 * prints "leaf N" and "batch M", the calls made, and exits.
 */
public class LoopCalls {
	static final int THREADS = 2;
	static final int BATCH = 5000;
	static volatile boolean stop;
	static long sink;

	static void leaf(int i) {
		sink += i;
	}

	static long batch() {
		for (int i = 0; i < BATCH; i++)
			leaf(i);
		return BATCH;
	}

	public static void main(String[] args) throws Exception {
		System.out.println("ready");
		System.out.flush();
		Path go = Path.of(args[0]), end = Path.of(args[1]);
		long until = System.nanoTime() + 120_000_000_000L;
		while (!Files.exists(go) && System.nanoTime() < until)
			Thread.sleep(10);
		long[] leaves = new long[THREADS], batches = new long[THREADS];
		Thread[] t = new Thread[THREADS];
		for (int k = 0; k < THREADS; k++) {
			final int me = k;
			t[k] = new Thread(() -> {
				while (!stop) {
					leaves[me] += batch();
					batches[me]++;
				}
			}, "loop-" + k);
			t[k].start();
		}
		while (!Files.exists(end) && System.nanoTime() < until)
			Thread.sleep(10);
		stop = true;
		long l = 0, b = 0;
		for (int k = 0; k < THREADS; k++) {
			t[k].join();
			l += leaves[k];
			b += batches[k];
		}
		System.out.println("leaf " + l);
		System.out.println("batch " + b);
	}
}
