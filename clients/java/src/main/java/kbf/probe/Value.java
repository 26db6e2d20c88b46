package kbf.probe;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;

/**
 * A record's value is the franz-go probe's (kbf's probe/value.go), so kbf's read-back and audit
 * read every probe's records alike: {@code kbf1 <run id> <partition> <seq> <sent, Unix ns>}.
 */
final class Value {
  static final String MAGIC = "kbf1";
  final String runId;
  final int partition;
  final long seq;

  Value(String runId, int partition, long seq) {
    this.runId = runId;
    this.partition = partition;
    this.seq = seq;
  }

  static byte[] encode(String runId, int partition, long seq, Instant sent) {
    long ns = sent.getEpochSecond() * 1_000_000_000L + sent.getNano();
    return (MAGIC + " " + runId + " " + partition + " " + seq + " " + ns).getBytes(StandardCharsets.UTF_8);
  }

  /** Returns null for a value that is not a probe record's. */
  static Value decode(byte[] b) {
    if (b == null) {
      return null;
    }
    String[] f = new String(b, StandardCharsets.UTF_8).trim().split("\\s+");
    if (f.length != 5 || !f[0].equals(MAGIC)) {
      return null;
    }
    try {
      Long.parseLong(f[4]);
      return new Value(f[1], Integer.parseInt(f[2]), Long.parseLong(f[3]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static String newRunId() {
    byte[] b = new byte[6];
    new SecureRandom().nextBytes(b);
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }
}
