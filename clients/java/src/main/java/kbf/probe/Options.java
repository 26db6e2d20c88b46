package kbf.probe;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The probe's command line, the one every kbf reference probe takes (clients/README.md). */
final class Options {
  String bootstrap = "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094";
  String topic = "orders";
  final List<Integer> partitions = new ArrayList<>(); // empty: every partition of the topic
  Duration interval = Duration.ofMillis(20);
  String acks = "all";
  Duration duration = Duration.ZERO; // zero: until signalled
  Path out;
  String runId = "";
  final Map<Integer, Long> startOffsets = new HashMap<>(); // absent: the log's end at start
  Duration drain = Duration.ofSeconds(5);
  final Properties set = new Properties(); // client settings over the probe's
  // The security settings of --command-config (Kafka's own names): under --set, over the probe's.
  final Properties commandConfig = new Properties();
  // The group reader's (--consumer group): kbf's names, taken by the Java client's settings in
  // GroupReader.settings.
  String consumer = "assign";
  String group = ""; // empty: kbf-group-<run id>
  String groupProtocol = "classic";
  String commit = "sync";
  Duration autoCommitInterval = Duration.ofSeconds(1);
  private final List<String> groupFlags = new ArrayList<>();

  /** Whether the probe runs a group reader beside its own. */
  boolean groupReader() {
    return consumer.equals("group");
  }

  static final String USAGE =
      "usage: kbf-probe-java --out DIR [--bootstrap H:P,...] [--topic T] [--partitions 0,1]\n"
          + "       [--interval 20ms] [--acks all|1] [--duration 0] [--run-id ID]\n"
          + "       [--start-offsets P:O,...] [--drain 5s] [--set name=value]...\n"
          + "       [--command-config FILE] [--consumer assign|group] [--group ID]\n"
          + "       [--group-protocol classic|consumer] [--commit sync|async|interval]\n"
          + "       [--auto-commit-interval 1s]\n";

  static final class Help extends RuntimeException {
    Help() {
      super("help");
    }
  }

  static Options parse(String[] args) {
    Options o = new Options();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("-h") || a.equals("--help") || a.equals("-help")) {
        throw new Help();
      }
      if (!a.startsWith("-")) {
        throw new IllegalArgumentException("unexpected argument \"" + a + "\"");
      }
      String name = a.replaceFirst("^--?", "");
      String val;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        val = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("flag needs an argument: --" + name);
        }
        val = args[++i];
      }
      switch (name) {
        case "bootstrap" -> o.bootstrap = val;
        case "topic" -> o.topic = val;
        case "partitions" -> o.partitions.addAll(partitions(val));
        case "interval" -> o.interval = duration("--interval", val);
        case "acks" -> o.acks = val;
        case "duration" -> o.duration = duration("--duration", val);
        case "out" -> o.out = Path.of(val);
        case "run-id" -> o.runId = val;
        case "start-offsets" -> o.startOffsets.putAll(startOffsets(val));
        case "drain" -> o.drain = duration("--drain", val);
        case "consumer" -> o.consumer = val;
        case "group" -> o.group = o.groupFlag(name, val);
        case "group-protocol" -> o.groupProtocol = o.groupFlag(name, val);
        case "commit" -> o.commit = o.groupFlag(name, val);
        case "auto-commit-interval" -> o.autoCommitInterval = duration("--auto-commit-interval", o.groupFlag(name, val));
        case "command-config" -> {
          try (java.io.InputStream in = java.nio.file.Files.newInputStream(Path.of(val))) {
            o.commandConfig.load(in);
          } catch (java.io.IOException | IllegalArgumentException ex) {
            throw new IllegalArgumentException("--command-config: " + val + ": " + ex.getMessage());
          }
        }
        case "set" -> {
          int e = val.indexOf('=');
          if (e <= 0) {
            throw new IllegalArgumentException("--set: want name=value, got \"" + val + "\"");
          }
          o.set.put(val.substring(0, e), val.substring(e + 1));
        }
        default -> throw new IllegalArgumentException("unknown flag --" + name + " (--help lists them)");
      }
    }
    if (o.out == null) {
      throw new IllegalArgumentException("--out is required: the directory to write probe.csv, client.log and client.json to");
    }
    if (o.bootstrap.isBlank()) {
      throw new IllegalArgumentException("--bootstrap is empty: give host:port,...");
    }
    if (o.topic.isEmpty()) {
      throw new IllegalArgumentException("--topic is empty");
    }
    if (o.interval.isZero() || o.interval.isNegative()) {
      throw new IllegalArgumentException("--interval " + Info.goDuration(o.interval.toNanos()) + ": must be positive");
    }
    if (!o.acks.equals("all") && !o.acks.equals("1")) {
      throw new IllegalArgumentException("--acks \"" + o.acks + "\": want all or 1");
    }
    if (o.runId.isEmpty()) {
      o.runId = Value.newRunId();
    }
    if (o.runId.matches(".*\\s.*")) {
      throw new IllegalArgumentException("--run-id \"" + o.runId + "\": must not contain spaces");
    }
    for (int p : o.startOffsets.keySet()) {
      if (!o.partitions.isEmpty() && !o.partitions.contains(p)) {
        throw new IllegalArgumentException("--start-offsets names partition " + p + ", which --partitions does not");
      }
    }
    o.checkGroup();
    return o;
  }

  private String groupFlag(String name, String val) {
    groupFlags.add(name);
    return val;
  }

  /** Checks the group reader's flags: each a value kbf knows, and none without --consumer group. */
  private void checkGroup() {
    if (consumer.equals("assign")) {
      if (!groupFlags.isEmpty()) {
        throw new IllegalArgumentException("--" + groupFlags.get(0) + ": only with --consumer group");
      }
      return;
    }
    if (!consumer.equals("group")) {
      throw new IllegalArgumentException("--consumer \"" + consumer + "\": want assign or group");
    }
    if (!groupProtocol.equals("classic") && !groupProtocol.equals("consumer")) {
      throw new IllegalArgumentException("--group-protocol \"" + groupProtocol + "\": want classic or consumer");
    }
    if (!commit.equals("sync") && !commit.equals("async") && !commit.equals("interval")) {
      throw new IllegalArgumentException("--commit \"" + commit + "\": want sync, async or interval");
    }
    if (autoCommitInterval.isZero() || autoCommitInterval.isNegative()) {
      throw new IllegalArgumentException("--auto-commit-interval " + Info.goDuration(autoCommitInterval.toNanos()) + ": must be positive");
    }
    if (group.matches(".*\\s.*")) {
      throw new IllegalArgumentException("--group \"" + group + "\": must not contain spaces");
    }
    if (group.isEmpty()) {
      group = "kbf-group-" + runId; // a group of its own: nothing committed yet
    }
  }

  static List<Integer> partitions(String s) {
    List<Integer> out = new ArrayList<>();
    if (s.isBlank()) {
      return out;
    }
    for (String f : s.split(",")) {
      int p;
      try {
        p = Integer.parseInt(f.trim());
      } catch (NumberFormatException e) {
        p = -1;
      }
      if (p < 0) {
        throw new IllegalArgumentException("--partitions: \"" + f + "\" is not a partition number");
      }
      if (out.contains(p)) {
        throw new IllegalArgumentException("--partitions: partition " + p + " given twice");
      }
      out.add(p);
    }
    return out;
  }

  static Map<Integer, Long> startOffsets(String s) {
    Map<Integer, Long> out = new HashMap<>();
    if (s.isBlank()) {
      return out;
    }
    for (String f : s.split(",")) {
      Matcher m = Pattern.compile("\\s*(\\d+):(\\d+)\\s*").matcher(f);
      if (!m.matches()) {
        throw new IllegalArgumentException("--start-offsets: \"" + f + "\": want partition:offset, e.g. 0:1042");
      }
      int p = Integer.parseInt(m.group(1));
      if (out.put(p, Long.parseLong(m.group(2))) != null) {
        throw new IllegalArgumentException("--start-offsets: partition " + p + " given twice");
      }
    }
    return out;
  }

  private static final Pattern DURATION = Pattern.compile("((\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h))+");
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

  /** Reads a duration as Go writes one (20ms, 1.5s, 1m30s, 0), the flag syntax kbf uses. */
  static Duration duration(String flag, String s) {
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (!DURATION.matcher(s).matches()) {
      throw new IllegalArgumentException(flag + " \"" + s + "\": want a duration such as 20ms, 1.5s or 1m30s");
    }
    double ns = 0;
    Matcher m = PART.matcher(s);
    while (m.find()) {
      double v = Double.parseDouble(m.group(1));
      ns += v * switch (m.group(2)) {
        case "ns" -> 1;
        case "us", "µs" -> 1e3;
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        default -> 3600e9;
      };
    }
    return Duration.ofNanos(Math.round(ns));
  }
}
