package kbf.probe;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The Java client's own log (through slf4j-jdk14 into java.util.logging) in kbf's client.log
 * format, one line per entry:
 *
 * <pre>2026-11-30T03:26:17.460123456Z DEBUG producer Metadata [Producer clientId=kbf-java-producer] Updating last seen epoch ...</pre>
 *
 * the level as franz-go names its own, which client (from the clientId the client puts in
 * front of its messages), then the logging class's simple name and the client's own text.
 */
final class ClientLog extends Handler {
  /**
   * The loggers at DEBUG: metadata (leaders, epochs) and the producer's sender (retries,
   * KIP-951 leader hints), which say why a record waited. The rest stays at INFO, where the
   * network's disconnects and the consumer's resets are: at DEBUG the network client and the
   * fetcher log every request, 74 MB in one three-client trial, none of it cited. Held here
   * because java.util.logging keeps its loggers weakly.
   */
  static final String[] DEBUG = {
    "org.apache.kafka.clients.Metadata", "org.apache.kafka.clients.producer.internals.Sender",
  };

  private static final List<Logger> held = new ArrayList<>();
  private final FileOutputStream out;
  private final StringBuilder buf = new StringBuilder();

  private ClientLog(Path path) throws IOException {
    out = new FileOutputStream(path.toFile());
  }

  static ClientLog install(Path path) throws IOException {
    ClientLog h = new ClientLog(path);
    LogManager.getLogManager().reset(); // no console handler
    Logger root = Logger.getLogger("");
    root.setLevel(Level.INFO);
    root.addHandler(h);
    h.setLevel(Level.ALL);
    for (String name : DEBUG) {
      Logger l = Logger.getLogger(name);
      l.setLevel(Level.FINE);
      held.add(l);
    }
    return h;
  }

  @Override
  public void publish(LogRecord r) {
    if (!isLoggable(r)) {
      return;
    }
    String msg = r.getMessage() == null ? "" : r.getMessage();
    if (r.getThrown() != null) {
      msg += ": " + r.getThrown();
    }
    String name = r.getLoggerName() == null ? "kafka" : r.getLoggerName();
    name = name.substring(name.lastIndexOf('.') + 1);
    line(r.getInstant(), level(r.getLevel()), client(msg, Thread.currentThread().getName()), name + " " + msg);
  }

  /** Writes one line; the probe's own notes come through here too. */
  synchronized void line(Instant t, String level, String client, String msg) {
    buf.append(Msg.time(t)).append(' ').append(level).append(' ').append(client).append(' ');
    buf.append(msg.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ')).append('\n');
  }

  static String client(String msg, String thread) {
    if (msg.contains("clientId=" + Main.PRODUCER_ID) || thread.startsWith("kafka-producer")) {
      return "producer";
    }
    if (msg.contains("clientId=" + Main.CONSUMER_ID)) {
      return "consumer";
    }
    return "client";
  }

  static String level(Level l) {
    int v = l.intValue();
    if (v >= Level.SEVERE.intValue()) {
      return "ERROR";
    }
    if (v >= Level.WARNING.intValue()) {
      return "WARN";
    }
    if (v >= Level.INFO.intValue()) {
      return "INFO";
    }
    return "DEBUG";
  }

  @Override
  public void flush() {
    String s;
    synchronized (this) {
      if (buf.length() == 0) {
        return;
      }
      s = buf.toString();
      buf.setLength(0);
    }
    try {
      out.write(s.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      System.err.println("kbf-probe-java: write client log: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    flush();
    try {
      out.close();
    } catch (IOException ignored) {
      // flushed already
    }
  }
}
