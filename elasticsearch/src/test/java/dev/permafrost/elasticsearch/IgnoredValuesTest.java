/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * {@link IgnoredValues} over bytes a real Elasticsearch 9.5.3 node wrote (copied from its {@code _ignored_source},
 * {@code <field>._original} and {@code <field>._ignore_malformed} doc values, see {@code IgnoredFixture}), and over
 * bytes made here for the type bytes it did not write; and a source whose values cannot all be rebuilt says which.
 */
class IgnoredValuesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static BytesRef hex(String hex) {
    return new BytesRef(HexFormat.of().parseHex(hex));
  }

  private static BytesRef bytes(String latin1Prefix, byte... tail) {
    byte[] head = latin1Prefix.getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[head.length + tail.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return new BytesRef(all);
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  /** One entry, count 1: the binary value is the entry, a string under a mapped object (parent offset 5). */
  @Test
  void anEntryUnderAnObjectNamesItsParent() throws Exception {
    List<BytesRef> values = IgnoredValues.split(hex("07000500686f73742e69705331302e392e382e313139"), 1, "f", 0);
    assertEquals(1, values.size());
    IgnoredValues.Entry e = IgnoredValues.entry(values.get(0), "e");
    assertEquals("host.ip", e.name());
    assertEquals(5, e.parentOffset());
    assertEquals("host", e.parent());
    assertEquals("ip", e.leaf());
    assertEquals(json("\"10.9.8.119\""), e.value().json());
  }

  /** Count 2: a VInt length before each entry; doubles little-endian, 1e-300 to the last bit. */
  @Test
  void twoEntriesOfDoubles() throws Exception {
    List<BytesRef> values = IgnoredValues.split(hex("100300000064626c44000000000000f43f110400000074696e79"
        + "4459f3f8c21f6ea501"), 2, "_ignored_source", 4);
    assertEquals(2, values.size());
    IgnoredValues.Entry dbl = IgnoredValues.entry(values.get(0), "e0");
    IgnoredValues.Entry tiny = IgnoredValues.entry(values.get(1), "e1");
    assertEquals("dbl", dbl.name());
    assertEquals(0, dbl.parentOffset());
    assertEquals("", dbl.parent());
    assertEquals(1.25, dbl.value().json().doubleValue());
    assertEquals("tiny", tiny.name());
    assertEquals(Double.doubleToRawLongBits(1e-300), Double.doubleToRawLongBits(tiny.value().json().doubleValue()));
  }

  /** Count 3: an object as JSON two levels down (parent offset 4), a long and a negative int. */
  @Test
  void threeEntriesOfJsonLongAndInt() throws Exception {
    List<BytesRef> values = IgnoredValues.split(hex("23080004006f626a2e646565706a7b226572223a5b312c7b22657374223a22"
        + "78227d5d7d10030000006269674c351cdcdf020000000e05000000736d616c6c49f9ffffff"), 3, "_ignored_source", 6);
    assertEquals(3, values.size());
    IgnoredValues.Entry deep = IgnoredValues.entry(values.get(0), "e0");
    assertEquals("obj.deep", deep.name());
    assertEquals(4, deep.parentOffset());
    assertEquals("obj", deep.parent());
    assertEquals("deep", deep.leaf());
    assertEquals(json("{\"er\":[1,{\"est\":\"x\"}]}"), deep.value().json());
    IgnoredValues.Entry big = IgnoredValues.entry(values.get(1), "e1");
    assertEquals("big", big.name());
    assertTrue(big.value().json().isLong());
    assertEquals(12345678901L, big.value().json().longValue());
    IgnoredValues.Entry small = IgnoredValues.entry(values.get(2), "e2");
    assertTrue(small.value().json().isInt());
    assertEquals(-7, small.value().json().intValue());
  }

  /** The node's JSON entries: an object kept whole (keys in its own order), a dotted name made an object, []. */
  @Test
  void jsonEntries() throws Exception {
    IgnoredValues.Entry meta = IgnoredValues.entry(hex("040000006d6574616a7b2261223a312c2262223a7b2263223a2264222c22"
        + "65223a5b312c325d7d7d"), "e");
    assertEquals("meta", meta.name());
    assertEquals("{\"a\":1,\"b\":{\"c\":\"d\",\"e\":[1,2]}}", JSON.writeValueAsString(meta.value().json()));
    List<BytesRef> two = IgnoredValues.split(hex("1401000000616a7b2262223a22646f74746564227d20040000007a6574616a7b22"
        + "616c706861223a5b226f6e65222c2274776f225d7d"), 2, "_ignored_source", 1);
    assertEquals("a", IgnoredValues.entry(two.get(0), "e0").name());
    assertEquals(json("{\"b\":\"dotted\"}"), IgnoredValues.entry(two.get(0), "e0").value().json());
    assertEquals(json("{\"alpha\":[\"one\",\"two\"]}"), IgnoredValues.entry(two.get(1), "e1").value().json());
    IgnoredValues.Entry empty = IgnoredValues.entry(hex("05000000656d7074796a5b5d"), "e");
    assertEquals(json("[]"), empty.value().json());
  }

  /** Booleans: {@code f} an unmapped false, {@code t} a malformed true; {@code S} malformed text. */
  @Test
  void booleansAndStrings() throws Exception {
    assertEquals(json("false"), IgnoredValues.entry(hex("04000000666c616766"), "e").value().json());
    assertEquals(json("true"), IgnoredValues.value(hex("74"), "v").json());
    assertEquals(json("\"118x\""), IgnoredValues.value(hex("5331313878"), "v").json());
    assertEquals(json("\"999.1.1.117\""), IgnoredValues.value(hex("533939392e312e312e313137"), "v").json());
  }

  /** {@code <field>._original} of three values, count 3: raw UTF-8, repeats and order kept. */
  @Test
  void threeOriginalValues() {
    List<BytesRef> values = IgnoredValues.split(hex("0c782d6c6f6e672d76616c75650c782d6c6f6e672d76616c756510c3bc6ec3af"
        + "63c3b664c3a92d6c6f6e67"), 3, "labels._original", 1);
    assertEquals(List.of("x-long-value", "x-long-value", "ünïcödé-long"),
        values.stream().map(BytesRef::utf8ToString).toList());
  }

  /** 9.4's form, without a {@code .counts} field: a VInt count first. */
  @Test
  void aLeadingCountWithoutACountsField() {
    List<BytesRef> values = IgnoredValues.split(hex("020261620163"), -1, "f._original", 0);
    assertEquals(List.of("ab", "c"), values.stream().map(BytesRef::utf8ToString).toList());
    assertEquals(List.of("abc"), IgnoredValues.split(hex("0103616263"), -1, "f._original", 0).stream()
        .map(BytesRef::utf8ToString).toList());
  }

  /** The type bytes 9.5.3 did not write for these documents: F, n, s (SMILE); c and y are not read. */
  @Test
  void typesMadeHere() throws Exception {
    int bits = Float.floatToRawIntBits(1.1f);
    assertEquals(1.1f, IgnoredValues.value(bytes("F", (byte) bits, (byte) (bits >> 8), (byte) (bits >> 16),
        (byte) (bits >> 24)), "v").json().floatValue());
    assertTrue(IgnoredValues.value(bytes("n"), "v").json().isNull());
    ByteArrayOutputStream smile = new ByteArrayOutputStream();
    smile.write('s');
    smile.write(new ObjectMapper(new SmileFactory()).writeValueAsBytes(json("{\"k\":[1,\"two\",{\"x\":2.5}]}")));
    assertEquals(json("{\"k\":[1,\"two\",{\"x\":2.5}]}"), IgnoredValues.value(new BytesRef(smile.toByteArray()), "v")
        .json());
    for (String type : List.of("c", "y", "i", "d", "b", "v")) {
      IgnoredValues.Value v = IgnoredValues.value(bytes(type, (byte) 1, (byte) 2), "v");
      assertNull(v.json(), type);
      assertTrue(v.unread() != null && !v.unread().isEmpty(), type);
    }
    // a name with a char outside the BMP: two UTF-16 chars, four UTF-8 bytes
    byte[] name = "a😀".getBytes(StandardCharsets.UTF_8);
    BytesRef entry = bytes("\u0003\u0000\u0000\u0000", concat(name, "Sx".getBytes(StandardCharsets.UTF_8)));
    assertEquals("a😀", IgnoredValues.entry(entry, "e").name());
    assertEquals(json("\"x\""), IgnoredValues.entry(entry, "e").value().json());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** Bytes that are not what they say fail, naming what is at fault. */
  @Test
  void badBytesFailNamingThem() {
    assertMessage("unknown type byte 0x5a", () -> IgnoredValues.value(hex("5a00"), "value 0 of 'x'"));
    assertMessage("is 3 bytes, not 4", () -> IgnoredValues.value(hex("49010203"), "value 0 of 'x'"));
    assertMessage("has 1 bytes after it", () -> IgnoredValues.value(hex("7400"), "v"));
    assertMessage("empty", () -> IgnoredValues.value(new BytesRef(), "v"));
    assertMessage("is not JSON", () -> IgnoredValues.value(bytes("j{\"a\":"), "v"));
    assertMessage("runs past", () -> IgnoredValues.entry(hex("0900000061626353"), "entry 0"));
    assertMessage("not after a dot", () -> IgnoredValues.entry(hex("0300020061626353"), "entry 0"));
    assertMessage("shorter than", () -> IgnoredValues.entry(hex("0300"), "entry 0"));
    assertMessage("past the 5 bytes", () -> IgnoredValues.split(hex("0261620563"), 2, "f", 3));
    assertMessage("end 1 bytes before", () -> IgnoredValues.split(hex("0161016263"), 2, "f", 3));
    assertMessage("counts 0 values", () -> IgnoredValues.split(hex("00"), -1, "f", 3));
  }

  private static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
    IllegalStateException e = assertThrows(IllegalStateException.class, call);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }

  /**
   * A document whose kept values are not all readable (a CBOR entry, a YAML malformed value): the rebuilt source
   * has every other value, in the node's key order, and lists those fields in {@link
   * EngineDocuments.RebuiltSource#leftOut}; the readable ones are merged as the node merges them.
   */
  @Test
  void valuesNotReadAreListedNotDropped() throws Exception {
    IndexMapping mapping = IndexMapping.of(json("""
        {"properties": {
          "k": {"type": "keyword", "ignore_above": 4},
          "n": {"type": "long", "ignore_malformed": true},
          "o": {"properties": {"m": {"type": "long"}}}
        }}"""));
    Document doc = new Document();
    doc.add(new SortedSetDocValuesField("k", new BytesRef("ab")));
    doc.add(new BinaryDocValuesField("k._original", new BytesRef("abcdef")));
    doc.add(new NumericDocValuesField("k._original.counts", 1));
    doc.add(new SortedNumericDocValuesField("n", 7));
    doc.add(new BinaryDocValuesField("n._ignore_malformed", hex("0174" + "03793a31"))); // t, then YAML
    doc.add(new NumericDocValuesField("n._ignore_malformed.counts", 2));
    doc.add(new SortedNumericDocValuesField("o.m", 3));
    ByteArrayOutputStream entries = new ByteArrayOutputStream();
    for (byte[] e : new byte[][] {entry(0, "zz", "Sz"), entry(0, "cb", "c\u00a1\u0061\u0001"),
        entry(2, "o.x", "j[1,{\"b\":2,\"a\":1}]")}) {
      entries.write(e.length);
      entries.write(e);
    }
    doc.add(new BinaryDocValuesField("_ignored_source", new BytesRef(entries.toByteArray())));
    doc.add(new NumericDocValuesField("_ignored_source.counts", 3));
    try (var dir = new ByteBuffersDirectory()) {
      try (var w = new IndexWriter(dir, new IndexWriterConfig())) {
        w.addDocument(doc);
      }
      try (var reader = DirectoryReader.open(dir)) {
        EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(reader, 0, mapping);
        assertEquals("{\"k\":[\"ab\",\"abcdef\"],\"n\":[7,true],\"o\":{\"m\":3,\"x\":[1,{\"b\":2,\"a\":1}]},"
            + "\"zz\":\"z\"}", rebuilt.json());
        assertEquals(List.of("n", "cb"), rebuilt.leftOut());
      }
    }
  }

  private static byte[] entry(int parentOffset, String name, String value) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
    int header = name.length() + 65536 * parentOffset;
    byte[] e = new byte[4 + n.length + v.length];
    for (int i = 0; i < 4; i++) {
      e[i] = (byte) (header >>> (8 * i));
    }
    System.arraycopy(n, 0, e, 4, n.length);
    System.arraycopy(v, 0, e, 4 + n.length, v.length);
    return e;
  }
}
