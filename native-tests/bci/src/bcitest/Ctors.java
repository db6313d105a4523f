package bcitest;

/* Constructors: super() with computed arguments (branches before the call),
 * this(...), inner classes (putfield before super), throwing after super(),
 * enums with bodies. */
public class Ctors {
	static class Base {
		final int v;

		Base(int v) {
			this.v = v;
		}

		Base(Base other) {
			this(other == null ? -1 : other.v);
		}
	}

	static class Derived extends Base {
		final String s;

		Derived(int a, boolean flag) {
			super(flag ? a * 2 : (a > 10 ? a : -a));
			s = "d" + v;
		}

		Derived(int a) {
			this(a, a % 2 == 0);
		}

		Derived(String s) {
			super(new Base(s.length()));
			if (s.isEmpty())
				throw new IllegalArgumentException("empty");
			this.s = s;
		}
	}

	class Inner {
		final int w;

		Inner(int w) {
			this.w = w + outerField;
		}
	}

	int outerField = 5;

	enum Op {
		ADD {
			int apply(int a, int b) {
				return a + b;
			}
		},
		MUL {
			int apply(int a, int b) {
				return a * b;
			}
		};

		abstract int apply(int a, int b);
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		for (int i = 0; i < 15; i += 4)
			sb.append(new Derived(i).s).append(new Derived(i, false).v).append(' ');
		sb.append(new Derived("hello").v).append(' ');
		try {
			new Derived("");
		} catch (IllegalArgumentException e) {
			sb.append("caught ").append(e.getMessage()).append(' ');
		}
		sb.append(new Base((Base) null).v).append(' ');
		Ctors o = new Ctors();
		sb.append(o.new Inner(3).w).append(' ');
		for (Op op : Op.values())
			sb.append(' ').append(op.apply(6, 7));
		return sb.toString();
	}
}
