package bcitest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;

/* Lambdas, method references, default and static interface methods,
 * anonymous, local and nested classes, generics with bridge methods. */
public class Lambdas {
	interface Shape {
		double area();

		default String describe() {
			return kind(this) + ":" + Math.round(area());
		}

		static Shape square(double s) {
			return () -> s * s;
		}
	}

	static class Box<T extends Comparable<T>> implements Comparable<Box<T>> {
		final T v;

		Box(T v) {
			this.v = v;
		}

		@Override
		public int compareTo(Box<T> o) {
			return v.compareTo(o.v);
		}
	}

	static String kind(Shape s) {
		return s.area() > 10 ? "big" : "small";
	}

	static int twice(int x) {
		return 2 * x;
	}

	static int apply(IntBinaryOperator op, int a, int b) {
		return op.applyAsInt(a, b);
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		int base = 3;
		IntBinaryOperator add = (a, b) -> a + b + base;
		sb.append(apply(add, 1, 2)).append(' ');
		sb.append(apply(Math::max, 4, 9)).append(' ');
		java.util.function.IntUnaryOperator t = Lambdas::twice;
		sb.append(t.applyAsInt(21)).append(' ');
		sb.append(Shape.square(2).describe()).append(' ').append(Shape.square(5).describe()).append(' ');
		Shape anon = new Shape() {
			public double area() {
				return 7.5;
			}
		};
		sb.append(anon.describe()).append(' ');
		class Local implements Supplier<String> {
			public String get() {
				return "local" + base;
			}
		}
		sb.append(new Local().get()).append(' ');
		List<Box<Integer>> boxes = new ArrayList<>();
		for (int i = 5; i > 0; i--)
			boxes.add(new Box<>(i * 7 % 5));
		boxes.sort(null);
		for (Box<Integer> b : boxes)
			sb.append(b.v);
		sb.append(' ').append(boxes.stream().mapToInt(b -> b.v).filter(v -> v > 1).sum());
		Runnable r = () -> sb.append(" ran");
		r.run();
		return sb.toString();
	}
}
