package kbf.probe;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The group reader, beside the probe's own reader, as kbf's franz-go group reader (probe/group.go):
 * it subscribes in a consumer group, processes what each poll returns and commits it as --commit
 * says — commitSync before the next poll, commitAsync without waiting, or every
 * --auto-commit-interval. It writes group.csv and group-events.csv in kbf's formats
 * (results/group.go).
 *
 * <p>Generation: groupMetadata().generationId(), which is the group's generation under the
 * classic protocol and the member's epoch under KIP-848's (group.protocol=consumer); -1 when the
 * member holds none.
 *
 * <p>--commit interval: the Java client's autocommit (enable.auto.commit) tells the application
 * nothing of its commits, so the reader does what it does — an asynchronous commit of the
 * positions polled, from within poll, every interval — itself, with commitAsync, and records each.
 */
final class GroupReader {
  static final String CLIENT_ID = "kbf-java-group";
  static final String EVENTS_HEADER = "time,kind,start,generation,partitions,offsets,error\n";
  static final String RECORDS_HEADER = "partition,offset,seq,processed\n";

  final Options o;
  final Object mu = new Object();
  final StringBuilder records = new StringBuilder(RECORDS_HEADER);
  final StringBuilder events = new StringBuilder(EVENTS_HEADER);
  FileOutputStream recordsOut;
  FileOutputStream eventsOut;
  KafkaConsumer<byte[], byte[]> consumer;
  boolean closing; // stopped: the leave's revoke and late commits are not recorded
  final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
  volatile boolean stopping;

  GroupReader(Options o) {
    this.o = o;
  }

  /**
   * The group reader's settings over the probe consumer's (consumer): its group.id and
   * group.protocol, its own client.id, and how it commits. Under the classic protocol the
   * cooperative-sticky assignor, kbf's franz-go reader's; under KIP-848's the broker assigns and
   * the client refuses the settings it now decides (partition.assignment.strategy,
   * session.timeout.ms, heartbeat.interval.ms), so none is set, --set's included, and the
   * broker's "uniform" assignor is asked for by group.remote.assignor.
   */
  static Properties settings(Options o, Properties consumer) {
    Properties p = new Properties();
    p.putAll(consumer);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, CLIENT_ID);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, o.group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, o.groupProtocol);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // A partition with no committed offset starts where the probe started (seeked to when it is
    // assigned); earliest is only the fallback when its committed offset cannot be read.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    if (o.groupProtocol.equals("classic")) {
      p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName());
    } else {
      for (String k : consumerProtocolRefuses) {
        p.remove(k);
      }
      p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "uniform");
    }
    return p;
  }

  static final List<String> consumerProtocolRefuses = List.of(
      ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
      ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
      ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);

  void open(Path dir, Properties p) throws IOException {
    recordsOut = new FileOutputStream(dir.resolve("group.csv").toFile());
    eventsOut = new FileOutputStream(dir.resolve("group-events.csv").toFile());
    consumer = new KafkaConsumer<>(p);
  }

  int generation() {
    try {
      return consumer.groupMetadata().generationId();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** Records an assignment change, and on assignment seeks where nothing was committed. */
  final ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> parts) {
      changed("revoked", parts);
      synchronized (mu) {
        for (TopicPartition tp : parts) {
          pending.remove(tp);
        }
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> parts) {
      changed("assigned", parts);
      startAt(parts);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> parts) {
      changed("lost", parts);
      synchronized (mu) {
        for (TopicPartition tp : parts) {
          pending.remove(tp);
        }
      }
    }
  };

  /** A new group reads the records of this run: a partition with no committed offset starts at the probe's start. */
  void startAt(Collection<TopicPartition> parts) {
    if (parts.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = consumer.committed(new HashSet<>(parts), Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      return; // the committed offset, else auto.offset.reset
    }
    for (TopicPartition tp : parts) {
      Long start = o.startOffsets.get(tp.partition());
      if (tp.topic().equals(o.topic) && start != null && committed.get(tp) == null) {
        consumer.seek(tp, start);
      }
    }
  }

  void changed(String kind, Collection<TopicPartition> parts) {
    Set<Integer> ours = new TreeSet<>();
    for (TopicPartition tp : parts) {
      if (tp.topic().equals(o.topic)) {
        ours.add(tp.partition());
      }
    }
    if (!ours.isEmpty()) {
      event(eventRow(Instant.now(), kind, null, generation(), ours, Map.of(), null));
    }
  }

  void event(String row) {
    synchronized (mu) {
      if (!closing) {
        events.append(row);
      }
    }
  }

  /** One row of group-events.csv, as kbf's results.GroupEventEncoder writes it. */
  static String eventRow(Instant time, String kind, Instant start, int generation, Set<Integer> partitions,
      Map<Integer, Long> offsets, String err) {
    StringBuilder b = new StringBuilder();
    b.append(Msg.time(time)).append(',').append(kind).append(',').append(Msg.time(start)).append(',');
    b.append(generation).append(',');
    b.append(String.join(" ", new TreeSet<>(partitions).stream().map(String::valueOf).toList())).append(',');
    int i = 0;
    for (Map.Entry<Integer, Long> e : new TreeMap<>(offsets).entrySet()) {
      b.append(i++ > 0 ? " " : "").append(e.getKey()).append(':').append(e.getValue());
    }
    return b.append(',').append(Csv.field(err)).append('\n').toString();
  }

  /** One row of group.csv. */
  static String recordRow(int partition, long offset, long seq, Instant processed) {
    return partition + "," + offset + "," + seq + "," + Msg.time(processed) + "\n";
  }

  /** Polls until stop: each poll's probe records are processed (recorded), then committed. */
  void run() {
    consumer.subscribe(List.of(o.topic), listener);
    long every = o.autoCommitInterval.toNanos();
    long lastCommit = System.nanoTime();
    try {
      while (!stopping) {
        Instant now = null;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          now = now == null ? Instant.now() : now;
          if (!r.topic().equals(o.topic)) {
            continue;
          }
          Value v = Value.decode(r.value());
          synchronized (mu) {
            pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
            if (v != null && v.runId.equals(o.runId) && v.partition == r.partition()) {
              records.append(recordRow(r.partition(), r.offset(), v.seq, now));
            }
          }
        }
        if (o.commit.equals("interval") && System.nanoTime() - lastCommit < every) {
          continue;
        }
        lastCommit = System.nanoTime();
        commit();
      }
    } catch (org.apache.kafka.common.errors.WakeupException | org.apache.kafka.common.errors.InterruptException e) {
      // stopping
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  void commit() {
    Map<TopicPartition, OffsetAndMetadata> offs;
    synchronized (mu) {
      if (pending.isEmpty()) {
        return;
      }
      offs = new HashMap<>(pending);
      pending.clear();
    }
    Instant start = Instant.now();
    if (o.commit.equals("sync")) {
      String err = null;
      try {
        consumer.commitSync(offs);
      } catch (org.apache.kafka.common.errors.WakeupException | org.apache.kafka.common.errors.InterruptException e) {
        throw e;
      } catch (RuntimeException e) {
        err = e.toString();
      }
      committed(start, offs, err);
      return;
    }
    consumer.commitAsync(offs, (done, e) -> committed(start, offs, e == null ? null : e.toString()));
  }

  void committed(Instant start, Map<TopicPartition, OffsetAndMetadata> offs, String err) {
    Map<Integer, Long> ours = new TreeMap<>();
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offs.entrySet()) {
      if (e.getKey().topic().equals(o.topic)) {
        ours.put(e.getKey().partition(), e.getValue().offset());
      }
    }
    event(eventRow(Instant.now(), "commit", start, generation(), Set.of(), ours, err));
  }

  /** Ends the recording, before the reader stops: the leave's revoke and late commits are not part of the trial. */
  void halt() {
    synchronized (mu) {
      closing = true;
    }
    stopping = true;
    consumer.wakeup();
  }

  void flush() throws IOException {
    synchronized (mu) {
      if (records.length() > 0) {
        recordsOut.write(records.toString().getBytes(StandardCharsets.UTF_8));
        records.setLength(0);
      }
      if (events.length() > 0) {
        eventsOut.write(events.toString().getBytes(StandardCharsets.UTF_8));
        events.setLength(0);
      }
    }
  }

  void close() throws IOException {
    flush();
    recordsOut.close();
    eventsOut.close();
  }
}
