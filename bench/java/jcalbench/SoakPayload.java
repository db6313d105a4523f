package jcalbench;

import java.util.function.IntUnaryOperator;

/**
 * The class jcalbench.Soak defines again and again, each time in a new
 * class loader that is then dropped: from its own bytes under its own name
 * (a copy), or with the name patched to one of a fixed set of generated
 * names (a different class each time it is defined). A few methods of
 * different shapes: a loop of small calls, recursion, an exception caught
 * two frames up.
 */
public final class SoakPayload implements IntUnaryOperator {
	private int seed;

	private int step(int x) {
		return x * 31 + seed++;
	}

	private static int depth(int n) {
		return n <= 0 ? 0 : 1 + depth(n - 1);
	}

	private static void fail(int x) {
		throw new IllegalStateException("soak " + x);
	}

	private static int guarded(int x) {
		try {
			fail(x);
			return x;
		} catch (IllegalStateException e) {
			return -x;
		}
	}

	@Override
	public int applyAsInt(int n) {
		int sink = depth(8);
		for (int i = 0; i < n; i++)
			sink ^= step(i);
		return sink ^ guarded(n);
	}
}
