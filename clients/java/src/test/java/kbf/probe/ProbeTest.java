package kbf.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProbeTest {
  // The cells as Go's encoding/csv writes them (kbf's results.Encoder), line breaks as spaces.
  @Test
  void csvField() {
    String[][] cases = {
      {"plain", "plain"},
      {"with, comma", "\"with, comma\""},
      {"say \"hi\"", "\"say \"\"hi\"\"\""},
      {" leading space", "\" leading space\""},
      {"\\.", "\"\\.\""},
    };
    for (String[] c : cases) {
      assertEquals(c[1], Csv.field(c[0]), c[0]);
    }
  }

  @Test
  void csvFieldLineBreaksAndEmpty() {
    assertEquals("one two three", Csv.field("one\r\ntwo\nthree"));
    assertEquals("", Csv.field(null));
    assertEquals("", Csv.field(""));
  }

  @Test
  void csvRows(@TempDir Path dir) throws Exception {
    Path p = dir.resolve("probe.csv");
    Csv c = new Csv(p);
    Msg done = new Msg(0, 7, Instant.parse("2026-11-30T03:26:09.080123456Z"));
    done.offset = 1042;
    done.acked = Instant.parse("2026-11-30T03:26:09.084Z");
    done.received = Instant.parse("2026-11-30T03:26:09.086311Z");
    Msg failed = new Msg(1, 0, Instant.parse("2026-11-30T03:26:09.08013Z"));
    failed.err = "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s), 300000 ms";
    c.write(done);
    c.write(failed);
    c.close();
    assertEquals(
        "partition,seq,offset,sent,acked,received,error\n"
            + "0,7,1042,2026-11-30T03:26:09.080123456Z,2026-11-30T03:26:09.084000000Z,2026-11-30T03:26:09.086311000Z,\n"
            + "1,0,,2026-11-30T03:26:09.080130000Z,,,\"org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s), 300000 ms\"\n",
        Files.readString(p));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"20ms, 20000000", "1.5s, 1500000000", "1m30s, 90000000000", "0, 0", "0s, 0", "500µs, 500000", "2h, 7200000000000"})
  void durations(String in, long ns) {
    assertEquals(Duration.ofNanos(ns), Options.duration("--interval", in));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"5", "20 ms", "ms", "-1s"})
  void badDurations(String in) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.duration("--interval", in));
    assertTrue(e.getMessage().contains("want a duration such as 20ms"), e.getMessage());
  }

  // Go's time.Duration.String, which client.json's readers parse back.
  @ParameterizedTest(name = "{1}")
  @CsvSource({"0, 0s", "999, 999ns", "1500, 1.5µs", "20000000, 20ms", "1500000, 1.5ms", "5000000000, 5s",
      "1500000000, 1.5s", "90000000000, 1m30s", "3600000000000, 1h0m0s"})
  void goDurations(long ns, String want) {
    assertEquals(want, Info.goDuration(ns));
  }

  @Test
  void options() {
    Options o = Options.parse(new String[] {"--bootstrap=a:1,b:2", "--topic", "t", "--partitions=2,0", "--interval=1.5ms",
        "--acks=1", "--duration=1m30s", "--out=d", "--run-id=r1", "--start-offsets=0:1042,2:998", "--drain=2s",
        "--set=request.timeout.ms=20000"});
    assertEquals("a:1,b:2", o.bootstrap);
    assertEquals("t", o.topic);
    assertEquals(List.of(2, 0), o.partitions);
    assertEquals(Duration.ofNanos(1_500_000), o.interval);
    assertEquals("1", o.acks);
    assertEquals(Duration.ofSeconds(90), o.duration);
    assertEquals(Path.of("d"), o.out);
    assertEquals("r1", o.runId);
    assertEquals(Map.of(0, 1042L, 2, 998L), o.startOffsets);
    assertEquals(Duration.ofSeconds(2), o.drain);
    assertEquals("20000", o.set.getProperty("request.timeout.ms"));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiterString = " => ",
      textBlock =
          """
          --topic t => --out is required
          --out d --acks 0 => '--acks "0": want all or 1'
          --out d --interval 0s => '--interval 0s: must be positive'
          --out d --partitions 0,x => '--partitions: "x" is not a partition number'
          --out d --partitions 1,1 => '--partitions: partition 1 given twice'
          --out d --start-offsets 0=5 => '--start-offsets: "0=5": want partition:offset'
          --out d --partitions 0 --start-offsets 1:5 => 'names partition 1, which --partitions does not'
          --out d --set debug => '--set: want name=value, got "debug"'
          --out d extra => 'unexpected argument "extra"'
          --out d --linger 5ms => 'unknown flag --linger'
          --out => 'flag needs an argument: --out'
          """)
  void badOptions(String args, String want) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.parse(args.split(" ")));
    assertTrue(e.getMessage().contains(want), e.getMessage());
  }

  @Test
  void valueIsTheFranzGoProbes() {
    Instant sent = Instant.parse("2026-11-30T03:26:09.080123456Z");
    byte[] b = Value.encode("0a1b2c", 2, 41, sent);
    assertEquals("kbf1 0a1b2c 2 41 1796009169080123456", new String(b, StandardCharsets.UTF_8));
    Value v = Value.decode(b);
    assertEquals("0a1b2c", v.runId);
    assertEquals(2, v.partition);
    assertEquals(41, v.seq);
    for (String bad : new String[] {"", "kbf1 r 0 1", "kbf2 r 0 1 2", "kbf1 r x 1 2"}) {
      assertNull(Value.decode(bad.getBytes(StandardCharsets.UTF_8)), bad);
    }
  }

  @Test
  void clientLogNames() {
    assertEquals("producer", ClientLog.client("[Producer clientId=kbf-java-producer] Updating", "main"));
    assertEquals("consumer", ClientLog.client("[Consumer clientId=kbf-java-consumer, groupId=null] Added", "kbf-consumer"));
    assertEquals("producer", ClientLog.client("Kafka version: 4.3.1", "kafka-producer-network-thread | kbf-java-producer"));
    assertEquals("client", ClientLog.client("Kafka version: 4.3.1", "main"));
    assertEquals("DEBUG", ClientLog.level(Level.FINE));
    assertEquals("DEBUG", ClientLog.level(Level.FINEST));
    assertEquals("INFO", ClientLog.level(Level.INFO));
    assertEquals("WARN", ClientLog.level(Level.WARNING));
    assertEquals("ERROR", ClientLog.level(Level.SEVERE));
  }

  @Test
  void commandConfigReachesBothClientsButNotClientJson(@TempDir Path dir) throws Exception {
    String password = "pa55-not-in-client-json";
    Path props = dir.resolve("client.properties");
    Files.writeString(props, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username\\=\"alice\" password\\=\"" + password + "\";\n"
        + "ssl.truststore.location=/ca.pem\nssl.truststore.type=PEM\nssl.keystore.password=" + password + "\n");
    Options o = Options.parse(new String[] {"--out=d", "--command-config", props.toString(), "--set=sasl.mechanism=SCRAM-SHA-256"});
    for (java.util.Properties p : List.of(Main.producerSettings(o), Main.consumerSettings(o))) {
      assertEquals("SASL_SSL", p.getProperty("security.protocol"));
      assertEquals("SCRAM-SHA-256", p.getProperty("sasl.mechanism"), "--set is over --command-config");
      assertTrue(p.getProperty("sasl.jaas.config").contains(password), "the client is given the password");
      Map<String, String> shown = Main.effective(Map.of(), p);
      assertEquals("SASL_SSL", shown.get("security.protocol"));
      assertEquals("/ca.pem", shown.get("ssl.truststore.location"));
      for (String k : List.of("sasl.jaas.config", "ssl.keystore.password")) {
        assertNull(shown.get(k), k + " would be in client.json");
      }
      assertTrue(!shown.toString().contains(password), "client.json would hold the password: " + shown);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--out=d", "--command-config", dir.resolve("none").toString()}));
    assertTrue(e.getMessage().startsWith("--command-config: "), e.getMessage());
  }

  @Test
  void bothClientsShareTheProbesSettingsAndSetIsOverThem() throws Exception {
    Options o = Options.parse(new String[] {"--out=d", "--bootstrap=k1:9092", "--set=request.timeout.ms=5000"});
    java.util.Properties producer = Main.producerSettings(o);
    java.util.Properties consumer = Main.consumerSettings(o);
    assertEquals("kbf-java-producer", producer.getProperty("client.id"));
    assertEquals("kbf-java-consumer", consumer.getProperty("client.id"));
    for (java.util.Properties p : List.of(producer, consumer)) {
      assertEquals("k1:9092", p.getProperty("bootstrap.servers"));
      assertEquals("100", p.getProperty("retry.backoff.ms"));
      assertEquals("1000", p.getProperty("retry.backoff.max.ms"));
      assertEquals("300000", p.getProperty("metadata.max.age.ms"));
      assertEquals("5000", p.getProperty("request.timeout.ms"), "--set is over the probe's own");
    }
    assertEquals("0", producer.getProperty("linger.ms"));
    assertNull(consumer.getProperty("linger.ms"), "the producer's settings stay the producer's");
    assertEquals("false", consumer.getProperty("allow.auto.create.topics"));
    assertNull(producer.getProperty("allow.auto.create.topics"), "the consumer's settings stay the consumer's");
  }
}
