package jcaltest.work;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One method per kind of kernel-visible work, for the software counters of
 * libpfm4 (jcaltest.SoftwareCounters): sleeper() sleeps SLEEPS times (each
 * sleep is a context switch), toucher() allocates ALLOCS direct buffers of
 * 1 MiB that the JDK zeroes (fresh memory: page faults) and keeps them,
 * spinner() loops on the CPU for SPIN_MS of wall time without allocating.
 * Each is called once from main.
 */
public class SwCounters {
	public static final int SLEEPS = 20;
	public static final int ALLOCS = 16;
	public static final int SPIN_MS = 300;
	static final List<ByteBuffer> keep = new ArrayList<>();
	static long sink;

	static void sleeper() throws InterruptedException {
		for (int i = 0; i < SLEEPS; i++)
			Thread.sleep(1);
	}

	static void toucher() {
		for (int i = 0; i < ALLOCS; i++)
			keep.add(ByteBuffer.allocateDirect(1 << 20));
	}

	static long spinner() {
		long end = System.nanoTime() + SPIN_MS * 1_000_000L, x = 1;
		do {
			for (int i = 0; i < 4096; i++)
				x = x * 6364136223846793005L + 1442695040888963407L;
		} while (System.nanoTime() < end);
		return x;
	}

	public static void main(String[] args) throws InterruptedException {
		sleeper();
		toucher();
		sink = spinner();
		System.out.println("buffers " + keep.size() + ", " + sink);
	}
}
