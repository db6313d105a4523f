package jcaltest.work;

/** Calls tick() for the number of seconds given, then exits: a program that outlives duration=. */
public class TimedSpin {
	static long sink;

	static void tick(int i) {
		sink += i;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
		while (System.nanoTime() < end)
			for (int i = 0; i < 10000; i++)
				tick(i);
		System.out.println("spun " + sink);
	}
}
