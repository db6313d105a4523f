package jcaltest.work;

/** Many events: 200000 calls of tick() fill many 64 KiB chunks. */
public class Loop {
	static long sink;

	static void tick(int i) {
		sink += i;
	}

	public static void main(String[] args) {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 200000;
		for (int i = 0; i < n; i++)
			tick(i);
		System.out.println("loop " + sink);
	}
}
