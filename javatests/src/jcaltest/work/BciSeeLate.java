package jcaltest.work;

/**
 * A class with a native method that BciSee loads only when told to, after
 * the agent attached (jcaltest.BciSees): its native gets a wrapper then.
 */
final class BciSeeLate {
	private BciSeeLate() {
	}

	static native int mul(int a, int b);
}
