package jcaltest.work;

/** Static and instance calls with known counts: main 1, a 3, b 6, leaf 12, Basic.<init> 1. */
public class Basic {
	static int sink;

	static void leaf(int x) {
		sink += x;
	}

	void b(int i) {
		leaf(i);
		leaf(i + 1);
	}

	static void a(Basic o, int i) {
		o.b(i);
		o.b(i * 2);
	}

	public static void main(String[] args) {
		Basic o = new Basic();
		for (int i = 0; i < 3; i++)
			a(o, i);
		System.out.println("basic " + sink);
	}
}
