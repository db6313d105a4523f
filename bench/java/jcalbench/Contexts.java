package jcalbench;

/**
 * A workload whose calling contexts keep growing: sixteen small methods
 * call one another along pseudo-random paths up to DEPTH deep (default 7:
 * 16^7 possible contexts), forever or for N outer iterations. For
 * bench/tree-soak.sh with maxcontexts=: without a limit the trees grow with
 * the contexts met, with one they stay bounded.
 *
 * Usage: java -cp build/bench jcalbench.Contexts [N] [DEPTH]
 */
public final class Contexts {
	private static int seed = 12345, maxDepth = 7;
	static long sink;

	private static int next() {
		seed = seed * 1103515245 + 12345;
		return (seed >>> 16) & 15;
	}

	private static void call(int m, int depth) {
		switch (m) {
		case 0: m0(depth); break;
		case 1: m1(depth); break;
		case 2: m2(depth); break;
		case 3: m3(depth); break;
		case 4: m4(depth); break;
		case 5: m5(depth); break;
		case 6: m6(depth); break;
		case 7: m7(depth); break;
		case 8: m8(depth); break;
		case 9: m9(depth); break;
		case 10: m10(depth); break;
		case 11: m11(depth); break;
		case 12: m12(depth); break;
		case 13: m13(depth); break;
		case 14: m14(depth); break;
		default: m15(depth); break;
		}
	}

	private static void step(int depth, int self) {
		sink += self;
		if (depth < maxDepth)
			call(next(), depth + 1);
	}

	static void m0(int d) { step(d, 0); }
	static void m1(int d) { step(d, 1); }
	static void m2(int d) { step(d, 2); }
	static void m3(int d) { step(d, 3); }
	static void m4(int d) { step(d, 4); }
	static void m5(int d) { step(d, 5); }
	static void m6(int d) { step(d, 6); }
	static void m7(int d) { step(d, 7); }
	static void m8(int d) { step(d, 8); }
	static void m9(int d) { step(d, 9); }
	static void m10(int d) { step(d, 10); }
	static void m11(int d) { step(d, 11); }
	static void m12(int d) { step(d, 12); }
	static void m13(int d) { step(d, 13); }
	static void m14(int d) { step(d, 14); }
	static void m15(int d) { step(d, 15); }

	public static void main(String[] args) {
		long n = args.length > 0 ? Long.parseLong(args[0]) : Long.MAX_VALUE;
		if (args.length > 1)
			maxDepth = Integer.parseInt(args[1]);
		for (long i = 0; i < n; i++)
			call(next(), 1);
		System.out.println("contexts sink=" + sink);
	}
}
