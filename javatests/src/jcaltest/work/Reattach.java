package jcaltest.work;

/**
 * A native thread (javatests/native/reattach.c) attaches as "reuse-1" and
 * calls work(10, 2000 us of spinning per leaf), detaches, and attaches again
 * as "reuse-2" on the same kernel thread to call work(20, 0).
 *
 * Usage: Reattach LIBJCALTEST
 */
public final class Reattach {
	static volatile long sink;

	static void leaf(int spinMicros) {
		long end = System.nanoTime() + spinMicros * 1000L;
		while (System.nanoTime() < end)
			sink++;
	}

	static void work(int n, int spinMicros) {
		for (int i = 0; i < n; i++)
			leaf(spinMicros);
	}

	static native long runReattach(int first, int second);

	public static void main(String[] args) {
		System.load(args[0]);
		long tid = runReattach(10, 20);
		System.out.println("reattach tid " + tid);
		if (tid < 0)
			System.exit(3);
	}
}
