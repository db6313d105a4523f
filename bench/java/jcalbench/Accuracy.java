package jcalbench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

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

	/**
	 * Collections: a tally of boxed keys in a HashMap, the inputs kept in an
	 * ArrayList, then both iterated (put/get/entrySet, Integer boxing).
	 */
	static final class Collections {
		static int key(int i) {
			return (i * 7919) % 300;
		}

		static long tally(int seed) {
			HashMap<Integer, Integer> counts = new HashMap<>();
			ArrayList<Integer> seen = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				Integer k = key(seed + i);
				Integer c = counts.get(k);
				counts.put(k, c == null ? 1 : c + 1);
				seen.add(k);
			}
			long s = 0;
			for (Map.Entry<Integer, Integer> e : counts.entrySet())
				s += e.getKey() * e.getValue();
			for (Integer k : seen)
				s += counts.get(k);
			return s;
		}

		static void run(int n) {
			long s = 0;
			for (int i = 0; i < n / 1000 + 1; i++)
				s += tally(i);
			Leaves.sink += (int) s;
		}
	}

	/**
	 * Strings: records built with StringBuilder and + concatenation, then
	 * split into fields and parsed back.
	 */
	static final class Strings {
		static String record(int i) {
			StringBuilder b = new StringBuilder(48);
			b.append("id=").append(i).append(";name=item").append(i % 97).append(";qty=").append(i % 13);
			return b.toString();
		}

		static int field(String f) {
			String v = f.substring(f.indexOf('=') + 1);
			if (v.startsWith("item"))
				v = v.substring(4);
			return Integer.parseInt(v);
		}

		static int parse(String line) {
			int sum = 0;
			for (String f : line.split(";"))
				sum += field(f);
			return sum;
		}

		static void run(int n) {
			long s = 0;
			for (int i = 0; i < n / 80 + 1; i++) {
				String line = record(i);
				s += parse(line);
				String key = "k" + i + ":" + line.length();
				s += key.hashCode();
			}
			Leaves.sink += (int) s;
		}
	}

	/**
	 * Interp: a stack VM with a switch-dispatch loop running a little
	 * program (a loop summing squares modulo a prime); arithmetic goes
	 * through a helper method, as in an interpreter with typed operations.
	 */
	static final class Interp {
		static final int PUSH = 0, LOAD = 1, STORE = 2, ADD = 3, MUL = 4, MOD = 5, JGE = 6, JMP = 7, HALT = 8;
		/* s = 0; i = 0; while (i < 40) { s = (s + i * i) % 10007; i = i + 1; } */
		static final int[] PROGRAM = {
			PUSH, 0, STORE, 0, PUSH, 0, STORE, 1, /* 8: */ LOAD, 1, PUSH, 40, JGE, 36,
			LOAD, 0, LOAD, 1, LOAD, 1, MUL, ADD, PUSH, 10007, MOD, STORE, 0,
			LOAD, 1, PUSH, 1, ADD, STORE, 1, JMP, 8, /* 36: */ LOAD, 0, HALT,
		};
		private final int[] stack = new int[16];
		private final int[] vars = new int[4];
		private int sp;

		static int arith(int op, int a, int b) {
			switch (op) {
			case ADD: return a + b;
			case MUL: return a * b;
			case MOD: return a % b;
			default: throw new IllegalStateException("op " + op);
			}
		}

		int exec(int[] code) {
			sp = 0;
			int pc = 0;
			for (;;) {
				int op = code[pc++];
				switch (op) {
				case PUSH: stack[sp++] = code[pc++]; break;
				case LOAD: stack[sp++] = vars[code[pc++]]; break;
				case STORE: vars[code[pc++]] = stack[--sp]; break;
				case ADD:
				case MUL:
				case MOD:
					sp--;
					stack[sp - 1] = arith(op, stack[sp - 1], stack[sp]);
					break;
				case JGE:
					sp -= 2;
					if (stack[sp] >= stack[sp + 1])
						pc = code[pc];
					else
						pc++;
					break;
				case JMP: pc = code[pc]; break;
				case HALT: return stack[--sp];
				default: throw new IllegalStateException("op " + op);
				}
			}
		}

		static void run(int n) {
			Interp vm = new Interp();
			long s = 0;
			for (int i = 0; i < n / 100 + 1; i++)
				s += vm.exec(PROGRAM);
			Leaves.sink += (int) s;
		}
	}

	/**
	 * Hash maps: keys of the program's own class, whose hashCode and equals
	 * HashMap calls (tiny methods called from JDK code), counted per key.
	 */
	static final class Hashmaps {
		static final class Key {
			final int a, b;

			Key(int a, int b) {
				this.a = a;
				this.b = b;
			}

			@Override
			public int hashCode() {
				return a * 31 + b;
			}

			@Override
			public boolean equals(Object o) {
				return o instanceof Key && ((Key) o).a == a && ((Key) o).b == b;
			}
		}

		static void run(int n) {
			HashMap<Key, Integer> m = new HashMap<>();
			for (int i = 0; i < n / 20 + 1; i++) {
				Key k = new Key(i % 509, i % 7);
				Integer v = m.get(k);
				m.put(k, v == null ? 1 : v + 1);
			}
			long s = 0;
			for (Integer v : m.values())
				s += v;
			Leaves.sink += (int) s;
		}
	}

	/**
	 * Sort with a comparator: records sorted by a lambda comparator that
	 * calls a comparison method of the program (its proxy is a hidden class).
	 */
	static final class Sort {
		static final class Item {
			final int key, id;

			Item(int key, int id) {
				this.key = key;
				this.id = id;
			}
		}

		static int compare(Item x, Item y) {
			int c = Integer.compare(x.key, y.key);
			return c != 0 ? c : Integer.compare(x.id, y.id);
		}

		static void run(int n) {
			Item[] items = new Item[n / 200 + 2];
			int seed = 12345;
			for (int i = 0; i < items.length; i++) {
				seed = seed * 1103515245 + 12345;
				items[i] = new Item((seed >>> 8) % 1000, i);
			}
			java.util.Arrays.sort(items, (x, y) -> compare(x, y));
			Leaves.sink += items[0].key + items[items.length - 1].id;
		}
	}

	/** A loop calling a small method with a loop of its own over an array. */
	static final class Bodies {
		static final int[] DATA = new int[32];

		static {
			for (int i = 0; i < DATA.length; i++)
				DATA[i] = i * 7 + 3;
		}

		static int body(int k) {
			int s = 0;
			for (int j = 0; j < DATA.length; j++)
				s += DATA[j] ^ k;
			return s;
		}

		static void run(int n) {
			long s = 0;
			for (int i = 0; i < n / 10; i++)
				s += body(i);
			Leaves.sink += (int) s;
		}
	}

	/**
	 * A method that throttle= would pick (tiny, called often) beside a long
	 * loop in the same class (spin): with throttle= the class is
	 * retransformed while a round runs, and the loop's frame then belongs
	 * to the old version of the class.
	 */
	static final class Throttled {
		static int tiny(int x) {
			return x * 3 + 1;
		}

		static long spin(int n) {
			long s = 0;
			for (int i = 0; i < n; i++)
				s += i ^ (s >>> 3);
			return s;
		}

		static void run(int n) {
			long s = 0;
			for (int r = 0; r < 4; r++) {
				for (int i = 0; i < n / 40; i++)
					s += tiny(i);
				s += spin(n / 4);
			}
			Leaves.sink += (int) s;
		}
	}

	/**
	 * Lambdas: a stream pipeline over an int range with a mapping lambda
	 * that calls a method of the program, a filter and a reduction (the
	 * lambdas' proxies are hidden classes).
	 */
	static final class Lambdas {
		static int weigh(int x) {
			return (x * 7) % 13;
		}

		static void run(int n) {
			long s = java.util.stream.IntStream.range(0, n / 2 + 1).map(x -> weigh(x)).filter(x -> x > 3)
					.asLongStream().sum();
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
		case "collections": Collections.run(n); break;
		case "strings": Strings.run(n); break;
		case "interp": Interp.run(n); break;
		case "hashmaps": Hashmaps.run(n); break;
		case "sort": Sort.run(n); break;
		case "bodies": Bodies.run(n); break;
		case "throttled": Throttled.run(n); break;
		case "lambdas": Lambdas.run(n); break;
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
