package bcitest;

/* Native methods of every argument and return kind, static and instance,
 * synchronized, with a throws clause: the rewriter wraps each (run.sh passes
 * -p). No library implements them, so every call throws
 * UnsatisfiedLinkError, as compiled and as rewritten, where it leaves the
 * wrapper through its catch-all handler. */
public class Natives {
	private int k = 3;

	static native void none();

	static native int ints(int a, byte b, char c, short s, boolean z);

	static native long wide(long a, double b, int c, long d);

	static native double fp(float a, double b);

	native String inst(String s, int[] a, Object[][] o);

	synchronized native long sync(long a);

	static native Object[] arrays(long[] a, Natives n) throws java.io.IOException;

	private static String call(Runnable r) {
		try {
			r.run();
			return "returned";
		} catch (UnsatisfiedLinkError e) {
			return "unlinked";
		}
	}

	int body() {
		return k;
	}

	public static Object run() {
		Natives n = new Natives();
		StringBuilder sb = new StringBuilder();
		sb.append(call(Natives::none)).append(' ');
		sb.append(call(() -> ints(1, (byte) 2, 'c', (short) 4, true))).append(' ');
		sb.append(call(() -> wide(1L, 2.0, 3, 4L))).append(' ');
		sb.append(call(() -> fp(1f, 2.0))).append(' ');
		sb.append(call(() -> n.inst("s", new int[1], null))).append(' ');
		sb.append(call(() -> n.sync(5L))).append(' ');
		sb.append(call(() -> {
			try {
				arrays(null, n);
			} catch (java.io.IOException e) {
				throw new IllegalStateException(e);
			}
		}));
		return sb.append(' ').append(n.body()).toString();
	}
}
