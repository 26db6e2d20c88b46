package kbf.probe;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Writes probe.csv as kbf's results.Encoder does: the header, then one row per message, quoted
 * as Go's encoding/csv quotes, with line breaks in an error written as spaces. Rows are held
 * until flush, so the file only ever holds whole lines.
 */
final class Csv {
  static final String HEADER = "partition,seq,offset,sent,acked,received,error\n";
  private final FileOutputStream out;
  private final StringBuilder buf = new StringBuilder(HEADER);

  Csv(Path path) throws IOException {
    out = new FileOutputStream(path.toFile());
  }

  void write(Msg m) {
    buf.append(m.partition).append(',').append(m.seq).append(',');
    if (m.offset >= 0) {
      buf.append(m.offset);
    }
    buf.append(',').append(Msg.time(m.sent)).append(',').append(Msg.time(m.acked)).append(',');
    buf.append(Msg.time(m.received)).append(',').append(field(m.err)).append('\n');
  }

  static String field(String s) {
    if (s == null || s.isEmpty()) {
      return "";
    }
    s = s.replace("\r\n", " ").replace('\r', ' ').replace('\n', ' ');
    boolean quote = s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.charAt(0) == ' ' || s.charAt(0) == '\t' || s.equals("\\.");
    return quote ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  void flush() throws IOException {
    if (buf.length() == 0) {
      return;
    }
    out.write(buf.toString().getBytes(StandardCharsets.UTF_8));
    buf.setLength(0);
  }

  void close() throws IOException {
    flush();
    out.close();
  }
}
