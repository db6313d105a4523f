package jcaltest.work;

/** Native methods called from Java: System.arraycopy 7 times, Object.hashCode 6 times. */
public class Natives {
	public static void main(String[] args) {
		int[] src = new int[16], dst = new int[16];
		for (int i = 0; i < 7; i++)
			System.arraycopy(src, 0, dst, i, 4);
		Object o = new Object();
		int h = 0;
		for (int i = 0; i < 5; i++)
			h ^= o.hashCode();
		System.out.println("natives " + (h == o.hashCode()));
	}
}
