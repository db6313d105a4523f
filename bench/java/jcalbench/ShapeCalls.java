package jcalbench;

/**
 * The smallest case of bench/shape.sh (docs/accuracy.md, "Profile shape
 * against a sampler"): a loop that calls an empty method and a one-line
 * leaf, N times. Which of the three methods the cost of each call belongs
 * to is what a sampler and jcal's calibrated base disagree on; the program
 * isolates it.
 *
 * Usage: java -cp build/bench jcalbench.ShapeCalls N
 */
public final class ShapeCalls {
	static int sink;

	static void empty() {
	}

	static int leaf(int x) {
		return x + 1;
	}

	public static void main(String[] args) {
		int n = Integer.parseInt(args[0]);
		for (int i = 0; i < n; i++) {
			empty();
			sink = leaf(sink);
		}
	}
}
