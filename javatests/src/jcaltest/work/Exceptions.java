package jcaltest.work;

/** Exceptions thrown three frames deep and caught in outer(): 5 rounds. */
public class Exceptions {
	static int caught;

	static void thrower(int i) {
		throw new IllegalStateException("round " + i);
	}

	static void middle(int i) {
		thrower(i);
	}

	static void inner(int i) {
		middle(i);
	}

	static void after() {
		caught++;
	}

	static void outer(int i) {
		try {
			inner(i);
		} catch (IllegalStateException e) {
			after();
		}
	}

	public static void main(String[] args) {
		for (int i = 0; i < 5; i++)
			outer(i);
		System.out.println("exceptions " + caught);
	}
}
