package jcaltest.work;

/** fib(12) makes 465 calls; down(3000) goes deeper than the encoder's shadow stack. */
public class Recursion {
	static int fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	static int down(int n) {
		return n == 0 ? 0 : 1 + down(n - 1);
	}

	/* Mutual recursion: even(10) -> odd(9) -> ... -> even(0): 6 even, 5 odd. */
	static boolean even(int n) {
		return n == 0 || odd(n - 1);
	}

	static boolean odd(int n) {
		return n != 0 && even(n - 1);
	}

	public static void main(String[] args) {
		System.out.println("recursion " + fib(12) + " " + down(3000) + " " + even(10));
	}
}
