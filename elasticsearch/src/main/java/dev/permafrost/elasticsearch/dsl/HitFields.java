/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.DatePrinter;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.IpPrinter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * A hit's {@code fields} section, as the node builds it: for {@code fields}, each mapped field the entries name, its
 * values read from the hit's {@code _source} (a multi-field's from its parent's) in their order there, each parsed and
 * printed as the field's type prints it (a date in the entry's format or the mapping's, a number as a number, an
 * address in canonical form); {@code _id} and {@code _index} when named; fields the mapping does not name only with
 * {@code include_unmapped}, as they are. For {@code docvalue_fields}, the field's doc values (sorted, a keyword's
 * distinct), numbers and dates in the entry's format. Every value list is an array; a field without values is left
 * out; a field named twice is shown once, as the last entry naming it says (the node's rule), and one both
 * {@code fields} and {@code docvalue_fields} name as {@code fields} says. What the node refuses (a format for a type without one,
 * doc values of a text field) is refused with the node's words.
 */
final class HitFields {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Pattern IP_LITERAL = Pattern.compile("[0-9a-fA-F:.]+");

  private HitFields() {}

  /**
   * Where a hit is and what it holds.
   *
   * @param index the index's name
   * @param id the hit's {@code _id}
   * @param mapping the index's mapping
   * @param source its {@code _source} (stored or rebuilt), or null if it has none
   * @param leaf the segment it is in (null: no doc values asked)
   * @param doc its document number in {@code leaf}
   */
  record Hit(String index, String id, IndexMapping mapping, ObjectNode source, LeafReader leaf, int doc) {}

  /**
   * Checks what the node refuses before any hit is read (a format for a type without one, doc values of a text
   * field), so that a search with no hit is refused alike.
   */
  static void check(FieldsSpec spec, String index, IndexMapping mapping) {
    for (FieldsSpec.Entry e : spec.fields()) {
      if (!e.isPattern() && (e.field().equals("_seq_no") || e.field().equals("_primary_term"))) {
        throw DslException.shard("illegal_argument_exception", "error fetching [" + e.field() + "]: Cannot fetch"
            + " values for internal field [" + e.field() + "].");
      }
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (!f.kind().isObject() && e.matches(f.path()) && e.format() != null && !f.isDate()) {
          throw DslException.shard("illegal_argument_exception", "error fetching [" + f.path() + "]: Field ["
              + f.path() + "] of type [" + f.type() + "] doesn't support formats.");
        }
      }
    }
    for (FieldsSpec.Entry e : spec.docValueFields()) {
      if (e.isPattern() && e.matches("_doc_count")) {
        throw DslException.shard("illegal_argument_exception", "Fielddata is not supported on field [_doc_count] of"
            + " type [_doc_count]");
      }
      if (e.field().equals("_id")) {
        throw DslException.shard("illegal_argument_exception", "Fielddata access on the _id field is disallowed, you"
            + " can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled");
      }
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (f.kind().isObject() || !e.matches(f.path())) {
          continue;
        }
        if (f.kind().isText()) {
          throw DslException.shard("illegal_argument_exception", "Fielddata is disabled on [" + f.path() + "] in ["
              + index + "]. Text fields are not optimised for operations that require per-document field data like"
              + " aggregations and sorting, so these operations are disabled by default. Please use a keyword field"
              + " instead. Alternatively, set fielddata=true on [" + f.path() + "] in order to load field data by"
              + " uninverting the inverted index. Note that this can use significant memory.");
        }
        if (e.format() != null && !f.isDate() && f.kind().numericType() == null) {
          throw DslException.shard("illegal_argument_exception", "Field [" + f.path() + "] of type [" + f.type()
              + "] does not support custom formats");
        }
        switch (f.kind()) {
          case SCALED_FLOAT, UNSIGNED_LONG, GEO_POINT, DENSE_VECTOR, UNKNOWN -> throw DslException.illegalArgument(
              "[docvalue_fields] of field [" + f.path() + "] of type [" + f.type() + "] is not supported by"
                  + " Permafrost's Elasticsearch-compatible search");
          default -> { }
        }
      }
    }
  }

  /** The hit's {@code fields}, by field, in the order the entries and the mapping give them; empty if none. */
  static Map<String, List<JsonNode>> of(FieldsSpec spec, Hit hit) throws IOException {
    Map<String, List<JsonNode>> out = new LinkedHashMap<>();
    for (FieldsSpec.Entry e : spec.fields()) {
      if (!e.isPattern() && e.field().equals("_id")) {
        out.put("_id", List.of(NODES.textNode(hit.id())));
      } else if (!e.isPattern() && e.field().equals("_index")) {
        out.put("_index", List.of(NODES.textNode(hit.index())));
      }
      for (IndexMapping.Field f : hit.mapping().fields().values()) {
        if (f.kind().isObject() || !e.matches(f.path()) || hit.source() == null) { // a later entry's format wins
          continue;
        }
        List<JsonNode> raw = new ArrayList<>();
        collect(hit.source(), sourcePath(hit.mapping(), f), raw);
        List<JsonNode> values = new ArrayList<>(raw.size());
        for (JsonNode v : raw) {
          JsonNode printed = fromSource(v, f, e.format());
          if (printed != null) {
            values.add(printed);
          }
        }
        if (!values.isEmpty()) {
          out.put(f.path(), values);
        }
      }
      if (e.includeUnmapped() && hit.source() != null) {
        unmapped(hit.source(), "", e, hit.mapping(), out);
      }
    }
    Map<String, List<JsonNode>> fromDocValues = new LinkedHashMap<>();
    for (FieldsSpec.Entry e : spec.docValueFields()) {
      for (IndexMapping.Field f : hit.mapping().fields().values()) {
        if (f.kind().isObject() || !e.matches(f.path()) || hit.leaf() == null) {
          continue;
        }
        List<JsonNode> values = docValues(hit.leaf(), hit.doc(), f, e.format());
        if (!values.isEmpty()) {
          fromDocValues.put(f.path(), values); // a later entry's format wins
        }
      }
    }
    fromDocValues.forEach(out::putIfAbsent);
    return out;
  }

  /** Where a field's values are in {@code _source}: its own path, or a multi-field's parent's. */
  static String sourcePath(IndexMapping mapping, IndexMapping.Field f) {
    String path = f.path();
    for (int dot = path.lastIndexOf('.'); dot > 0; dot = path.lastIndexOf('.')) {
      IndexMapping.Field parent = mapping.field(path.substring(0, dot));
      if (parent == null || parent.kind().isObject()) {
        break;
      }
      path = parent.path();
    }
    return path;
  }

  /**
   * Adds the leaf values at {@code path} under {@code node} to {@code out}, in order: objects entered by key or by
   * dotted key, arrays flattened, nulls and objects left out.
   */
  static void collect(JsonNode node, String path, List<JsonNode> out) {
    if (node.isArray()) {
      for (JsonNode e : node) {
        collect(e, path, out);
      }
      return;
    }
    if (path.isEmpty()) {
      if (!node.isNull() && !node.isObject()) {
        out.add(node);
      }
      return;
    }
    if (!node.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> p : node.properties()) {
      String key = p.getKey();
      if (path.equals(key)) {
        collect(p.getValue(), "", out);
      } else if (path.startsWith(key) && path.length() > key.length() && path.charAt(key.length()) == '.') {
        collect(p.getValue(), path.substring(key.length() + 1), out);
      }
    }
  }

  /** A source value printed as the field's type prints it, or null for one the node would not show. */
  private static JsonNode fromSource(JsonNode v, IndexMapping.Field f, String format) {
    FieldKind kind = f.kind();
    try {
      return switch (kind) {
        case TEXT, MATCH_ONLY_TEXT, KEYWORD, CONSTANT_KEYWORD, WILDCARD -> NODES.textNode(v.asText());
        case LONG, INTEGER, SHORT, BYTE -> NODES.numberNode(v.isNumber() ? v.longValue()
            : (long) Double.parseDouble(v.asText()));
        case DOUBLE, SCALED_FLOAT -> NODES.numberNode(v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText()));
        case FLOAT -> NODES.numberNode((float) (v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText())));
        case HALF_FLOAT -> NODES.numberNode(Float.float16ToFloat(Float.floatToFloat16(
            (float) (v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText())))));
        case BOOLEAN -> v.isBoolean() ? v : NODES.booleanNode(v.asText().equals("true"));
        case DATE, DATE_NANOS -> {
          long millis = DateFormats.parse(v.asText(), f.format(), ZoneOffset.UTC, false, System::currentTimeMillis);
          yield NODES.textNode(DateFormats.format(millis, format != null ? format : f.format(), ZoneOffset.UTC));
        }
        case IP -> IP_LITERAL.matcher(v.asText()).matches()
            ? NODES.textNode(IpPrinter.print(InetAddress.getByName(v.asText()))) : null;
        default -> v;
      };
    } catch (NumberFormatException | UnknownHostException | DslException e) {
      return null; // a malformed value: the node ignores it (ignore_malformed) or never indexed the document
    }
  }

  /**
   * Source fields the mapping does not name, that {@code e} matches, as they are: objects entered, arrays of objects
   * too (their values gathered under one path).
   */
  private static void unmapped(JsonNode node, String prefix, FieldsSpec.Entry e, IndexMapping mapping,
      Map<String, List<JsonNode>> out) {
    Map<String, List<JsonNode>> found = new LinkedHashMap<>();
    unmapped(node, prefix, e, mapping, found, out);
    found.forEach(out::putIfAbsent);
  }

  private static void unmapped(JsonNode node, String prefix, FieldsSpec.Entry e, IndexMapping mapping,
      Map<String, List<JsonNode>> found, Map<String, List<JsonNode>> shown) {
    if (node.isArray()) {
      for (JsonNode element : node) {
        unmapped(element, prefix, e, mapping, found, shown);
      }
      return;
    }
    for (Map.Entry<String, JsonNode> p : node.properties()) {
      String path = prefix.isEmpty() ? p.getKey() : prefix + "." + p.getKey();
      IndexMapping.Field f = mapping.field(path);
      if (f != null && !f.kind().isObject()) {
        continue;
      }
      JsonNode v = p.getValue();
      if (v.isObject() || v.isArray() && v.size() > 0 && v.get(0).isObject()) {
        unmapped(v, path, e, mapping, found, shown);
      } else if (f == null && e.matches(path) && !shown.containsKey(path)) {
        collect(v, "", found.computeIfAbsent(path, k -> new ArrayList<>()));
      }
    }
    found.values().removeIf(List::isEmpty);
  }

  /** A field's doc values in a document, printed as the node prints them. */
  private static List<JsonNode> docValues(LeafReader leaf, int doc, IndexMapping.Field f, String format)
      throws IOException {
    List<JsonNode> values = new ArrayList<>();
    FieldInfo info = leaf.getFieldInfos().fieldInfo(f.path());
    if (info == null) {
      return values;
    }
    DocValuesType type = info.getDocValuesType();
    if (type == DocValuesType.SORTED_SET || type == DocValuesType.SORTED) {
      SortedSetDocValues dv = DocValues.getSortedSet(leaf, info.name);
      if (dv.advanceExact(doc)) {
        for (int i = 0; i < dv.docValueCount(); i++) {
          BytesRef b = dv.lookupOrd(dv.nextOrd());
          values.add(NODES.textNode(f.kind() == FieldKind.IP ? IpPrinter.print(b) : b.utf8ToString()));
        }
      }
    } else if (type == DocValuesType.SORTED_NUMERIC || type == DocValuesType.NUMERIC) {
      SortedNumericDocValues dv = DocValues.getSortedNumeric(leaf, info.name);
      if (dv.advanceExact(doc)) {
        DecimalFormat decimal = format == null || f.isDate() ? null
            : new DecimalFormat(format, DecimalFormatSymbols.getInstance(Locale.ROOT));
        for (int i = 0; i < dv.docValueCount(); i++) {
          long v = dv.nextValue();
          values.add(switch (f.kind()) {
            case LONG, INTEGER, SHORT, BYTE -> decimal != null ? NODES.textNode(decimal.format(v)) : NODES.numberNode(v);
            case DOUBLE -> number(NumericUtils.sortableLongToDouble(v), decimal);
            case FLOAT -> number(NumericUtils.sortableIntToFloat((int) v), decimal);
            case HALF_FLOAT -> number(Float.float16ToFloat((short) (v ^ ((v >> 15) & 0x7fff))), decimal);
            case DATE -> NODES.textNode(DateFormats.format(v, format != null ? format : f.format(), ZoneOffset.UTC));
            case DATE_NANOS -> NODES.textNode(DatePrinter.printNanos(v, format != null ? format
                : IndexMapping.Field.DEFAULT_DATE_FORMAT.equals(f.format()) ? DatePrinter.DEFAULT_NANOS_FORMAT
                : f.format(), ZoneOffset.UTC));
            case BOOLEAN -> NODES.booleanNode(v != 0);
            default -> throw DslException.illegalArgument("[docvalue_fields] of field [" + f.path() + "] of type ["
                + f.type() + "] is not supported by Permafrost's Elasticsearch-compatible search");
          });
        }
      }
    }
    return values;
  }

  private static JsonNode number(double v, DecimalFormat decimal) {
    return decimal != null ? NODES.textNode(decimal.format(v)) : NODES.numberNode(v);
  }
}
