package jcaltest.work;

/** A thread whose name holds terminal control sequences (ESC, CR, LF). */
public final class EvilNames {
	public static final String EVIL = "evil\u001b[2J\r\nname";

	public static void main(String[] args) throws InterruptedException {
		Names.runNamed(EVIL);
		System.out.println("evil " + Names.sink);
	}
}
