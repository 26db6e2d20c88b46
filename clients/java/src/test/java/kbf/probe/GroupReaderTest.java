package kbf.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupReaderTest {
  @Test
  void noGroupReaderByDefault() {
    Options o = Options.parse(new String[] {"--out", "d"});
    assertFalse(o.groupReader());
  }

  @Test
  void groupFlags() {
    Options o = Options.parse(new String[] {"--out=d", "--run-id=r1", "--consumer=group", "--group-protocol=consumer",
        "--commit=async", "--auto-commit-interval=2s"});
    assertTrue(o.groupReader());
    assertEquals("kbf-group-r1", o.group);
    assertEquals("consumer", o.groupProtocol);
    assertEquals("async", o.commit);
    assertEquals(Duration.ofSeconds(2), o.autoCommitInterval);
    o = Options.parse(new String[] {"--out=d", "--consumer=group", "--group=g-java"});
    assertEquals("g-java", o.group);
    assertEquals("classic", o.groupProtocol);
    assertEquals("sync", o.commit);
  }

  @Test
  void badGroupFlags() {
    String[][] cases = {
      {"--consumer=groups", "--consumer \"groups\": want assign or group"},
      {"--group-protocol=eager", "--group-protocol: only with --consumer group"},
      {"--commit=sync", "--commit: only with --consumer group"},
    };
    for (String[] c : cases) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.parse(new String[] {"--out=d", c[0]}));
      assertEquals(c[1], e.getMessage());
    }
    String[][] group = {
      {"--group-protocol=eager", "--group-protocol \"eager\": want classic or consumer"},
      {"--commit=never", "--commit \"never\": want sync, async or interval"},
      {"--auto-commit-interval=0", "--auto-commit-interval 0s: must be positive"},
    };
    for (String[] c : group) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Options.parse(new String[] {"--out=d", "--consumer=group", c[0]}));
      assertEquals(c[1], e.getMessage());
    }
  }

  @Test
  void settingsByProtocol() {
    Options o = Options.parse(new String[] {"--out=d", "--consumer=group", "--group=g", "--set=session.timeout.ms=10000"});
    Properties classic = GroupReader.settings(o, Main.consumerSettings(o));
    assertEquals("g", classic.get("group.id"));
    assertEquals("classic", classic.get("group.protocol"));
    assertEquals("false", classic.get("enable.auto.commit"));
    assertEquals("10000", classic.get("session.timeout.ms"));
    assertEquals("org.apache.kafka.clients.consumer.CooperativeStickyAssignor", classic.get("partition.assignment.strategy"));

    o = Options.parse(new String[] {"--out=d", "--consumer=group", "--group=g", "--group-protocol=consumer",
        "--set=session.timeout.ms=10000", "--set=heartbeat.interval.ms=1000"});
    Properties consumer = GroupReader.settings(o, Main.consumerSettings(o));
    assertEquals("consumer", consumer.get("group.protocol"));
    assertEquals("uniform", consumer.get("group.remote.assignor"));
    for (String k : GroupReader.consumerProtocolRefuses) {
      assertFalse(consumer.containsKey(k), k + " is set under group.protocol=consumer, which refuses it");
    }
    // The client itself accepts them: the group reader's consumer can be made.
    new org.apache.kafka.clients.consumer.ConsumerConfig(consumer);
  }

  // The rows kbf's results.GroupEncoder and GroupEventEncoder write (results/group.go).
  @Test
  void rows() {
    Instant start = Instant.parse("2026-11-30T03:26:09.087Z");
    Instant end = Instant.parse("2026-11-30T03:26:09.095Z");
    assertEquals("0,1042,0,2026-11-30T03:26:09.086500000Z\n",
        GroupReader.recordRow(0, 1042, 0, Instant.parse("2026-11-30T03:26:09.0865Z")));
    assertEquals("2026-11-30T03:26:09.095000000Z,assigned,,1,0 1 2,,\n",
        GroupReader.eventRow(end, "assigned", null, 1, Set.of(2, 0, 1), Map.of(), null));
    assertEquals("2026-11-30T03:26:09.095000000Z,commit,2026-11-30T03:26:09.087000000Z,1,,0:1043 1:1040,\n",
        GroupReader.eventRow(end, "commit", start, 1, Set.of(), Map.of(1, 1040L, 0, 1043L), null));
    assertEquals("2026-11-30T03:26:09.095000000Z,commit,2026-11-30T03:26:09.087000000Z,-1,,0:1050,"
            + "\"org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired, before committing\"\n",
        GroupReader.eventRow(end, "commit", start, -1, Set.of(), Map.of(0, 1050L),
            "org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired, before committing"));
  }

  // Every command line kbf's package clients writes for a probe (its golden file): the probe
  // takes each.
  @Test
  void kbfCommandLines() throws Exception {
    java.util.Map<String, java.util.List<String>> blocks = new java.util.LinkedHashMap<>();
    String name = "";
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("..", "testdata", "args.golden"))) {
      if (line.startsWith("\t")) {
        blocks.computeIfAbsent(name, k -> new java.util.ArrayList<>()).add(line.substring(1));
      } else if (!line.isEmpty()) {
        name = line.substring(0, line.length() - 1);
      }
    }
    assertTrue(blocks.containsKey("group reader, sync"), "no group reader's command line");
    for (java.util.Map.Entry<String, java.util.List<String>> e : blocks.entrySet()) {
      Options o = Options.parse(e.getValue().toArray(new String[0]));
      assertEquals(e.getKey().startsWith("group reader"), o.groupReader(), e.getKey());
    }
  }
}
