package bcitest;

/* Plain methods: static and instance calls, recursion, loops, long and
 * double arithmetic, synchronized methods and blocks, a static initialiser. */
public class Basics {
	static final int[] TABLE;
	static int clinitRuns;

	static {
		TABLE = new int[16];
		for (int i = 0; i < TABLE.length; i++)
			TABLE[i] = i * i;
		clinitRuns++;
	}

	private long total;

	static int fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	static void empty() {
	}

	static int loop(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			if ((i & 1) == 0)
				continue;
			s += i;
			if (s > 1_000_000)
				break;
		}
		while (n > 0)
			n -= 3;
		do {
			s++;
		} while (s % 7 != 0);
		return s;
	}

	static double mix(long a, double b, float c, int d) {
		long x = a * 31 + d;
		double y = b / 3 + c;
		return x + y > 0 ? x + y : -(x + y);
	}

	synchronized void add(long v) {
		total += v;
	}

	long addAll(int n) {
		for (int i = 0; i < n; i++)
			add(i);
		synchronized (this) {
			total *= 2;
		}
		return total;
	}

	static int earlyReturns(int x) {
		if (x < 0)
			return -1;
		if (x == 0)
			return 0;
		if (x > 100)
			return 100;
		return x;
	}

	static boolean cond(Object o, int a, int b) {
		return o == null || (a < b && a != 0 && o instanceof String);
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		sb.append(fib(15)).append(' ');
		for (int i = 0; i < 10; i++)
			empty();
		sb.append(loop(1000)).append(' ');
		sb.append(mix(3L, 2.5, 1.5f, 7)).append(' ');
		sb.append(new Basics().addAll(100)).append(' ');
		for (int i = -2; i < 200; i += 50)
			sb.append(earlyReturns(i)).append(',');
		sb.append(cond(null, 1, 2)).append(cond("x", 1, 2)).append(cond(1, 2, 1));
		sb.append(' ').append(TABLE[5]).append(' ').append(clinitRuns);
		return sb.toString();
	}
}
