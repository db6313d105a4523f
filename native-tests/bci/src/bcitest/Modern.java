package bcitest;

/* Java 14+ constructs: records (compact constructors, generated methods
 * through invokedynamic), switch expressions, pattern instanceof. */
public class Modern {
	record Point(int x, int y) {
		Point {
			if (x < 0)
				throw new IllegalArgumentException("x");
		}

		int sum() {
			return x + y;
		}
	}

	static int expr(int k) {
		return switch (k) {
		case 1, 2, 3 -> k * 10;
		case 4 -> {
			int t = 0;
			for (int i = 0; i < k; i++)
				t += i;
			yield t;
		}
		default -> -k;
		};
	}

	static String pattern(Object o) {
		if (o instanceof String s && !s.isEmpty())
			return "s" + s.length();
		if (o instanceof Integer i)
			return "i" + (i + 1);
		return "o";
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		Point p = new Point(3, 4);
		sb.append(p.sum()).append(p.equals(new Point(3, 4))).append(p.hashCode() == new Point(3, 4).hashCode());
		try {
			new Point(-1, 0);
		} catch (IllegalArgumentException e) {
			sb.append(" bad point");
		}
		sb.append(' ').append(p);
		for (int k = 0; k < 6; k++)
			sb.append(expr(k)).append(';');
		sb.append(pattern("abc")).append(pattern(41)).append(pattern(2.0));
		return sb.toString();
	}
}
