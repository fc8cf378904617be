/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.util.BytesRef;

/**
 * The values Elasticsearch keeps outside their fields for its synthetic {@code _source}, decoded (9.4 and 9.5, where
 * the index's doc values are in a TSDB format; shared/formats/es-tsdb-9.4-9.5.md §5 and what a 9.5.3 node wrote):
 *
 * <ul>
 *   <li>binary doc values of several values a document ({@link #read}): {@code <field>._original} (keywords over
 *       {@code ignore_above}, texts), {@code <field>._ignore_malformed} (malformed values kept under
 *       {@code ignore_malformed}) and {@code _ignored_source}, each with a numeric {@code <field>.counts}: one value
 *       is the binary value itself, more are each a VInt length and their bytes, in the order indexed; without a
 *       {@code .counts} field (9.4), a VInt count first;
 *   <li>an {@code _ignored_source} {@link Entry}: a little-endian int32 {@code nameLength + 65536 × parentOffset}
 *       (the name's length in UTF-16 chars; the parent object's full path length + 1, or 0 at the root), the full
 *       path in UTF-8, then the {@link #value};
 *   <li>a {@link #value} (an {@code _ignored_source} entry's, a malformed value's): one type byte then its bytes.
 * </ul>
 *
 * Package-private: {@link EngineDocuments} rebuilds sources with it.
 */
final class IgnoredValues {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper SMILE = new ObjectMapper(new SmileFactory());

  private IgnoredValues() {}

  /**
   * A value as its type byte says: JSON, or null with the encoding {@code unread} (one the node may write that is
   * not read here: the value cannot be rebuilt, and the rebuilt source says so).
   */
  record Value(JsonNode json, String unread) {
    Value {
      assert (json == null) != (unread == null) : "a value is read or not";
    }
  }

  /**
   * An entry of {@code _ignored_source}: a value at {@code name}, the full dotted path, whose parent object is the
   * first {@code parentOffset - 1} chars of it (0: at the root, the whole name one key).
   */
  record Entry(String name, int parentOffset, Value value) {
    Entry {
      assert parentOffset == 0 || parentOffset >= 2 && parentOffset <= name.length() && name.charAt(parentOffset - 1)
          == '.' : name + " at " + parentOffset;
    }

    /** The parent object's full path, empty at the root. */
    String parent() {
      return parentOffset == 0 ? "" : name.substring(0, parentOffset - 1);
    }

    /** The key in the parent object. */
    String leaf() {
      return name.substring(parentOffset);
    }
  }

  /**
   * The values of binary doc values {@code field} in document {@code doc}, in the order indexed: empty if it has
   * none, null if the segment has no such binary field.
   *
   * @throws IllegalStateException if the values are not what their count and lengths say, naming field and document
   */
  static List<BytesRef> read(LeafReader leaf, String field, int doc) throws IOException {
    FieldInfo info = leaf.getFieldInfos().fieldInfo(field);
    if (info == null || info.getDocValuesType() != DocValuesType.BINARY) {
      return null;
    }
    var dv = DocValues.getBinary(leaf, field);
    if (!dv.advanceExact(doc)) {
      return List.of();
    }
    BytesRef b = dv.binaryValue();
    NumericDocValues counts = leaf.getNumericDocValues(field + ".counts");
    long count = -1; // no counts field: the count leads the value
    if (counts != null) {
      if (!counts.advanceExact(doc)) {
        throw new IllegalStateException("'" + field + "' of document " + doc + " has a value but no count in '"
            + field + ".counts'");
      }
      count = counts.longValue();
    }
    return split(b, count, field, doc);
  }

  /**
   * The values of one binary doc value {@code b}: itself if {@code count} is 1, else {@code count} values each a VInt
   * length and bytes; {@code count} -1: a VInt count first. Values share {@code b}'s bytes.
   */
  static List<BytesRef> split(BytesRef b, long count, String field, int doc) {
    if (count == 1) {
      return List.of(b);
    }
    var in = new ByteArrayDataInput(b.bytes, b.offset, b.length);
    if (count == -1) {
      count = in.readVInt();
    }
    if (count < 1 || count > b.length) {
      throw new IllegalStateException("'" + field + "' of document " + doc + " counts " + count + " values in "
          + b.length + " bytes");
    }
    List<BytesRef> values = new ArrayList<>((int) count);
    int end = b.offset + b.length;
    for (long i = 0; i < count; i++) {
      int length = in.readVInt();
      int at = in.getPosition(); // in b.bytes
      if (length < 0 || length > end - at) {
        throw new IllegalStateException("value " + i + " of " + count + " of '" + field + "' in document " + doc
            + " is " + length + " bytes, past the " + b.length + " bytes of its doc value");
      }
      values.add(new BytesRef(b.bytes, at, length));
      in.skipBytes(length);
    }
    if (in.getPosition() != end) {
      throw new IllegalStateException("the " + count + " values of '" + field + "' in document " + doc + " end "
          + (end - in.getPosition()) + " bytes before their doc value's " + b.length);
    }
    return values;
  }

  /**
   * An {@code _ignored_source} entry.
   *
   * @param where the entry, as an error names it
   * @throws IllegalStateException if its name does not fit in its bytes or its parent offset in its name
   */
  static Entry entry(BytesRef b, String where) {
    if (b.length < 4) {
      throw new IllegalStateException(where + " is " + b.length + " bytes, shorter than its name's length");
    }
    int header = (b.bytes[b.offset] & 0xff) | (b.bytes[b.offset + 1] & 0xff) << 8
        | (b.bytes[b.offset + 2] & 0xff) << 16 | (b.bytes[b.offset + 3] & 0xff) << 24;
    int nameLength = header & 0xffff;
    int parentOffset = header >>> 16;
    int at = b.offset + 4;
    int end = b.offset + b.length;
    int chars = 0;
    while (chars < nameLength) { // UTF-8 bytes until as many UTF-16 chars as the name has
      if (at >= end) {
        throw new IllegalStateException(where + "'s name of " + nameLength + " chars runs past its " + b.length
            + " bytes");
      }
      int lead = b.bytes[at] & 0xff;
      int bytes = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : -1;
      if (bytes < 0 || at + bytes > end) {
        throw new IllegalStateException(where + "'s name is not UTF-8 at byte " + (at - b.offset));
      }
      at += bytes;
      chars += bytes == 4 ? 2 : 1;
    }
    if (chars != nameLength) {
      throw new IllegalStateException(where + "'s name of " + nameLength + " chars ends inside a character");
    }
    String name = new String(b.bytes, b.offset + 4, at - b.offset - 4, StandardCharsets.UTF_8);
    if (parentOffset != 0 && (parentOffset < 2 || parentOffset > name.length()
        || name.charAt(parentOffset - 1) != '.')) {
      throw new IllegalStateException(where + " '" + name + "' has its parent object at " + parentOffset
          + ", not after a dot of its name");
    }
    return new Entry(name, parentOffset, value(new BytesRef(b.bytes, at, end - at), where + " '" + name + "'"));
  }

  /**
   * A value: type byte {@code S} a UTF-8 string, {@code I}, {@code L}, {@code F}, {@code D} a little-endian int32,
   * int64, float32, float64, {@code t} and {@code f} booleans, {@code n} null, {@code j} an object or array as JSON,
   * {@code s} as SMILE; {@code c} (CBOR), {@code y} (YAML), {@code i} (big integer), {@code d} (big decimal),
   * {@code b} (binary) and {@code v} (void) are {@link Value#unread}.
   *
   * @param where the value, as an error names it
   * @throws IllegalStateException for an unknown type byte, or a value whose length is not its type's
   */
  static Value value(BytesRef b, String where) {
    if (b.length == 0) {
      throw new IllegalStateException(where + " is empty: no type byte");
    }
    JsonNodeFactory json = JsonNodeFactory.instance;
    int at = b.offset + 1;
    int length = b.length - 1;
    char type = (char) (b.bytes[b.offset] & 0xff);
    return switch (type) {
      case 'S' -> new Value(json.textNode(new String(b.bytes, at, length, StandardCharsets.UTF_8)), null);
      case 'I' -> new Value(json.numberNode((int) littleEndian(b, 4, where)), null);
      case 'L' -> new Value(json.numberNode(littleEndian(b, 8, where)), null);
      case 'F' -> new Value(json.numberNode(Float.intBitsToFloat((int) littleEndian(b, 4, where))), null);
      case 'D' -> new Value(json.numberNode(Double.longBitsToDouble(littleEndian(b, 8, where))), null);
      case 't', 'f', 'n' -> {
        if (length != 0) {
          throw new IllegalStateException(where + " of type '" + type + "' has " + length + " bytes after it");
        }
        yield new Value(type == 'n' ? json.nullNode() : json.booleanNode(type == 't'), null);
      }
      case 'j' -> new Value(parse(JSON, b, where, "JSON"), null);
      case 's' -> new Value(parse(SMILE, b, where, "SMILE"), null);
      case 'c' -> new Value(null, "CBOR");
      case 'y' -> new Value(null, "YAML");
      case 'i' -> new Value(null, "a big integer");
      case 'd' -> new Value(null, "a big decimal");
      case 'b' -> new Value(null, "binary");
      case 'v' -> new Value(null, "void");
      default -> throw new IllegalStateException(where + " has an unknown type byte 0x"
          + Integer.toHexString(type));
    };
  }

  private static long littleEndian(BytesRef b, int bytes, String where) {
    if (b.length != 1 + bytes) {
      throw new IllegalStateException(where + " of type '" + (char) b.bytes[b.offset] + "' is " + (b.length - 1)
          + " bytes, not " + bytes);
    }
    long v = 0;
    for (int i = bytes; i > 0; i--) {
      v = v << 8 | (b.bytes[b.offset + i] & 0xff);
    }
    return v;
  }

  private static JsonNode parse(ObjectMapper mapper, BytesRef b, String where, String what) {
    try {
      JsonNode node = mapper.readTree(b.bytes, b.offset + 1, b.length - 1);
      if (node == null || node.isMissingNode()) {
        throw new IllegalStateException(where + " holds no " + what + " value");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(where + " is not " + what + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalStateException(where + " cannot be read as " + what + ": " + e.getMessage(), e);
    }
  }
}
