package kbf.probe;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;

/** One probe record's fate: a row of probe.csv. */
final class Msg {
  final int partition;
  final long seq;
  final Instant sent;
  long offset = -1; // -1 until acked
  Instant acked;
  Instant received;
  String err;

  Msg(int partition, long seq, Instant sent) {
    this.partition = partition;
    this.seq = seq;
    this.sent = sent;
  }

  /** kbf's time format: RFC 3339 in UTC, always nine fractional digits. */
  static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

  static String time(Instant t) {
    return t == null ? "" : TIME.format(t);
  }
}

/** One partition's bookkeeping. */
final class Part {
  long next;
  final Map<Long, Msg> pending = new HashMap<>();
  long lastSentNs;
  long sendGapNs; // the longest between two sends: the probe's own stall
}
