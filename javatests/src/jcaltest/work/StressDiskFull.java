package jcaltest.work;

/**
 * Writes far more trace than a small file size limit allows: N calls of
 * tick() (default 3 million, ~10 MB of trace); prints "diskfull done" when
 * the application finished.
 */
public class StressDiskFull {
	static long sink;

	static void tick(int i) {
		sink += i;
	}

	public static void main(String[] args) {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
		for (int i = 0; i < n; i++)
			tick(i);
		System.out.println("diskfull done " + sink);
	}
}
