package jcal.calib;

/**
 * Measures the execution-environment cost of calls in the uninstrumented
 * program (docs/calibration-format.md, env): run by the agent in a child JVM without agent, started
 * with -Xint for mode=events (the execution mode it forces) and in mixed
 * mode with a long warm-up and the argument "bci" for mode=bci (the JIT run).
 *
 * For every caller type a and callee type b (I i N n) it times a loop that
 * calls an empty method of type b from a method of type a, and the same
 * loop calling nothing, and prints the difference per call; then the same
 * with a callee that throws a preallocated exception the caller catches.
 * With "bci" the types are I i J j, and callers and callees are the
 * workload's own node methods (Workload.java): J j are Workload.I and i,
 * compiled during the warm-up, I i are Workload.H and h, which HotSpot
 * never compiles; a caller node with many leaf children is timed against
 * the same node whose children call nothing (type 6).
 * With "bci", then, per type a and per work loop length K (Workload.work),
 * the cost of the loop itself: a leaf node of type a called with work K
 * against the same with work 0 (the node runs its loop once, at its entry).
 * (mode=events times the loops in the calibration JVM itself,
 * calibrator/calib_worktime.c.)
 * Output lines: "call A B NS" and "throw A B NS" (nanoseconds, the lowest
 * of several rounds), "work A K NS", then "done".
 *
 * Usage: java [-Xint] -cp jcal-calibrator.jar jcal.calib.EnvTimer LIBJCAL [CALLS] [ROUNDS] [WARMUP] [bci]
 * (WARMUP: calls per loop before timing, default 100: resolves the call
 * sites; some 20000 let the JIT compile the loops and callees.)
 */
public final class EnvTimer {
	static final String TYPES = "IiNn";
	static final EnvTimer INSTANCE = new EnvTimer();

	/* Callees: kind 0..3 = empty I i N n, 4..7 = the same throwing; -1 = no call. */
	static void leafI() {
	}

	void leafi() {
	}

	static native void leafN();

	native void leafn();

	static void throwI() {
		throw Workload.THROWN;
	}

	void throwi() {
		throw Workload.THROWN;
	}

	static native void throwN();

	native void thrown();

	/* Callers, one per type; each loops n times over the same switch. */
	static void loopI(int kind, int n) {
		for (int k = 0; k < n; k++) {
			try {
				switch (kind) {
				case 0: leafI(); break;
				case 1: INSTANCE.leafi(); break;
				case 2: leafN(); break;
				case 3: INSTANCE.leafn(); break;
				case 4: throwI(); break;
				case 5: INSTANCE.throwi(); break;
				case 6: throwN(); break;
				case 7: INSTANCE.thrown(); break;
				default: break;
				}
			} catch (Workload.Thrown e) {
				/* expected */
			}
		}
	}

	void loopi(int kind, int n) {
		for (int k = 0; k < n; k++) {
			try {
				switch (kind) {
				case 0: leafI(); break;
				case 1: leafi(); break;
				case 2: leafN(); break;
				case 3: leafn(); break;
				case 4: throwI(); break;
				case 5: throwi(); break;
				case 6: throwN(); break;
				case 7: thrown(); break;
				default: break;
				}
			} catch (Workload.Thrown e) {
				/* expected */
			}
		}
	}

	static native void loopN(int kind, int n);

	native void loopn(int kind, int n);

	static long time(int caller, int kind, int n) {
		long t0 = System.nanoTime();
		switch (caller) {
		case 0: loopI(kind, n); break;
		case 1: INSTANCE.loopi(kind, n); break;
		case 2: loopN(kind, n); break;
		default: INSTANCE.loopn(kind, n); break;
		}
		return System.nanoTime() - t0;
	}

	/* mode=bci: the type letters and the Workload node type of each. */
	static final String BCI_TYPES = "IiJj";
	static final int[] BCI_NODE = {4, 5, 0, 1};
	static final int NO_CALL = 6, THROWS = 1, CATCHES = 2;

	/* A caller node of type a that catches, with leaf children of type b. */
	static void fill(int[] p, int a, int b, int flags) {
		p[0] = a;
		p[1] = CATCHES;
		p[2] = (p.length - 4) / 4;
		p[3] = p.length;
		for (int c = 4; c < p.length; c += 4) {
			p[c] = b;
			p[c + 1] = flags;
			p[c + 2] = 0;
			p[c + 3] = 4;
		}
	}

	static long timeNode(int[] p) {
		long t0 = System.nanoTime();
		switch (p[0]) {
		case 0: Workload.I(p, 0); break;
		case 1: Workload.INSTANCE.i(p, 0); break;
		case 4: Workload.H(p, 0); break;
		default: Workload.INSTANCE.h(p, 0); break;
		}
		return System.nanoTime() - t0;
	}

	/* kind 0..3 = a leaf of type BCI_TYPES[kind], 4..7 = the same throwing, -1 = no call. */
	static void fillKind(int[] p, int a, int kind) {
		fill(p, BCI_NODE[a], kind < 0 ? NO_CALL : BCI_NODE[kind & 3], kind >= 4 ? THROWS : 0);
	}

	static void bci(int n, int rounds, int warm) {
		int[] w = new int[4 + 4 * warm], with = new int[4 + 4 * n], without = new int[4 + 4 * n];
		/* Warm-up, twice: every caller with every callee, so that the JIT has
		 * compiled Workload.I and i with every branch of their switch seen. */
		for (int pass = 0; pass < 2; pass++)
			for (int a = 0; a < 4; a++)
				for (int kind = -1; kind < 8; kind++) {
					fillKind(w, a, kind);
					timeNode(w);
				}
		for (int a = 0; a < 4; a++) {
			fillKind(without, a, -1);
			for (int kind = 0; kind < 8; kind++) {
				fillKind(with, a, kind);
				/* the fastest of each: a round slowed by another process is
				 * left out, whichever of the two it hit */
				long best = Long.MAX_VALUE, best0 = Long.MAX_VALUE;
				for (int r = 0; r < rounds; r++) {
					best = Math.min(best, timeNode(with));
					best0 = Math.min(best0, timeNode(without));
				}
				System.out.printf("%s %c %c %.1f%n", kind < 4 ? "call" : "throw", BCI_TYPES.charAt(a),
						BCI_TYPES.charAt(kind & 3), Math.max(0.0, (double) (best - best0) / n));
			}
		}
	}

	/* The work loop lengths the calibration runs besides 0 (calibrate.c). */
	static final int[] WORK = {2, 8, 32, 128};

	static long timeLeaves(int[] leaf, int n) {
		long t0 = System.nanoTime();
		for (int k = 0; k < n; k++) {
			switch (leaf[0]) {
			case 0: Workload.I(leaf, 0); break;
			case 1: Workload.INSTANCE.i(leaf, 0); break;
			case 2: Workload.N(leaf, 0); break;
			case 3: Workload.INSTANCE.n(leaf, 0); break;
			case 4: Workload.H(leaf, 0); break;
			default: Workload.INSTANCE.h(leaf, 0); break;
			}
		}
		return System.nanoTime() - t0;
	}

	/* "work A K NS" for every type letter of letters, run by node type nodes[a]. */
	static void work(String letters, int[] nodes, int n, int rounds, int warm) {
		int[] leaf = {0, 0, 0, 4};
		for (int a = 0; a < letters.length(); a++) {
			leaf[0] = nodes[a];
			for (int iters : WORK) {
				/* warm: in mixed mode the JIT compiles the loop at this length too */
				Workload.setWork(iters);
				timeLeaves(leaf, warm);
				Workload.setWork(0);
				timeLeaves(leaf, warm);
				long best = Long.MAX_VALUE, best0 = Long.MAX_VALUE;
				for (int r = 0; r < rounds; r++) {
					Workload.setWork(iters);
					best = Math.min(best, timeLeaves(leaf, n));
					Workload.setWork(0);
					best0 = Math.min(best0, timeLeaves(leaf, n));
				}
				System.out.printf("work %c %d %.1f%n", letters.charAt(a), iters,
						Math.max(0.0, (double) (best - best0) / n));
			}
		}
	}

	public static void main(String[] args) {
		System.load(args[0]);
		int n = args.length > 1 ? Integer.parseInt(args[1]) : 50000;
		int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
		int warm = args.length > 3 ? Integer.parseInt(args[3]) : 100;
		/* the work loops: many short timings, whose fastest is the least
		 * disturbed by other processes */
		int workCalls = Math.max(200, n / 50), workRounds = 5 * rounds;
		if (args.length > 4 && args[4].equals("bci")) {
			bci(n, rounds, warm);
			work(BCI_TYPES, BCI_NODE, workCalls, workRounds, warm);
			System.out.println("done");
			return;
		}
		/* Warm-up: resolve every call site (and, when long, let the JIT compile). */
		for (int a = 0; a < 4; a++)
			for (int kind = -1; kind < 8; kind++)
				time(a, kind, warm);
		for (int a = 0; a < 4; a++) {
			for (int kind = 0; kind < 8; kind++) {
				double best = Double.MAX_VALUE;
				for (int r = 0; r < rounds; r++) {
					long with = time(a, kind, n), without = time(a, -1, n);
					best = Math.min(best, (double) (with - without) / n);
				}
				System.out.printf("%s %c %c %.1f%n", kind < 4 ? "call" : "throw", TYPES.charAt(a),
						TYPES.charAt(kind & 3), Math.max(0.0, best));
			}
		}
		System.out.println("done");
	}
}
