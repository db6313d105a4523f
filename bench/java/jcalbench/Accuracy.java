package jcalbench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Workloads of known shape for bench/accuracy.sh. Each workload's top
 * method is `run` of a nested class; the program prints the thread CPU time
 * that `run` took ("truth_ns"), measured around the call. Run it without an
 * agent under -Xint for the truth, and under the agent for the traced cum
 * of the same method.
 *
 * Usage: java -Xint -cp build/bench jcalbench.Accuracy WORKLOAD [SCALE]
 *        java -Xint -agentpath:libjcal.so=trace,start=manual ... \
 *             jcalbench.Accuracy ab WORKLOAD SCALE ROUNDS
 *
 *        java [-agentpath:libjcal.so=trace,mode=bci,start=manual ...] \
 *             jcalbench.Accuracy warm|warm-region WORKLOAD SCALE ROUNDS WARMUP
 *
 * The "warm" forms are for the JIT (mode=bci): WARMUP untraced rounds, then
 * ROUNDS measured ones ("warm-region": inside a jcal.Control region, so only
 * they are traced); run without an agent for the truth.
 *
 * The "ab" form is the same-JVM A/B of docs/accuracy.md: after one untraced warm-up
 * round it alternates an untraced round (truth: thread CPU time around the
 * top method) and a traced one (inside a jcal.Control region), and prints
 * the sum of the truths; jcal-post gives the traced cum of the same rounds.
 */
public final class Accuracy {
	/** Tiny leaf methods: the profiler's worst case. */
	static final class Leaves {
		static int sink;

		static int leaf(int x) {
			return x + 1;
		}

		int inst(int x) {
			return x ^ 3;
		}

		static void run(int n) {
			Leaves o = new Leaves();
			for (int i = 0; i < n; i++)
				sink += leaf(i) + o.inst(i);
		}
	}

	/** Deep recursion: fib. */
	static final class Recursion {
		static int fib(int n) {
			return n < 2 ? n : fib(n - 1) + fib(n - 2);
		}

		static void run(int n) {
			int s = 0;
			for (int i = 0; i < n / 1000 + 1; i++)
				s += fib(14);
			Leaves.sink += s;
		}
	}

	/** Native methods called from Java. */
	static final class Natives {
		static void run(int n) {
			int[] a = new int[8], b = new int[8];
			Object o = new Object();
			int h = 0;
			for (int i = 0; i < n; i++) {
				System.arraycopy(a, 0, b, 0, 8);
				h ^= System.identityHashCode(o);
			}
			Leaves.sink += h;
		}
	}

	/** Exceptions thrown through three frames. */
	static final class Exceptions {
		static final RuntimeException E = new RuntimeException("x", null, false, false) {
			private static final long serialVersionUID = 1L;
		};

		static void thrower(int i) {
			if ((i & 1) == 0)
				throw E;
		}

		static void middle(int i) {
			thrower(i);
		}

		static void run(int n) {
			int caught = 0;
			for (int i = 0; i < n; i++) {
				try {
					middle(i);
				} catch (RuntimeException e) {
					caught++;
				}
			}
			Leaves.sink += caught;
		}
	}

	/** Leaves with loops: more work per call. */
	static final class Loops {
		static int sum(int k) {
			int s = 0;
			for (int j = 0; j < k; j++)
				s += j * j;
			return s;
		}

		static void run(int n) {
			int s = 0;
			for (int i = 0; i < n / 4; i++)
				s += sum(20);
			Leaves.sink += s;
		}
	}

	/** A realistic mix: the expression parser of the demo. */
	static final class Parser {
		private final String s;
		private int pos;

		Parser(String s) {
			this.s = s;
		}

		private char peek() {
			while (pos < s.length() && s.charAt(pos) == ' ')
				pos++;
			return pos < s.length() ? s.charAt(pos) : '\0';
		}

		long expr() {
			long v = term();
			for (char c = peek(); c == '+' || c == '-'; c = peek()) {
				pos++;
				v = c == '+' ? v + term() : v - term();
			}
			return v;
		}

		long term() {
			long v = factor();
			for (char c = peek(); c == '*'; c = peek()) {
				pos++;
				v *= factor();
			}
			return v;
		}

		long factor() {
			char c = peek();
			if (c == '(') {
				pos++;
				long v = expr();
				pos++;
				return v;
			}
			long v = 0;
			while (pos < s.length() && Character.isDigit(s.charAt(pos)))
				v = v * 10 + (s.charAt(pos++) - '0');
			return v;
		}

		static void run(int n) {
			long s = 0;
			for (int i = 0; i < n / 50 + 1; i++)
				s += new Parser("(12 + 3) * (4 - 1) + 7 * (8 + 9 * (2 + 1))").expr();
			Leaves.sink += (int) s;
		}
	}

	static void runOnce(String w, int n) {
		switch (w) {
		case "leaves": Leaves.run(n); break;
		case "recursion": Recursion.run(n); break;
		case "natives": Natives.run(n); break;
		case "exceptions": Exceptions.run(n); break;
		case "loops": Loops.run(n); break;
		case "parser": Parser.run(n); break;
		default: throw new IllegalArgumentException("unknown workload " + w);
		}
	}

	public static void main(String[] args) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		if (args[0].equals("ab")) {
			String w = args[1];
			int n = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
			long truth = 0;
			runOnce(w, n); /* warm-up: class init, call-site resolution */
			for (int r = 0; r < rounds; r++) {
				long t0 = mx.getCurrentThreadCpuTime();
				runOnce(w, n);
				truth += mx.getCurrentThreadCpuTime() - t0;
				jcal.Control.start();
				runOnce(w, n);
				jcal.Control.stop();
			}
			System.out.println("truth_ns " + truth);
			return;
		}
		if (args[0].equals("warm") || args[0].equals("warm-region")) {
			/* JIT mode (mode=bci): WARMUP untraced rounds, then ROUNDS measured
			 * ones, inside a jcal.Control region with "warm-region". */
			String w = args[1];
			int n = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
			int warmup = Integer.parseInt(args[4]);
			boolean region = args[0].equals("warm-region");
			for (int r = 0; r < warmup; r++)
				runOnce(w, n);
			if (region)
				jcal.Control.start();
			long t0 = mx.getCurrentThreadCpuTime();
			for (int r = 0; r < rounds; r++)
				runOnce(w, n);
			long truth = mx.getCurrentThreadCpuTime() - t0;
			if (region)
				jcal.Control.stop();
			System.out.println("truth_ns " + truth);
			return;
		}
		String w = args[0];
		int n = args.length > 1 ? Integer.parseInt(args[1]) : 100000;
		long t0 = mx.getCurrentThreadCpuTime();
		runOnce(w, n);
		long t1 = mx.getCurrentThreadCpuTime();
		System.out.println("truth_ns " + (t1 - t0));
	}
}
