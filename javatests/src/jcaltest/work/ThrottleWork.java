package jcaltest.work;

/**
 * The workload of jcaltest.Throttle (mode=bci, throttle=): run(ROUNDS, K)
 * calls tiny() K times from each of ROUNDS calls of caller(), and heavy()
 * (a loop of some microseconds) once per round. With throttle= on, tiny()
 * loses its probes part way; caller() and heavy() keep theirs. Prints the
 * calls it made of each, for the test to compare.
 */
public class ThrottleWork {
	static long sink;

	static int tiny(int x) {
		return x * 31 + 7;
	}

	static long caller(int k, int seed) {
		long s = 0;
		for (int i = 0; i < k; i++)
			s += tiny(seed + i);
		return s;
	}

	static long heavy(int seed) {
		long s = seed;
		for (int i = 0; i < 20000; i++)
			s = s * 6364136223846793005L + 1442695040888963407L;
		return s;
	}

	public static void main(String[] args) throws Exception {
		int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
		int k = args.length > 1 ? Integer.parseInt(args[1]) : 200;
		for (int r = 0; r < rounds; r++) {
			sink += caller(k, r);
			sink += heavy(r);
		}
		System.out.println("tiny " + (long) rounds * k + " caller " + rounds + " heavy " + rounds + " sink " + sink);
	}
}
