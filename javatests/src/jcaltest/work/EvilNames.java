package jcaltest.work;

/** A thread whose name holds terminal control sequences (ESC, CR, LF). */
public final class EvilNames {
	public static final String EVIL = "evil\u001b[2J\r\nname";
	static volatile int sink;

	static void leaf() {
		sink++;
	}

	public static void main(String[] args) throws InterruptedException {
		Thread t = new Thread(() -> {
			for (int i = 0; i < 3; i++)
				leaf();
		}, EVIL);
		t.start();
		t.join();
		System.out.println("evil " + sink);
	}
}
