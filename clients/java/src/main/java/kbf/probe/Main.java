// kbf's reference probe for the Java client (kafka-clients). For each partition it produces
// one record every --interval, on an absolute schedule, and reads the same partitions back in
// the same process from the offsets where their logs ended when it started. It writes kbf's
// probe format to DIR/probe.csv, the client's own log to DIR/client.log and what it ran with to
// DIR/client.json; clients/README.md is the contract the three probes share.
package kbf.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.AppInfoParser;

public final class Main {
  static final String PRODUCER_ID = "kbf-java-producer";
  static final String CONSUMER_ID = "kbf-java-consumer";

  public static void main(String[] argv) {
    Options o;
    try {
      o = Options.parse(argv);
    } catch (Options.Help h) {
      System.err.print(Options.USAGE);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("kbf-probe-java: " + e.getMessage());
      System.exit(2);
      return;
    }
    // SIGTERM and SIGINT run the shutdown hooks: the hook asks the probe to stop, holds the
    // JVM until everything measured is written, and exits with the probe's status rather than
    // the JVM's 143 for a signal: a stop by signal is the probe's normal end.
    Probe p = new Probe(o);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger rc = new AtomicInteger();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  p.stop();
                  try {
                    done.await(o.drain.toMillis() + 10_000, TimeUnit.MILLISECONDS);
                  } catch (InterruptedException ignored) {
                    // exit now
                  }
                  System.err.flush();
                  Runtime.getRuntime().halt(done.getCount() == 0 ? rc.get() : 1);
                },
                "kbf-shutdown"));
    try {
      p.run();
    } catch (Exception e) {
      System.err.println("kbf-probe-java: " + message(e));
      rc.set(1);
    } finally {
      done.countDown();
    }
    if (rc.get() != 0 && !p.stopping) {
      System.exit(rc.get());
    }
  }

  static String message(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (b.length() > 0) {
        b.append(": ");
      }
      b.append(t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName());
    }
    return b.toString();
  }

  /** The probe's own run: the send loop, the ack callbacks and the consumer. */
  static final class Probe {
    final Options o;
    volatile boolean stopping;
    final Object mu = new Object();
    final Map<Integer, Part> parts = new TreeMap<>();
    boolean closing; // past the drain: late callbacks are not recorded
    Csv csv;
    ClientLog log;
    KafkaProducer<byte[], byte[]> producer;
    KafkaConsumer<byte[], byte[]> consumer;
    volatile GroupReader group; // null without --consumer group
    volatile Thread sender;

    Probe(Options o) {
      this.o = o;
    }

    void stop() {
      stopping = true;
      Thread t = sender;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }

    void run() throws Exception {
      Files.createDirectories(o.out);
      csv = new Csv(o.out.resolve("probe.csv"));
      log = ClientLog.install(o.out.resolve("client.log"));
      java.util.concurrent.ScheduledExecutorService flusher =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "kbf-flush");
                t.setDaemon(true);
                return t;
              });
      // Whole lines at least once a second, so a probe killed outright loses at most that.
      flusher.scheduleAtFixedRate(this::flush, 1, 1, TimeUnit.SECONDS);
      try {
        probe();
      } finally {
        flusher.shutdownNow();
        flusher.awaitTermination(2, TimeUnit.SECONDS);
        flush();
        csv.close();
        log.close();
      }
    }

    void flush() {
      try {
        synchronized (mu) {
          csv.flush();
        }
        GroupReader g = group;
        if (g != null) {
          g.flush();
        }
        log.flush();
      } catch (IOException e) {
        System.err.println("kbf-probe-java: write results: " + e.getMessage());
      }
    }

    void probe() throws Exception {
      Properties pp = producerSettings(o);
      Properties cp = consumerSettings(o);
      consumer = new KafkaConsumer<>(cp);
      try {
        try {
          resolve();
        } catch (RuntimeException e) {
          throw new IllegalStateException(message(e) + " (is the cluster up? kbf up starts it)");
        }
        producer = new KafkaProducer<>(pp);
        // The first send() blocks until the producer has the topic's metadata; fetch it now so
        // the schedule's first tick is not late.
        producer.partitionsFor(o.topic);
        Info info = new Info(o, effective(new ProducerConfig(pp).values(), pp), effective(new ConsumerConfig(cp).values(), cp));
        Thread groupThread = null;
        if (o.groupReader()) {
          Properties gp = GroupReader.settings(o, cp);
          GroupReader g = new GroupReader(o);
          g.open(o.out, gp);
          group = g;
          info.group = effective(new ConsumerConfig(gp).values(), gp);
          groupThread = new Thread(g::run, "kbf-group");
          groupThread.start();
        }
        info.write(o.out.resolve("client.json"));

        List<TopicPartition> tps = new ArrayList<>();
        for (int p : o.partitions) {
          tps.add(new TopicPartition(o.topic, p));
        }
        consumer.assign(tps);
        for (TopicPartition tp : tps) {
          consumer.seek(tp, o.startOffsets.get(tp.partition()));
        }
        Thread reader = new Thread(this::consume, "kbf-consumer");
        readerStarted = true;
        reader.start();
        // The producer's leaders are watched on a thread of their own: partitionsFor can block
        // (up to max.block.ms) when the topic is missing from the producer's metadata, and
        // neither the sends nor the reads may wait for it.
        Thread watcher = new Thread(this::watchProducerLeaders, "kbf-leaders");
        watcher.setDaemon(true);
        watcher.start();
        send();

        long drainEnd = System.nanoTime() + o.drain.toNanos();
        waitFor(drainEnd, true);
        waitFor(drainEnd, false);
        synchronized (mu) {
          closing = true;
        }
        if (groupThread != null) {
          group.halt();
          groupThread.join(5000);
          group.close();
        }
        // Close at once: what is still queued would hold close() on a dead broker; its rows
        // are written as never acked.
        producer.close(Duration.ZERO);
        reader.interrupt();
        consumer.wakeup();
        reader.join(5000);
        synchronized (mu) {
          for (Part ps : parts.values()) {
            info.longestSendGapNs = Math.max(info.longestSendGapNs, ps.sendGapNs);
            for (Msg m : ps.pending.values()) {
              csv.write(m);
            }
            ps.pending.clear();
          }
        }
        info.ended = Instant.now();
        info.write(o.out.resolve("client.json"));
      } finally {
        if (producer != null) {
          producer.close(Duration.ZERO);
        }
        // The reader thread owns the consumer once it runs, and closes it itself.
        if (!readerStarted) {
          consumer.close(Duration.ZERO);
        }
      }
    }

    boolean readerStarted;

    /** Finds the partitions when none were given, and where their logs end now. */
    void resolve() {
      List<PartitionInfo> infos = consumer.partitionsFor(o.topic, Duration.ofSeconds(10));
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + o.topic + " does not exist");
      }
      Map<Integer, Integer> leaders = new HashMap<>();
      for (PartitionInfo pi : infos) {
        leaders.put(pi.partition(), pi.leader() == null ? -1 : pi.leader().id());
      }
      if (o.partitions.isEmpty()) {
        o.partitions.addAll(new TreeMap<>(leaders).keySet());
      }
      List<TopicPartition> need = new ArrayList<>();
      for (int p : o.partitions) {
        if (!leaders.containsKey(p)) {
          throw new IllegalStateException(o.topic + " has no partition " + p + " (it has " + leaders.size() + ")");
        }
        parts.put(p, new Part());
        if (!o.startOffsets.containsKey(p)) {
          need.add(new TopicPartition(o.topic, p));
        }
      }
      if (!need.isEmpty()) {
        for (Map.Entry<TopicPartition, Long> e : consumer.endOffsets(need, Duration.ofSeconds(10)).entrySet()) {
          o.startOffsets.put(e.getKey().partition(), e.getValue());
        }
      }
    }

    /**
     * Produces one record per partition at start + k·interval until stopped. A send loop that
     * falls behind skips the ticks it missed rather than bursting, so the records keep their
     * spacing.
     */
    void send() {
      sender = Thread.currentThread();
      long start = System.nanoTime();
      long interval = o.interval.toNanos();
      long end = o.duration.isZero() ? Long.MAX_VALUE : start + o.duration.toNanos();
      long k = 0;
      while (!stopping) {
        for (int p : o.partitions) {
          produce(p);
        }
        long now = System.nanoTime();
        k = Math.max(k + 1, (now - start) / interval + 1);
        long next = start + k * interval;
        if (next >= end) {
          LockSupport.parkNanos(Math.max(0, end - now));
          return;
        }
        while (!stopping && (now = System.nanoTime()) < next) {
          LockSupport.parkNanos(next - now);
        }
      }
    }

    void produce(int partition) {
      Msg m;
      Part ps;
      synchronized (mu) {
        ps = parts.get(partition);
        long now = System.nanoTime();
        m = new Msg(partition, ps.next++, Instant.now());
        ps.pending.put(m.seq, m);
        if (ps.lastSentNs != 0) {
          ps.sendGapNs = Math.max(ps.sendGapNs, now - ps.lastSentNs);
        }
        ps.lastSentNs = now;
      }
      byte[] value = Value.encode(o.runId, partition, m.seq, m.sent);
      final Part fps = ps;
      try {
        producer.send(
            new ProducerRecord<>(o.topic, partition, null, value),
            (md, err) -> {
              Instant now = Instant.now();
              synchronized (mu) {
                if (closing || fps.pending.get(m.seq) != m) {
                  return;
                }
                if (err != null) {
                  m.err = err.toString(); // kept until the end: a failed record may yet be read
                  return;
                }
                m.acked = now;
                m.offset = md.offset();
                maybeDone(fps, m);
              }
            });
      } catch (RuntimeException e) {
        synchronized (mu) {
          m.err = e.toString();
        }
      }
    }

    /** Reads the probed partitions until interrupted, and notes each leader change it sees. */
    void consume() {
      Map<Integer, Integer> consLeaders = new HashMap<>();
      try {
        while (!Thread.currentThread().isInterrupted()) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(10))) {
            Instant now = Instant.now();
            Value v = Value.decode(r.value());
            if (v == null || !v.runId.equals(o.runId) || v.partition != r.partition()) {
              continue;
            }
            synchronized (mu) {
              Part ps = parts.get(v.partition);
              Msg m = ps == null || closing ? null : ps.pending.get(v.seq);
              if (m != null && m.received == null) {
                m.received = now;
                maybeDone(ps, m);
              }
            }
          }
          noteLeaders("consumer", consumer.partitionsFor(o.topic), consLeaders);
        }
      } catch (org.apache.kafka.common.errors.WakeupException | org.apache.kafka.common.errors.InterruptException e) {
        // stopping
      } catch (RuntimeException e) {
        if (!stopping) {
          log.line(Instant.now(), "ERROR", "consumer", "kbf consumer stopped: " + e);
        }
      } finally {
        consumer.close(Duration.ZERO);
      }
    }

    /** Notes the producer's leader changes every 10 ms until the producer closes. */
    void watchProducerLeaders() {
      Map<Integer, Integer> seen = new HashMap<>();
      while (!closingNow()) {
        try {
          noteLeaders("producer", producer.partitionsFor(o.topic), seen);
        } catch (RuntimeException e) {
          return; // closed
        }
        LockSupport.parkNanos(10_000_000L);
      }
    }

    boolean closingNow() {
      synchronized (mu) {
        return closing;
      }
    }

    /**
     * Logs a line when a client's cached metadata names a new leader for a probed partition. The
     * client logs its metadata updates itself (Metadata at DEBUG) but not as one leader per line;
     * this reads its cache, which costs no request: the producer's every 10 ms, the consumer's
     * after every poll (at most 10 ms apart when idle).
     */
    void noteLeaders(String client, List<PartitionInfo> infos, Map<Integer, Integer> seen) {
      if (infos == null) {
        return;
      }
      Instant now = Instant.now();
      for (PartitionInfo pi : infos) {
        if (!parts.containsKey(pi.partition())) {
          continue;
        }
        int leader = pi.leader() == null ? -1 : pi.leader().id();
        Integer old = seen.put(pi.partition(), leader);
        if (old != null && old != leader) {
          log.line(now, "INFO", client, "kbf cached leader changed topic=" + o.topic + " partition=" + pi.partition()
              + " new_leader=" + leader + " old_leader=" + old);
        }
      }
    }

    void maybeDone(Part ps, Msg m) {
      if (m.acked == null || m.received == null || m.err != null) {
        return;
      }
      ps.pending.remove(m.seq);
      csv.write(m);
    }

    /** Waits until every record is acknowledged (acks) or every acknowledged one read. */
    void waitFor(long deadline, boolean acks) throws InterruptedException {
      while (System.nanoTime() < deadline) {
        boolean waiting = false;
        synchronized (mu) {
          for (Part ps : parts.values()) {
            for (Msg m : ps.pending.values()) {
              if (acks ? m.acked == null && m.err == null : m.acked != null && m.received == null) {
                waiting = true;
                break;
              }
            }
          }
        }
        if (!waiting) {
          return;
        }
        Thread.sleep(10);
      }
    }
  }

  /**
   * The producer's settings: the franz-go probe's where the Java client has an equivalent, so a
   * difference in a stall is the client's rules, not its tuning. Idempotence stays at the
   * client's default (on for acks=all, off for acks=1).
   */
  static Properties producerSettings(Options o) {
    Properties p = commonSettings(o, PRODUCER_ID);
    p.put(ProducerConfig.ACKS_CONFIG, o.acks);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    // The franz-go probe's limit: 5 per broker idempotent (acks=all, the client's default), 1
    // without.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, o.acks.equals("1") ? "1" : "5");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return overridden(p, o);
  }

  static Properties consumerSettings(Options o) {
    Properties p = commonSettings(o, CONSUMER_ID);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // A probe of a topic that does not exist must not create it: a broker at its defaults
    // creates any topic a client asks about. (The producer, which always may, is made only once
    // the consumer has found the topic.)
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return overridden(p, o);
  }

  /**
   * The settings the producer and the consumer share, the franz-go probe's: where the cluster
   * is, the client's id, and how it backs off and how long it waits on a request or keeps its
   * metadata.
   */
  static Properties commonSettings(Options o, String clientId) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
    p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    p.put(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, "100");
    p.put(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG, "1000");
    p.put(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, "300000");
    p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    return p;
  }

  /** p with --command-config's settings over it, and --set's over those. */
  static Properties overridden(Properties p, Options o) {
    p.putAll(o.commandConfig);
    p.putAll(o.set);
    return p;
  }

  /**
   * The settings in effect, by the client's own names: every setting the client resolved, as
   * its config class did, for the ones that shape a stall and every one the probe set.
   */
  static Map<String, String> effective(Map<String, ?> values, Properties set) {
    String[] shaping = {
      "acks", "enable.idempotence", "max.in.flight.requests.per.connection", "linger.ms", "batch.size",
      "retries", "retry.backoff.ms", "retry.backoff.max.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
      "metadata.max.age.ms", "metadata.recovery.strategy", "metadata.recovery.rebootstrap.trigger.ms",
      "delivery.timeout.ms", "request.timeout.ms", "socket.connection.setup.timeout.ms",
      "socket.connection.setup.timeout.max.ms", "connections.max.idle.ms", "max.block.ms",
      "fetch.max.wait.ms", "fetch.min.bytes", "isolation.level", "group.id", "group.protocol",
      "enable.auto.commit", "client.id", "bootstrap.servers", "auto.offset.reset", "default.api.timeout.ms",
      "enable.metrics.push", "allow.auto.create.topics", "partition.assignment.strategy",
      "group.remote.assignor", "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms"
    };
    Map<String, String> out = new TreeMap<>();
    for (String k : shaping) {
      if (values.containsKey(k)) {
        out.put(k, show(values.get(k)));
      }
    }
    for (String k : set.stringPropertyNames()) {
      if (secret(k)) {
        continue;
      }
      out.put(k, show(values.containsKey(k) ? values.get(k) : set.get(k)));
    }
    return out;
  }

  /**
   * Whether a setting holds a secret or says where one is: client.json, which kbf keeps with the
   * results, never names it. sasl.jaas.config holds the SASL password.
   */
  static boolean secret(String k) {
    return k.equals("sasl.jaas.config")
        || k.contains("password")
        || k.contains("secret")
        || k.startsWith("ssl.keystore.")
        || k.equals("ssl.key.location")
        || k.equals("ssl.truststore.certificates");
  }

  static String show(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Class<?> c) {
      return c.getName();
    }
    if (v instanceof List<?> l) {
      return String.join(",", l.stream().map(String::valueOf).toList());
    }
    return String.valueOf(v);
  }

  static String version() {
    return AppInfoParser.getVersion();
  }
}
