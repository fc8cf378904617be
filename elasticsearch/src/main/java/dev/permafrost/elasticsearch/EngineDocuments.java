/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.snapshot.SnapshotException;
import java.io.IOException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.document.Document;
import org.apache.lucene.geo.GeoEncodingUtils;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * The engine's stored fields of a hit, decoded: {@code _id} (see {@link DocumentId}) and {@code _source} (the JSON
 * the document was indexed with; SMILE, as some clients send it, is turned into JSON). Ask the catalog for the
 * stored fields {@code _id} and {@code _source} ({@code SearchRequest.Builder.fields}).
 */
public final class EngineDocuments {
  /** The stored field holding a document's id. */
  public static final String ID = "_id";
  /** The stored field holding a document's source. */
  public static final String SOURCE = "_source";
  /** The binary doc values of what the node kept whole for a document's synthetic source (9.5 on). */
  static final String IGNORED_SOURCE = "_ignored_source";

  private EngineDocuments() {}

  /** The document's {@code _id}, or null if it has none stored. */
  public static String id(Document document) {
    IndexableField f = document.getField(ID);
    if (f == null) {
      return null;
    }
    BytesRef b = f.binaryValue();
    return b != null ? DocumentId.decode(b) : f.stringValue();
  }

  /** The document's {@code _source} as JSON, or null if it has none stored. */
  public static String source(Document document) {
    IndexableField f = document.getField(SOURCE);
    if (f == null || f.binaryValue() == null) {
      return null;
    }
    return source(f.binaryValue());
  }

  /**
   * The JSON of stored {@code _source} bytes (JSON, or SMILE as some clients send it).
   *
   * @throws IllegalStateException if they are neither
   */
  public static String source(BytesRef b) {
    byte[] bytes = Arrays.copyOfRange(b.bytes, b.offset, b.offset + b.length);
    try {
      return MetadataBlob.content(bytes, "a stored _source").toString();
    } catch (SnapshotException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * A document's source rebuilt from its doc values, for an index that stores none (Elasticsearch's synthetic
   * {@code _source}: logsdb and time_series indices, or {@code _source.mode: synthetic}).
   *
   * @param json the fields, as JSON objects by their dotted paths, keys in alphabetical order as the node prints them
   * @param leftOut the fields whose values could not all be rebuilt (neither doc values nor a text kept for the
   *     source; a value the node kept apart in an encoding not read, such as CBOR or YAML), so not in {@code json}
   */
  public record RebuiltSource(String json, List<String> leftOut) {}

  /**
   * Rebuilds document {@code doc} of {@code reader} from its doc values, as Elasticsearch's synthetic source does,
   * typed by {@code mapping}: keywords as strings, integers as numbers, {@code double}, {@code float} and
   * {@code half_float} as numbers (a half float's own value, {@code 1.0996094} for 1.1), dates as strings in their
   * field's format ({@link DatePrinter}: {@code 2024-01-05T20:40:00.000Z} by default, 3 to 9 digits of fraction for
   * {@code date_nanos}), {@code boolean} as true or false, {@code ip} as its address ({@link IpPrinter}: RFC 5952's
   * {@code 2001:db8::7c5}, IPv4-mapped ones as IPv4), {@code geo_point} as {@code {"lat": ..., "lon": ...}} decoded
   * from its doc value. An array is in the order it was
   * indexed, repeats and nulls too, where the node kept that order ({@code <field>.offsets}); otherwise one value is
   * itself and more are in doc-values order (numbers ascending with repeats, keywords ascending without). A text
   * field is the stored field the node keeps for it ({@code <field>}, or {@code <field>._original} from 9.2), else
   * its keyword sub-field's values. How that differs from the node's own synthetic {@code _source} is in
   * docs/engine-snapshots.md: fields with neither are {@link RebuiltSource#leftOut left out}. Values the field
   * could not give back (9.5 on, {@link IgnoredValues}) come back as the node puts them: a keyword past
   * {@code ignore_above} ({@code <field>._original}) and a malformed value ({@code <field>._ignore_malformed}) after
   * the field's doc values, an {@code _ignored_source} entry (unmapped fields, objects and arrays kept whole) at its
   * path, replacing the doc values there. Nested documents are not rebuilt: a document that has some lists the
   * mapping's outermost {@code nested} objects in {@link RebuiltSource#leftOut}.
   *
   * @param reader the index's reader
   * @param doc the document, by its id in {@code reader}
   */
  public static RebuiltSource sourceFromDocValues(IndexReader reader, int doc, IndexMapping mapping)
      throws IOException {
    var leaves = reader.leaves();
    var context = leaves.get(ReaderUtil.subIndex(doc, leaves));
    LeafReader leaf = context.reader();
    int local = doc - context.docBase;
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    Set<ObjectNode> made = Collections.newSetFromMap(new IdentityHashMap<>()); // the objects this rebuild made
    made.add(root);
    List<String> leftOut = new ArrayList<>();
    Document stored = null;
    for (IndexMapping.Field f : mapping.fields().values()) {
      if (f.nestedPath() != null || f.kind().isObject() || isMultiField(mapping, f)) {
        continue;
      }
      FieldInfo info = leaf.getFieldInfos().fieldInfo(f.path());
      FieldKind kind = f.kind();
      if (info == null || info.getDocValuesType() == DocValuesType.NONE) {
        // a text field: its value as the node keeps it for its synthetic source, a stored field of its own name (to
        // 9.1) or "<field>._original" (9.2 on), else its keyword sub-field's
        if (stored == null) {
          stored = leaf.storedFields().document(local);
        }
        IndexableField[] text = stored.getFields(f.path());
        if (text.length == 0) {
          text = stored.getFields(f.path() + "._original");
        }
        if (text.length > 0 && text[0].stringValue() != null) {
          List<JsonNode> values = new ArrayList<>();
          for (IndexableField t : text) {
            values.add(JsonNodeFactory.instance.textNode(t.stringValue()));
          }
          put(root, f.path(), values, null, List.of(), made);
          continue;
        }
        List<BytesRef> original = IgnoredValues.read(leaf, f.path() + "._original", local);
        if (original != null) { // the document's values, none if it has none
          if (!original.isEmpty()) {
            put(root, f.path(), original.stream().map(b -> (JsonNode) JsonNodeFactory.instance.textNode(
                b.utf8ToString())).toList(), null, List.of(), made);
          }
          continue;
        }
        FieldInfo keyword = keywordSubField(mapping, leaf, f);
        if (keyword == null) {
          if (info != null || kind.isText()) {
            leftOut.add(f.path());
          }
          continue;
        }
        info = keyword;
        kind = FieldKind.KEYWORD;
      }
      List<JsonNode> values = values(leaf, info, local, kind, f.format());
      if (values == null) {
        leftOut.add(f.path());
        continue;
      }
      List<JsonNode> kept = keptApart(leaf, f.path(), local, leftOut);
      if (!values.isEmpty() || !kept.isEmpty()) {
        put(root, f.path(), values, arrayOrder(leaf, f.path(), local), kept, made);
      }
    }
    ignoredSource(leaf, local, root, made, leftOut);
    if (hasNestedDocuments(leaf, local)) { // not rebuilt: named, never dropped
      Set<String> nested = new TreeSet<>();
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (f.nestedPath() != null) {
          nested.add(f.nestedPath());
        }
      }
      for (String path : nested) {
        if (nested.stream().noneMatch(outer -> path.startsWith(outer + "."))) { // the outermost ones
          leftOut.add(path);
        }
      }
    }
    made.forEach(EngineDocuments::sortKeys);
    return new RebuiltSource(root.toString(), List.copyOf(leftOut));
  }

  /**
   * Whether document {@code doc} has nested documents: the one before it is one (the engine writes a document's
   * nested documents just before it, without {@code _primary_term}).
   */
  private static boolean hasNestedDocuments(LeafReader leaf, int doc) throws IOException {
    if (doc == 0) {
      return false;
    }
    var primaryTerm = leaf.getNumericDocValues("_primary_term");
    return primaryTerm != null && !primaryTerm.advanceExact(doc - 1);
  }

  /**
   * The values of a field the node kept apart because the field could not give them back, in the order indexed:
   * keywords over {@code ignore_above} ({@code <field>._original}, UTF-8) and malformed values
   * ({@code <field>._ignore_malformed}, each a type byte and its bytes: {@link IgnoredValues#value}). A value in an
   * encoding not read is not among them: its field is added to {@code leftOut}.
   */
  private static List<JsonNode> keptApart(LeafReader leaf, String field, int doc, List<String> leftOut)
      throws IOException {
    List<JsonNode> kept = new ArrayList<>();
    List<BytesRef> original = IgnoredValues.read(leaf, field + "._original", doc);
    if (original != null) {
      for (BytesRef b : original) {
        kept.add(JsonNodeFactory.instance.textNode(b.utf8ToString()));
      }
    }
    List<BytesRef> malformed = IgnoredValues.read(leaf, field + "._ignore_malformed", doc);
    if (malformed != null) {
      for (int i = 0; i < malformed.size(); i++) {
        IgnoredValues.Value v = IgnoredValues.value(malformed.get(i), "malformed value " + i + " of '" + field
            + "' in document " + doc);
        if (v.json() != null) {
          kept.add(v.json());
        } else if (!leftOut.contains(field)) {
          leftOut.add(field);
        }
      }
    }
    return kept;
  }

  /**
   * Sets the document's {@code _ignored_source} entries (unmapped fields under {@code dynamic: false}, arrays of
   * fields that keep no order of their own, objects kept whole) in {@code root}, each in its parent object (made if
   * the document has none yet) under its key, replacing what the doc values gave there, as the node does; two
   * entries of one name make an array. An entry whose value is in an encoding not read is added to {@code leftOut}.
   */
  private static void ignoredSource(LeafReader leaf, int doc, ObjectNode root, Set<ObjectNode> made,
      List<String> leftOut) throws IOException {
    List<BytesRef> entries = IgnoredValues.read(leaf, IGNORED_SOURCE, doc);
    if (entries == null || entries.isEmpty()) {
      return;
    }
    Set<String> set = new HashSet<>();
    for (int i = 0; i < entries.size(); i++) {
      IgnoredValues.Entry e = IgnoredValues.entry(entries.get(i), "entry " + i + " of " + IGNORED_SOURCE
          + " in document " + doc);
      if (e.value().json() == null) {
        if (!leftOut.contains(e.name())) {
          leftOut.add(e.name());
        }
        continue;
      }
      ObjectNode at = root;
      if (!e.parent().isEmpty()) {
        for (String part : e.parent().split("\\.")) {
          at = object(at, part, made);
        }
      }
      JsonNode before = at.get(e.leaf());
      if (set.add(e.name()) || before == null) {
        at.set(e.leaf(), e.value().json());
      } else {
        ArrayNode array = before instanceof ArrayNode a && !(e.value().json() instanceof ArrayNode) ? a
            : JsonNodeFactory.instance.arrayNode().add(before);
        array.add(e.value().json());
        at.set(e.leaf(), array);
      }
    }
  }

  /** {@code parent}'s object {@code key}, made (and noted in {@code made}) if it has none. */
  private static ObjectNode object(ObjectNode parent, String key, Set<ObjectNode> made) {
    if (parent.get(key) instanceof ObjectNode o) {
      return o;
    }
    ObjectNode o = parent.putObject(key);
    made.add(o);
    return o;
  }

  /**
   * Orders an object the rebuild made by its keys, as the node prints its synthetic source (objects kept whole in
   * {@code _ignored_source} keep their own order).
   */
  private static void sortKeys(ObjectNode o) {
    var sorted = new TreeMap<String, JsonNode>();
    o.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
    o.removeAll();
    o.setAll(sorted);
  }

  /**
   * The order of a field's array as indexed, where the node kept it ({@code <field>.offsets}, sorted doc values of
   * 8.19 and 9.1 on, logsdb's {@code synthetic_source_keep: arrays}): for each element of the array, the index of its
   * value among the document's doc values (-1 for a null), zigzag VInts after the element count; null if there is
   * none (a single value, or no order kept).
   */
  private static int[] arrayOrder(LeafReader leaf, String field, int doc) throws IOException {
    FieldInfo info = leaf.getFieldInfos().fieldInfo(field + ".offsets");
    if (info == null || info.getDocValuesType() != DocValuesType.SORTED) {
      return null;
    }
    var dv = DocValues.getSorted(leaf, info.name);
    if (!dv.advanceExact(doc)) {
      return null;
    }
    BytesRef b = dv.lookupOrd(dv.ordValue());
    var in = new ByteArrayDataInput(b.bytes, b.offset, b.length);
    int count = in.readZInt();
    if (count < 0 || count > b.length) {
      throw new IllegalStateException("the array order of field '" + field + "' of document " + doc + " holds " + count
          + " elements in " + b.length + " bytes");
    }
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = in.readZInt();
    }
    return order;
  }

  /** Whether {@code f} is a multi-field of another ({@code message.raw} of {@code message}). */
  private static boolean isMultiField(IndexMapping mapping, IndexMapping.Field f) {
    int dot = f.path().lastIndexOf('.');
    IndexMapping.Field parent = dot < 0 ? null : mapping.field(f.path().substring(0, dot));
    return parent != null && !parent.kind().isObject();
  }

  /** A keyword multi-field of {@code f} with doc values in {@code leaf}, or null. */
  private static FieldInfo keywordSubField(IndexMapping mapping, LeafReader leaf, IndexMapping.Field f) {
    for (IndexMapping.Field sub : mapping.fields().values()) {
      if (sub.path().startsWith(f.path() + ".") && sub.path().indexOf('.', f.path().length() + 1) < 0
          && sub.kind() == FieldKind.KEYWORD) {
        FieldInfo info = leaf.getFieldInfos().fieldInfo(sub.path());
        if (info != null && info.getDocValuesType() != DocValuesType.NONE) {
          return info;
        }
      }
    }
    return null;
  }

  /**
   * A field's values in a document as JSON, as the node prints them in its synthetic source, or null if its type is
   * not one rebuilt; {@code format}: a date field's.
   */
  private static List<JsonNode> values(LeafReader leaf, FieldInfo info, int doc, FieldKind kind, String format)
      throws IOException {
    JsonNodeFactory json = JsonNodeFactory.instance;
    List<JsonNode> values = new ArrayList<>();
    if (info.getDocValuesType() == DocValuesType.SORTED_SET || info.getDocValuesType() == DocValuesType.SORTED) {
      if (kind != FieldKind.KEYWORD && kind != FieldKind.IP) {
        return null;
      }
      SortedSetDocValues dv = DocValues.getSortedSet(leaf, info.name);
      if (dv.advanceExact(doc)) {
        for (int i = 0; i < dv.docValueCount(); i++) {
          BytesRef b = dv.lookupOrd(dv.nextOrd());
          values.add(json.textNode(kind == FieldKind.IP ? IpPrinter.print(b) : b.utf8ToString()));
        }
      }
      return values;
    }
    if (info.getDocValuesType() != DocValuesType.SORTED_NUMERIC && info.getDocValuesType() != DocValuesType.NUMERIC) {
      return null;
    }
    SortedNumericDocValues dv = DocValues.getSortedNumeric(leaf, info.name);
    if (dv.advanceExact(doc)) {
      for (int i = 0; i < dv.docValueCount(); i++) {
        long v = dv.nextValue();
        JsonNode node = switch (kind) {
          case LONG, INTEGER, SHORT, BYTE -> json.numberNode(v);
          case DOUBLE -> json.numberNode(NumericUtils.sortableLongToDouble(v));
          case FLOAT -> json.numberNode(NumericUtils.sortableIntToFloat((int) v));
          case HALF_FLOAT -> json.numberNode(Float.float16ToFloat((short) (v ^ ((v >> 15) & 0x7fff))));
          case DATE -> json.textNode(DatePrinter.print(v, format, ZoneOffset.UTC));
          case DATE_NANOS -> json.textNode(DatePrinter.printNanos(v,
              IndexMapping.Field.DEFAULT_DATE_FORMAT.equals(format) ? DatePrinter.DEFAULT_NANOS_FORMAT : format,
              ZoneOffset.UTC));
          case GEO_POINT -> {
            ObjectNode point = json.objectNode();
            point.put("lat", GeoEncodingUtils.decodeLatitude((int) (v >>> 32)));
            point.put("lon", GeoEncodingUtils.decodeLongitude((int) v));
            yield point;
          }
          case BOOLEAN -> json.booleanNode(v != 0);
          default -> null;
        };
        if (node == null) {
          return null;
        }
        values.add(node);
      }
    }
    return values;
  }

  /**
   * Sets {@code path} of {@code root} to the values: in {@code order} as an array if there is one (an element out of
   * range fails: never another value), else one value as itself and more as an array; then the values {@code kept}
   * apart from the doc values (over {@code ignore_above}, malformed), after them, as the node prints them.
   */
  private static void put(ObjectNode root, String path, List<JsonNode> values, int[] order, List<JsonNode> kept,
      Set<ObjectNode> made) {
    String[] parts = path.split("\\.");
    ObjectNode at = root;
    for (int i = 0; i < parts.length - 1; i++) {
      at = object(at, parts[i], made);
    }
    String key = parts[parts.length - 1];
    if (order != null) {
      ArrayNode array = at.putArray(key);
      for (int i : order) {
        if (i < -1 || i >= values.size()) {
          throw new IllegalStateException("the array order of field '" + path + "' names value " + i + " of "
              + values.size());
        }
        array.add(i == -1 ? JsonNodeFactory.instance.nullNode() : values.get(i));
      }
      kept.forEach(array::add);
    } else if (values.size() + kept.size() == 1) {
      at.set(key, values.isEmpty() ? kept.get(0) : values.get(0));
    } else {
      ArrayNode array = at.putArray(key);
      values.forEach(array::add);
      kept.forEach(array::add);
    }
  }

  /**
   * {@code source} (a hit's {@code _source}, stored or rebuilt) with the vectors of its indexed {@code dense_vector}
   * fields it lacks, as Elasticsearch 9.1+ gives them back from an index that keeps them out of the stored source
   * ({@code "_source": {"exclude_vectors": false}}; {@code SourceVectors}).
   *
   * @param reader the index's reader
   * @param doc the document, by its id in {@code reader}
   */
  public static ObjectNode withVectors(ObjectNode source, IndexReader reader, int doc, IndexMapping mapping)
      throws IOException {
    if (!mapping.indexedVectorFields().isEmpty()) {
      var leaves = reader.leaves();
      var context = leaves.get(ReaderUtil.subIndex(doc, leaves));
      SourceVectors.put(source, context.reader(), doc - context.docBase, mapping);
    }
    return source;
  }

  /** The query for the document with id {@code id}, as the engine indexes it. */
  public static Query idQuery(String id) {
    return new TermQuery(new Term(ID, DocumentId.encode(id)));
  }
}
