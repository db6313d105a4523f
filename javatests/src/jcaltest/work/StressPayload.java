package jcaltest.work;

/** Loaded again and again from its bytes by StressClassLoading's loaders. */
public class StressPayload {
	private int total;

	public int work(int n) {
		for (int i = 0; i < n; i++)
			total += step(i);
		return total;
	}

	static int step(int i) {
		return i & 3;
	}
}
