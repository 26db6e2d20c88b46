package kbf.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/** client.json: what ran and with which settings, by the Java client's own names. */
final class Info {
  final Options o;
  final Map<String, String> producer;
  final Map<String, String> consumer;
  Map<String, String> group; // the group reader's settings; null without one
  final Instant started = Instant.now();
  Instant ended;
  long longestSendGapNs;

  Info(Options o, Map<String, String> producer, Map<String, String> consumer) {
    this.o = o;
    this.producer = producer;
    this.consumer = consumer;
  }

  /** Writes the file atomically: a reader sees the old one or the new, never half of one. */
  void write(Path path) throws IOException {
    StringBuilder b = new StringBuilder("{\n");
    field(b, "client", "java").append(",\n");
    field(b, "version", Main.version()).append(",\n");
    field(b, "library", "org.apache.kafka:kafka-clients " + Main.version() + ", Java " + System.getProperty("java.version")).append(",\n");
    b.append("  \"producer\": ");
    map(b, producer).append(",\n  \"consumer\": ");
    map(b, consumer).append(",\n");
    if (group != null) {
      b.append("  \"group\": ");
      map(b, group).append(",\n");
    }
    field(b, "topic", o.topic).append(",\n");
    b.append("  \"partitions\": ").append(o.partitions).append(",\n");
    field(b, "interval", goDuration(o.interval.toNanos())).append(",\n");
    field(b, "acks", o.acks).append(",\n");
    field(b, "run_id", o.runId).append(",\n");
    b.append("  \"start_offsets\": {");
    int i = 0;
    for (Map.Entry<Integer, Long> e : new TreeMap<>(o.startOffsets).entrySet()) {
      b.append(i++ > 0 ? ", " : "").append(quote(String.valueOf(e.getKey()))).append(": ").append(e.getValue());
    }
    b.append("},\n");
    field(b, "drain", goDuration(o.drain.toNanos())).append(",\n");
    field(b, "started", Msg.time(started));
    if (ended != null) {
      field(b.append(",\n"), "ended", Msg.time(ended));
    }
    if (longestSendGapNs > 0) {
      b.append(",\n  \"longest_send_gap_ns\": ").append(longestSendGapNs);
    }
    b.append("\n}\n");
    Path tmp = Files.createTempFile(path.getParent(), ".tmp-", "-" + path.getFileName(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    try {
      Files.write(tmp, b.toString().getBytes(StandardCharsets.UTF_8));
      Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  static StringBuilder field(StringBuilder b, String k, String v) {
    return b.append("  ").append(quote(k)).append(": ").append(quote(v));
  }

  static StringBuilder map(StringBuilder b, Map<String, String> m) {
    b.append("{");
    int i = 0;
    for (Map.Entry<String, String> e : new TreeMap<>(m).entrySet()) {
      b.append(i++ > 0 ? ",\n    " : "\n    ").append(quote(e.getKey())).append(": ").append(quote(e.getValue()));
    }
    return b.append(m.isEmpty() ? "}" : "\n  }");
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /** Writes a duration as Go's time.Duration.String does (20ms, 1.5s, 1m30s), for client.json's readers. */
  static String goDuration(long ns) {
    if (ns == 0) {
      return "0s";
    }
    if (ns < 0) {
      return "-" + goDuration(-ns);
    }
    if (ns < 1_000L) {
      return ns + "ns";
    }
    if (ns < 1_000_000L) {
      return dec(ns, 3) + "µs";
    }
    if (ns < 1_000_000_000L) {
      return dec(ns, 6) + "ms";
    }
    long h = ns / 3_600_000_000_000L;
    long m = ns % 3_600_000_000_000L / 60_000_000_000L;
    String s = dec(ns % 60_000_000_000L, 9) + "s";
    return h > 0 ? h + "h" + m + "m" + s : m > 0 ? m + "m" + s : s;
  }

  private static String dec(long v, int scale) {
    return java.math.BigDecimal.valueOf(v, scale).stripTrailingZeros().toPlainString();
  }
}
