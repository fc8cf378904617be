/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.time.Instant;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.InetAddressPoint;
import org.apache.lucene.document.LatLonDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.junit.jupiter.api.Test;

/**
 * A document's synthetic {@code _source} rebuilt from doc values written as Elasticsearch writes them, against the
 * {@code _source} an Elasticsearch 9.3.3 node printed for the same document in a logsdb index: dates in their
 * field's format, {@code date_nanos} with as many digits as it needs, IPv6 in RFC 5952's text, IPv4-mapped as IPv4,
 * {@code half_float} as its half-precision value, {@code geo_point} decoded.
 */
class SyntheticSourceTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachKindIsPrintedAsTheNodePrintsIt() throws Exception {
    IndexMapping mapping = IndexMapping.of(JSON.readTree("""
        {"properties": {
          "d1": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss||epoch_millis"},
          "d2": {"type": "date", "format": "epoch_millis"},
          "d3": {"type": "date", "format": "epoch_second"},
          "d4": {"type": "date", "format": "strict_date"},
          "ts": {"type": "date"},
          "dn": {"type": "date_nanos"},
          "dn2": {"type": "date_nanos", "format": "strict_date_optional_time"},
          "ip": {"type": "ip"},
          "hf": {"type": "half_float"},
          "f": {"type": "float"},
          "gp": {"type": "geo_point"}
        }}"""));
    long t = Instant.parse("2024-03-14T20:00:16Z").toEpochMilli();
    long nanos = t * 1_000_000L;
    Document doc = new Document();
    doc.add(new SortedNumericDocValuesField("d1", t));
    doc.add(new SortedNumericDocValuesField("d2", t + 123));
    doc.add(new SortedNumericDocValuesField("d3", t + 500));
    doc.add(new SortedNumericDocValuesField("d4", t));
    doc.add(new SortedNumericDocValuesField("ts", t));
    doc.add(new SortedNumericDocValuesField("dn", nanos + 123_400_000));
    doc.add(new SortedNumericDocValuesField("dn2", nanos + 123_456_789));
    for (String ip : new String[] {"2001:db8:0:0:0:0:0:7c5", "::ffff:10.1.2.3", "2001:0:0:1:0:0:0:1", "::1", "fe80::",
        "0:0:0:0:0:0:0:0"}) {
      doc.add(new SortedSetDocValuesField("ip", new BytesRef(InetAddressPoint.encode(InetAddress.getByName(ip)))));
    }
    short half = Float.floatToFloat16(1.1f);
    doc.add(new SortedNumericDocValuesField("hf", half ^ ((half >> 15) & 0x7fff))); // sortable, as the node writes it
    doc.add(new SortedNumericDocValuesField("f", NumericUtils.floatToSortableInt(1.1f)));
    doc.add(new LatLonDocValuesField("gp", 40.712, -74.006));
    try (var dir = new ByteBuffersDirectory()) {
      try (var w = new IndexWriter(dir, new IndexWriterConfig())) {
        w.addDocument(doc);
      }
      try (var reader = DirectoryReader.open(dir)) {
        EngineDocuments.RebuiltSource rebuilt = EngineDocuments.sourceFromDocValues(reader, 0, mapping);
        // the node's _source, but for ip: without "<field>.offsets" the array is in doc-values order (bytes)
        assertEquals(JSON.readTree("""
            {"d1": "2024-03-14 20:00:16", "d2": "1710446416123", "d3": "1710446416.5", "d4": "2024-03-14",
             "ts": "2024-03-14T20:00:16.000Z", "dn": "2024-03-14T20:00:16.1234Z", "dn2": "2024-03-14T20:00:16.123Z",
             "ip": ["::", "::1", "10.1.2.3", "2001:0:0:1::1", "2001:db8::7c5", "fe80::"],
             "hf": 1.0996094, "f": 1.1, "gp": {"lat": 40.71199997328222, "lon": -74.00600004941225}}"""),
            JSON.readTree(rebuilt.json()));
        assertEquals(java.util.List.of(), rebuilt.leftOut());
      }
    }
  }
}
