package jcalbench;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * Sends requests to a server's /work one after the other for the given
 * seconds and prints the requests of every second (PerSecond), for
 * bench/live-throughput.sh.
 */
public class LiveClient {
	public static void main(String[] args) throws Exception {
		URL url = new URL("http://127.0.0.1:" + args[0] + "/work");
		long end = System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
		PerSecond rate = new PerSecond();
		byte[] buf = new byte[256];
		while (System.currentTimeMillis() < end) {
			HttpURLConnection c = (HttpURLConnection) url.openConnection();
			try (InputStream in = c.getInputStream()) {
				while (in.read(buf) >= 0) {
				}
			}
			rate.add();
		}
	}
}
