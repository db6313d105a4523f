package jcaltest.work;

import java.util.function.IntSupplier;

/**
 * Defined only as a hidden class, twice, by BciSee (which reads this class
 * file and never loads the class by name): a static method, a constructor
 * and an interface method that mode=bci must see through its hook of
 * hidden classes.
 */
final class BciSeeHidden implements IntSupplier {
	private final int v;

	BciSeeHidden(int v) {
		this.v = v;
	}

	static int twice(int x) {
		return 2 * x;
	}

	@Override
	public int getAsInt() {
		return twice(v) + 1;
	}
}
