package jcaltest.work;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.function.Supplier;

/**
 * Everything mode=events sees that mode=bci must see too (jcaltest.BciSees):
 * native methods of the program (javatests/native/bci_see.c, the library
 * path is the argument), linked by name and by RegisterNatives, static,
 * instance, synchronized, calling back into Java, throwing; lambdas (their
 * proxies are hidden classes), static, bound and constructor method
 * references, an anonymous class, dynamic proxies of an interface of this
 * package (the proxy class is in this package) and of a public one (in a
 * jdk.proxyN package, a JDK class name), and a hidden class defined twice
 * from the same bytes (BciSeeHidden).
 *
 * Calls of the natives: add 9 (5 here, 4 from back), mix 3, locked 4,
 * callback 1, back 4, fail 2 (both exit by the exception they throw),
 * registerAll 1, registered 3.
 *
 * A second argument "spin" then calls add() for a second (for throttle=)
 * and locked() 4 more times; "live" instead reads commands from stdin
 * after printing "ready": "early N" calls add() N times through early(),
 * "late N" BciSeeLate.mul() N times through late() (BciSeeLate loads at the
 * first), each answered "ok".
 */
public class BciSee {
	/** Package-private: its proxy class is defined in this package. */
	interface Shape {
		int area(int k);
	}

	/** Public: its proxy class is in a jdk.proxyN package. */
	public interface Named {
		String name();
	}

	static final class Handler implements InvocationHandler {
		@Override
		public Object invoke(Object proxy, Method m, Object[] args) {
			return m.getName();
		}
	}

	private final int k;

	BciSee() {
		this.k = 3;
	}

	static native int add(int a, int b);

	native long mix(long a, double d, int[] arr);

	static synchronized native int locked(int x);

	static native int callback(int n);

	static native void fail(String msg);

	static native boolean registerAll();

	static native int registered(int x);

	static int early(int n) {
		int s = 0;
		for (int i = 0; i < n; i++)
			s += add(i, 2);
		return s;
	}

	static int late(int n) {
		int s = 0;
		for (int i = 0; i < n; i++)
			s += BciSeeLate.mul(i, 2);
		return s;
	}

	/** The "live" commands until stdin ends. */
	private static void live() throws java.io.IOException {
		java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
		System.out.println("ready");
		System.out.flush();
		for (String l; (l = in.readLine()) != null;) {
			String[] w = l.split(" ");
			int n = Integer.parseInt(w[1]);
			int s = w[0].equals("early") ? early(n) : late(n);
			System.out.println(s >= 0 ? "ok" : "negative");
			System.out.flush();
		}
	}

	static int back(int i) {
		return add(i, 1);
	}

	static long plus(long a, long b) {
		return a + b;
	}

	Integer times(int x) {
		return k * x;
	}

	static int handle(String name, int k) {
		return name.length() * k;
	}

	public static void main(String[] args) throws Throwable {
		System.load(args[0]);
		if (args.length > 1 && args[1].equals("live")) {
			live();
			return;
		}
		int s = 0;
		/* natives */
		for (int i = 0; i < 5; i++)
			s += add(i, 1);
		BciSee o = new BciSee();
		for (int i = 0; i < 3; i++)
			s += (int) o.mix(i, 0.5, new int[i]);
		for (int i = 0; i < 4; i++)
			s += locked(i);
		s += callback(4);
		for (int i = 0; i < 2; i++) {
			try {
				fail("f" + i);
			} catch (IllegalStateException e) {
				s += e.getMessage().length();
			}
		}
		if (!registerAll())
			throw new AssertionError("RegisterNatives failed");
		for (int i = 0; i < 3; i++)
			s += registered(i);
		/* lambdas and method references */
		IntUnaryOperator inc = x -> x + 1;
		for (int i = 0; i < 6; i++)
			s += inc.applyAsInt(i);
		LongBinaryOperator sum = BciSee::plus;
		for (int i = 0; i < 4; i++)
			s += (int) sum.applyAsLong(i, i);
		Supplier<BciSee> make = BciSee::new;
		for (int i = 0; i < 2; i++)
			s += make.get().k;
		IntFunction<Integer> bound = o::times;
		for (int i = 0; i < 3; i++)
			s += bound.apply(i);
		int[] box = { 0 };
		Runnable capture = () -> box[0] += 2;
		capture.run();
		capture.run();
		List<Integer> list = new ArrayList<>(List.of(5, 3, 9, 1, 7));
		list.sort((a, b) -> Integer.compare(a, b));
		/* an anonymous class */
		IntSupplier anon = new IntSupplier() {
			@Override
			public int getAsInt() {
				return box[0];
			}
		};
		s += anon.getAsInt() + anon.getAsInt();
		/* dynamic proxies */
		Shape shape = (Shape) Proxy.newProxyInstance(BciSee.class.getClassLoader(), new Class<?>[] { Shape.class },
				(p, m, a) -> handle(m.getName(), (Integer) a[0]));
		for (int i = 0; i < 3; i++)
			s += shape.area(i);
		Named named = (Named) Proxy.newProxyInstance(BciSee.class.getClassLoader(), new Class<?>[] { Named.class },
				new Handler());
		s += named.name().length() + named.name().length();
		/* hidden classes, twice from the same bytes */
		byte[] bytes;
		try (java.io.InputStream in = BciSee.class.getResourceAsStream("BciSeeHidden.class")) {
			bytes = in.readAllBytes();
		}
		for (int d = 0; d < 2; d++) {
			MethodHandles.Lookup l = MethodHandles.lookup().defineHiddenClass(bytes, true);
			MethodHandle twice = l.findStatic(l.lookupClass(), "twice", MethodType.methodType(int.class, int.class));
			s += (int) twice.invokeExact(d);
			IntSupplier h = (IntSupplier) l.findConstructor(l.lookupClass(), MethodType.methodType(void.class, int.class))
					.invoke(d);
			s += h.getAsInt();
		}
		if (args.length > 1 && args[1].equals("spin")) {
			long end = System.nanoTime() + 1_000_000_000L;
			while (System.nanoTime() < end)
				for (int i = 0; i < 1000; i++)
					s += add(i, 1);
			for (int i = 0; i < 4; i++)
				s += locked(i);
		}
		System.out.println("bcisee " + s + " " + list + " " + box[0]);
	}
}
