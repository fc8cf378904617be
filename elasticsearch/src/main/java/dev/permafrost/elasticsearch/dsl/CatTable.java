/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One table of Elasticsearch's {@code _cat} APIs, rendered as a node renders it: text columns (a header line with
 * {@code v}, the columns {@code h} names, rows sorted by {@code s}, byte sizes in the unit {@code bytes} names or
 * readable) or, with {@code format=json}, an array of objects of strings; {@code help} lists the columns. Text cells
 * are separated by one space and padded to their column's width, numbers and sizes on the left, the rest on the right
 * (but never in the last column), as the node aligns them. A {@code bytes} unit it does not know prints sizes
 * readable, as the node does.
 */
final class CatTable {
  /**
   * A column.
   *
   * @param name its name, the header
   * @param aliases the other names {@code h} and {@code s} may give it
   * @param right whether its text cells are aligned right (numbers and sizes)
   * @param shown whether it is shown without {@code h}
   * @param description what {@code help} says of it
   */
  record Column(String name, List<String> aliases, boolean right, boolean shown, String description) {
    boolean named(String n) {
      return name.equals(n) || aliases.contains(n);
    }
  }

  /** A byte size: readable ({@code 300.4kb}) or in the unit the request names. */
  record Bytes(long bytes) {}

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String[] UNITS = {"b", "kb", "mb", "gb", "tb", "pb"};

  private final String api;
  private final List<Column> columns;
  /** The rows' cells, in the order of {@link #columns}: a String, a Long, {@link Bytes}, or null for none. */
  private final List<Object[]> rows = new ArrayList<>();

  CatTable(String api, List<Column> columns) {
    this.api = api;
    this.columns = List.copyOf(columns);
  }

  void add(Object... cells) {
    assert cells.length == columns.size() : "a cell per column";
    rows.add(cells);
  }

  /** The parameters every {@code _cat} API takes (besides those of its own). */
  static boolean commonParameter(String name) {
    return switch (name) {
      case "v", "h", "s", "format", "help", "bytes", "time", "local", "master_timeout", "pretty", "human",
          "error_trace", "filter_path" -> true;
      default -> false;
    };
  }

  /** The table as the request's parameters ask: text, or JSON with {@code format=json}. */
  Answer render(Map<String, String> parameters) {
    String format = parameters.getOrDefault("format", "text").toLowerCase(Locale.ROOT);
    if (!format.equals("text") && !format.equals("txt") && !format.equals("json")) {
      throw DslException.illegalArgument("[" + api + "] answers format=text or format=json here, not [" + format + "]");
    }
    String unit = parameters.get("bytes");
    // a unit the node does not know prints sizes readable, as on the node
    int unitIndex = unit == null ? -1 : List.of(UNITS).indexOf(unit.toLowerCase(Locale.ROOT));
    if (flag(parameters, "help")) {
      return Answer.text(200, help());
    }
    List<Shown> shown = shown(parameters.get("h"));
    List<Object[]> sorted = sorted(parameters.get("s"));
    if (format.equals("json")) {
      ArrayNode out = NODES.arrayNode();
      for (Object[] row : sorted) {
        ObjectNode o = out.addObject();
        for (Shown c : shown) {
          String cell = cell(row[c.column()], unitIndex);
          if (cell == null) {
            o.putNull(c.header());
          } else {
            o.put(c.header(), cell);
          }
        }
      }
      return Answer.json(200, out);
    }
    List<String[]> lines = new ArrayList<>();
    if (flag(parameters, "v")) {
      lines.add(shown.stream().map(Shown::header).toArray(String[]::new));
    }
    for (Object[] row : sorted) {
      lines.add(shown.stream().map(c -> {
        String cell = cell(row[c.column()], unitIndex);
        return cell == null ? "" : cell;
      }).toArray(String[]::new));
    }
    int[] widths = new int[shown.size()];
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        boolean right = columns.get(shown.get(i).column()).right();
        boolean last = i == line.length - 1;
        String pad = " ".repeat(widths[i] - line[i].length());
        text.append(right ? pad : "").append(line[i]).append(right || last ? "" : pad).append(last ? "" : " ");
      }
      text.append('\n');
    }
    return Answer.text(200, text.toString());
  }

  private static boolean flag(Map<String, String> parameters, String name) {
    String value = parameters.get(name);
    return value != null && !value.equals("false");
  }

  /** A column shown, under the name {@code h} gave it (an alias is the header too, as on the node). */
  private record Shown(int column, String header) {}

  /** The columns {@code h} names (by name, alias or {@code *} pattern; unknown names show nothing), else the default. */
  private List<Shown> shown(String h) {
    List<Shown> shown = new ArrayList<>();
    if (h == null || h.isBlank()) {
      for (int c = 0; c < columns.size(); c++) {
        if (columns.get(c).shown()) {
          shown.add(new Shown(c, columns.get(c).name()));
        }
      }
      return shown;
    }
    for (String name : h.split(",")) {
      String n = name.trim();
      if (n.contains("*")) {
        var glob = IndexExpression.glob(n);
        for (int c = 0; c < columns.size(); c++) {
          int column = c;
          if (glob.matcher(columns.get(c).name()).matches() && shown.stream().noneMatch(x -> x.column() == column)) {
            shown.add(new Shown(c, columns.get(c).name()));
          }
        }
      } else {
        for (int c = 0; c < columns.size(); c++) {
          if (columns.get(c).named(n)) {
            shown.add(new Shown(c, n));
            break;
          }
        }
      }
    }
    return shown;
  }

  /** The rows sorted by {@code s} ({@code column[:asc|:desc]}, comma-separated), else as added. */
  private List<Object[]> sorted(String s) {
    List<Object[]> out = new ArrayList<>(rows);
    if (s == null || s.isBlank()) {
      return out;
    }
    Comparator<Object[]> order = null;
    for (String key : s.split(",")) {
      String name = key.trim();
      boolean descending = name.toLowerCase(Locale.ROOT).endsWith(":desc");
      if (descending || name.toLowerCase(Locale.ROOT).endsWith(":asc")) {
        name = name.substring(0, name.lastIndexOf(':'));
      }
      int c = -1;
      for (int i = 0; i < columns.size(); i++) {
        if (columns.get(i).named(name)) {
          c = i;
          break;
        }
      }
      if (c < 0) {
        throw DslException.illegalArgument("Unable to sort by unknown sort key `" + key.trim() + "`");
      }
      int column = c;
      Comparator<Object[]> by = (a, b) -> compare(a[column], b[column]);
      by = descending ? by.reversed() : by;
      order = order == null ? by : order.thenComparing(by);
    }
    out.sort(order);
    return out;
  }

  /** Cells of one column compared by value: numbers as numbers, sizes as bytes, none last. */
  private static int compare(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : 1) : -1;
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    if (a instanceof Bytes x && b instanceof Bytes y) {
      return Long.compare(x.bytes(), y.bytes());
    }
    return a.toString().compareTo(b.toString());
  }

  private static String cell(Object value, int unitIndex) {
    if (value == null) {
      return null;
    }
    if (value instanceof Bytes b) {
      return unitIndex < 0 ? readable(b.bytes()) : Long.toString(b.bytes() >> (10 * unitIndex));
    }
    return value.toString();
  }

  /**
   * A byte size as a node prints it: in the largest unit it reaches, with one decimal (cut, not rounded) unless that
   * is 0: {@code 0b}, {@code 2kb}, {@code 300.4kb}.
   */
  static String readable(long bytes) {
    assert bytes >= 0 : "a size";
    int unit = 0;
    while (unit < UNITS.length - 1 && bytes >= 1L << (10 * (unit + 1))) {
      unit++;
    }
    if (unit == 0) {
      return bytes + UNITS[0];
    }
    long whole = bytes >> (10 * unit);
    long tenths = ((bytes - (whole << (10 * unit))) * 10) >> (10 * unit);
    return whole + (tenths == 0 ? "" : "." + tenths) + UNITS[unit];
  }

  private String help() {
    int nameWidth = 0;
    int aliasWidth = 0;
    for (Column c : columns) {
      nameWidth = Math.max(nameWidth, c.name().length());
      aliasWidth = Math.max(aliasWidth, String.join(",", c.aliases()).length());
    }
    StringBuilder text = new StringBuilder();
    for (Column c : columns) {
      String aliases = String.join(",", c.aliases());
      text.append(c.name()).append(" ".repeat(nameWidth - c.name().length())).append(" | ").append(aliases)
          .append(" ".repeat(aliasWidth - aliases.length())).append(" | ").append(c.description()).append('\n');
    }
    return text.toString();
  }
}
