package jcaltest.work;

/** Calls tick() until the JVM is killed; prints "spinning" once started. */
public class StressSpin {
	static long sink;

	static void tick(int i) {
		sink += i;
	}

	public static void main(String[] args) {
		System.out.println("spinning");
		System.out.flush();
		for (int i = 0;; i++)
			tick(i);
	}
}
