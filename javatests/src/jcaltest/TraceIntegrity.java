package jcaltest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Integrity of real traces (docs/trace-format.md): a changed chunk kind byte
 * or a wrong END count is an error of jcal-post, never a complete trace; the
 * stop field and a file size limit give an honest reason for a missing END.
 * Uses Runner's process and report helpers.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class TraceIntegrity {
	private static final String W = "jcaltest.work.";
	private static final int FILE_HEADER = 24, CHUNK_HEADER = 16, STOP_OFFSET = 20;
	private final Runner r;

	private TraceIntegrity(Runner r) {
		this.r = r;
	}

	/** Offsets of the chunks of a 2.x trace image. */
	private List<Integer> chunks(byte[] img) {
		List<Integer> l = new ArrayList<>();
		ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
		r.check(img.length >= FILE_HEADER && b.getShort(8) == 2, "a format 2 trace expected");
		for (int off = FILE_HEADER; off + CHUNK_HEADER <= img.length;) {
			l.add(off);
			off += CHUNK_HEADER + b.getInt(off + 8);
		}
		return l;
	}

	/** Recomputes the CRC of the chunk at off (header bytes 0-11, payload). */
	private static void reseal(byte[] img, int off) {
		ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
		CRC32 crc = new CRC32();
		crc.update(img, off, 12);
		crc.update(img, off + CHUNK_HEADER, b.getInt(off + 8));
		b.putInt(off + 12, (int) crc.getValue());
	}

	private void expectError(String what, Runner.Result res, String substring) {
		List<String> lines = res.errLines();
		r.check(res.rc != 0, what + ": non-zero exit expected, got 0: " + res.err);
		r.check(lines.size() == 1 && lines.get(0).startsWith("jcal-post: error: ") && lines.get(0).contains(substring),
				what + ": one 'jcal-post: error: ... " + substring + "' line expected, got " + lines);
		r.check(!res.out.contains("complete"), what + ": no report expected: " + res.out);
	}

	/* The error of trace t with every number of jobs: with two or more the
	 * workers decode the chunks and cannot say it themselves, so the file is
	 * read again on one thread; the one line is the same as -j 0's. */
	private void expectSameError(String what, Path t, String substring) throws Exception {
		Runner.Result one = r.post(t, "-j", "0", "--report", "summary");
		expectError(what + ", -j 0", one, substring);
		for (String j : new String[] { "1", "2", "3" }) {
			Runner.Result res = r.post(t, "-j", j, "--report", "summary");
			expectError(what + ", -j " + j, res, substring);
			r.check(res.errLines().equals(one.errLines()),
					what + ", -j " + j + ": the error of -j 0 expected: " + one.errLines() + ", got " + res.errLines());
		}
	}

	/* The tag byte of the first event of an events chunk in the middle of
	 * the file given reserved bits (CRC made valid again): the reader's
	 * error at that event, whoever decodes the chunk. */
	private void testMalformedEvent() throws Exception {
		Path t = r.trace("malformed-source", W + "Threads");
		byte[] all = Files.readAllBytes(t);
		List<Integer> ev = new ArrayList<>();
		for (int off : chunks(all))
			if (all[off + 4] == 2)
				ev.add(off);
		r.check(ev.size() >= 3, "a few events chunks expected, got " + ev.size());
		if (ev.size() < 3)
			return;
		int off = ev.get(ev.size() / 2), p = off + CHUNK_HEADER;
		while ((all[p] & 0x80) != 0) /* the thread's serial */
			p++;
		p += 2; /* its last byte, the metric count */
		byte[] bad = all.clone();
		bad[p] = (byte) (bad[p] | 0xc0);
		reseal(bad, off);
		expectSameError("a malformed event", write("malformed.bin", bad),
				"chunk at byte " + off + ": event 0 at payload byte " + (p - off - CHUNK_HEADER) + ": bad tag byte");
	}

	private Path write(String name, byte[] img) throws Exception {
		Path p = r.tmp.resolve(name);
		Files.write(p, img);
		return p;
	}

	/* The kind byte of every chunk changed (to an unknown kind and to the
	 * other known one): an error naming the chunk's CRC, every time. */
	private void testChunkKind() throws Exception {
		Path t = r.trace("kind-source", W + "Basic");
		byte[] all = Files.readAllBytes(t);
		Runner.Result ok = r.post(t, "--report", "summary");
		r.check(ok.rc == 0 && ok.out.contains("status:                complete"), "the source trace is complete: " + ok.err);
		List<Integer> offs = chunks(all);
		r.check(offs.size() >= 3, "a few chunks expected, got " + offs.size());
		int n = 0;
		for (int off : offs) {
			for (int v : new int[] { all[off + 4] ^ 1, all[off + 4] ^ 3, 0x41 }) {
				byte[] bad = all.clone();
				bad[off + 4] = (byte) v;
				expectError("kind of the chunk at byte " + off + " set to " + v,
						r.post(write("kind.bin", bad), "--report", "summary"),
						"chunk at byte " + off + ": CRC mismatch");
				n++;
			}
		}
		r.check(n == 3 * offs.size(), "every chunk tried");
	}

	/* END's event count one off (CRC made valid again): an error. */
	private void testEndCount() throws Exception {
		Path t = r.trace("end-source", W + "Basic");
		byte[] all = Files.readAllBytes(t);
		List<Integer> offs = chunks(all);
		int last = offs.get(offs.size() - 1);
		ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
		int end = last + CHUNK_HEADER + b.getInt(last + 8), endRec = -1;
		r.check(all[last + 4] == 1, "the last chunk holds records");
		for (int p = last + CHUNK_HEADER; p < end;) {
			int kind = all[p] & 0xff, len = 0, shift = 0, q = p + 1;
			while ((all[q] & 0x80) != 0) {
				len |= (all[q++] & 0x7f) << shift;
				shift += 7;
			}
			len |= (all[q++] & 0x7f) << shift;
			if (kind == 8)
				endRec = q;
			p = q + len;
		}
		r.check(endRec > 0, "an END record in the last chunk");
		if (endRec < 0)
			return;
		/* the low 7 bits of the events varint: +1 or -1 keeps its length */
		byte[] bad = all.clone();
		int low = bad[endRec] & 0x7f;
		bad[endRec] = (byte) ((bad[endRec] & 0x80) | (low == 0x7f ? low - 1 : low + 1));
		reseal(bad, last);
		expectSameError("END count changed", write("end.bin", bad), "END record: it counts");
		/* one thread more than the file's THREAD_START records (what an
		 * agent of 0.2.0 wrote when a thread started as a recording did):
		 * read, with a warning that says so */
		byte[] more = all.clone();
		int thr = endRec;
		while ((more[thr] & 0x80) != 0)
			thr++;
		thr++;
		if ((more[thr] & 0x7f) != 0x7f) {
			more[thr]++;
			reseal(more, last);
			Runner.Result res = r.post(write("threads.bin", more), "--report", "summary");
			r.check(res.rc == 0, "END counting one thread too many: exit 0 expected, got " + res.rc + ": "
					+ res.err);
			r.check(res.err.contains("the END record counts 1 more threads than the file has THREAD_START"),
					"END counting one thread too many: a warning expected, got: " + res.err);
		}
		/* the chunk kept but an events chunk dropped: the count tells */
		int drop = -1;
		for (int off : offs)
			if (all[off + 4] == 2)
				drop = off;
		r.check(drop > 0, "an events chunk");
		int dlen = CHUNK_HEADER + b.getInt(drop + 8);
		byte[] gap = new byte[all.length - dlen];
		System.arraycopy(all, 0, gap, 0, drop);
		System.arraycopy(all, drop + dlen, gap, drop, all.length - drop - dlen);
		expectSameError("an events chunk left out", write("gap.bin", gap), "END record: it counts");
	}

	/* A cut trace whose stop field says "file size limit": the warning and the
	 * summary say so, and not that the JVM died. */
	private void testStopField() throws Exception {
		Path t = r.trace("stop-source", W + "Loop");
		byte[] all = Files.readAllBytes(t);
		byte[] cut = Arrays.copyOf(all, all.length * 3 / 5);
		ByteBuffer.wrap(cut).order(ByteOrder.LITTLE_ENDIAN).putShort(STOP_OFFSET, (short) 2).putShort(STOP_OFFSET + 2,
				(short) ~2);
		Runner.Result res = r.post(write("stopped.bin", cut), "--report", "summary");
		String why = "the agent stopped writing: the file size limit was reached (ulimit -f)";
		r.check(res.rc == 0, "exit 0 expected: " + res.err);
		r.check(res.err.contains("jcal-post: warning: ") && res.err.contains("no END record: " + why),
				"the warning names the stop: " + res.err);
		r.check(!res.err.contains("did not shut down cleanly"), "no word of a JVM that died: " + res.err);
		r.check(res.out.contains("status:                truncated (read up to the last complete record; " + why + ")"),
				"summary status: " + res.out);
		/* a damaged stop field is corrupt */
		cut[STOP_OFFSET + 3] ^= 0x10;
		expectError("damaged stop field", r.post(write("stopped-bad.bin", cut)), "damaged stop field at byte 20");
	}

	/* The agent stops at a file size limit (ulimit -f): jcal-post reads what
	 * was written and says why the END is missing as far as the file tells,
	 * never plainly that the JVM did not shut down cleanly. */
	private void testSizeLimit() throws Exception {
		Path t = r.tmp.resolve("fsize.bin");
		int blocks = 2000; /* 1 MB, in the 512-byte units of sh's ulimit -f */
		List<String> cmd = new ArrayList<>(List.of("sh", "-c", "ulimit -f " + blocks + " && exec \"$@\"", "sh", r.java,
				"-agentpath:" + r.agent + "=trace,metric=tsc,out=" + t, "-cp", r.classes, W + "StressDiskFull"));
		Runner.Result run = r.run(r.tmp.toFile(), cmd);
		r.check(run.rc == 0 && run.out.contains("diskfull done"), "JVM under the limit: exit " + run.rc + ": " + run.err);
		byte[] img = Files.readAllBytes(t);
		r.check(img.length > FILE_HEADER && img.length <= blocks * 512, "trace within the limit: " + img.length);
		ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
		int reason = b.getShort(STOP_OFFSET) & 0xffff;
		r.check(reason == 2, "stop reason 2 (file size limit) expected: " + reason);
		Runner.Result res = r.post(t, "--report", "summary");
		r.check(res.rc == 0, "jcal-post exit 0: " + res.err);
		String why = reason == 2 ? "the agent stopped writing: the file size limit was reached (ulimit -f)"
				: "the JVM did not shut down cleanly, or the agent stopped writing without recording why";
		r.check(res.err.contains("no END record: " + why), "the warning says: " + why + "; got: " + res.err);
		r.check(!res.err.contains("the JVM did not shut down cleanly (no END record)"), "not the old claim: " + res.err);
		r.check(res.out.contains(why) && !res.out.contains("status:                complete"), "summary status: " + res.out);
		System.out.println("     stop reason in the file header: " + reason);
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		TraceIntegrity s = new TraceIntegrity(r);
		return new Runner.Tests()
				.add("integrity-chunk-kind", s::testChunkKind)
				.add("integrity-end-count", s::testEndCount)
				.add("integrity-malformed-event", s::testMalformedEvent)
				.add("integrity-stop-field", s::testStopField)
				.add("integrity-size-limit", s::testSizeLimit);
	}
}
