/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.Field;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code .vfi} file of Elasticsearch's generic flat vectors format over bytes written here as the format's
 * description says (a real 9.5.3 node's is read by {@code VectorsSnapshotTest}): the raw formats in Lucene's flat
 * layout are read; bfloat16's and unknown ones, a field the segment has not, a bad flag, a field listed twice, a
 * version past 0 and a damaged byte are refused naming the file.
 */
class GenericFlatVectorsMetaTest {
  private static final String SUFFIX = "ES94HnswScalarQuantizedVectorsFormat_0";
  private Directory dir;
  private SegmentInfo segment;
  private FieldInfos fields;

  /** A real segment with a vector field {@code v} and a keyword {@code k}, for its id and field numbers. */
  @BeforeEach
  void segment() throws IOException {
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setUseCompoundFile(false))) {
      Document d = new Document();
      d.add(new KnnFloatVectorField("v", new float[] {1, 2, 3, 4}));
      d.add(new StringField("k", "x", Field.Store.NO));
      w.addDocument(d);
    }
    segment = SegmentInfos.readLatestCommit(dir).info(0).info;
    try (DirectoryReader r = DirectoryReader.open(dir)) {
      fields = r.leaves().get(0).reader().getFieldInfos();
    }
  }

  @AfterEach
  void close() throws IOException {
    dir.close();
  }

  private int number(String field) {
    return fields.fieldInfo(field).number;
  }

  /** Writes the {@code .vfi} file: header at {@code version}, the entries {@code body} writes, the end marker, footer. */
  private String write(int version, IOConsumer body) throws IOException {
    String file = segment.name + "_" + SUFFIX + ".vfi";
    if (java.util.Arrays.asList(dir.listAll()).contains(file)) {
      dir.deleteFile(file);
    }
    try (IndexOutput out = dir.createOutput(file, IOContext.DEFAULT)) {
      CodecUtil.writeIndexHeader(out, "ES93GenericFlatVectorsFormatMeta", version, segment.getId(), SUFFIX);
      body.accept(out);
      out.writeInt(-1);
      CodecUtil.writeFooter(out);
    }
    return file;
  }

  private interface IOConsumer {
    void accept(IndexOutput out) throws IOException;
  }

  private Map<String, String> read() throws IOException {
    return GenericFlatVectorsMeta.read(new SegmentReadState(dir, segment, fields, IOContext.DEFAULT, SUFFIX));
  }

  private static IOConsumer entry(int field, String raw, int directIo) {
    return out -> {
      out.writeInt(field);
      out.writeString(raw);
      out.writeByte((byte) directIo);
    };
  }

  @Test
  void readsTheRawFormatsInLucenesFlatLayout() throws IOException {
    for (String raw : new String[] {"Lucene99FlatVectorsFormat", "ES93BitFlatVectorsFormat"}) {
      for (int directIo : new int[] {0, 1}) {
        write(0, entry(number("v"), raw, directIo));
        assertEquals(Map.of("v", raw), read());
      }
    }
    write(0, out -> {});
    assertEquals(Map.of(), read());
  }

  @Test
  void refusesBfloat16AndUnknownRawFormatsNamingFieldAndFile() throws IOException {
    String file = write(0, entry(number("v"), "ES93BFloat16FlatVectorsFormat", 0));
    CorruptIndexException e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains("'v'") && e.getMessage().contains("ES93BFloat16FlatVectorsFormat")
        && e.getMessage().contains("bfloat16") && e.getMessage().contains(file), e.getMessage());
    write(0, entry(number("v"), "ES99SomethingNew", 0));
    e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains("ES99SomethingNew") && e.getMessage().contains(file), e.getMessage());
  }

  @Test
  void refusesEntriesThatDoNotFitTheSegment() throws IOException {
    String file = write(0, entry(number("k"), "Lucene99FlatVectorsFormat", 0));
    CorruptIndexException e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains("no vector field") && e.getMessage().contains(file), e.getMessage());
    write(0, entry(99, "Lucene99FlatVectorsFormat", 0));
    assertThrows(CorruptIndexException.class, this::read);
    write(0, entry(number("v"), "Lucene99FlatVectorsFormat", 2));
    e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains("direct I/O flag 2"), e.getMessage());
    write(0, out -> {
      entry(number("v"), "Lucene99FlatVectorsFormat", 0).accept(out);
      entry(number("v"), "Lucene99FlatVectorsFormat", 0).accept(out);
    });
    e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains("twice"), e.getMessage());
  }

  @Test
  void aNewerVersionIsTooNewAndADamagedByteIsCaught() throws IOException {
    String file = write(1, entry(number("v"), "Lucene99FlatVectorsFormat", 0));
    IndexFormatTooNewException tooNew = assertThrows(IndexFormatTooNewException.class, this::read);
    assertTrue(tooNew.getMessage().contains(file), tooNew.getMessage());
    write(0, entry(number("v"), "Lucene99FlatVectorsFormat", 0));
    byte[] bytes;
    try (IndexInput in = dir.openInput(file, IOContext.READONCE)) {
      bytes = new byte[(int) in.length()];
      in.readBytes(bytes, 0, bytes.length);
    }
    // the direct I/O flag, 0 made 1: an entry that still parses, caught by the checksum alone
    bytes[bytes.length - CodecUtil.footerLength() - Integer.BYTES - 1] ^= 0x01;
    dir.deleteFile(file);
    try (IndexOutput out = dir.createOutput(file, IOContext.DEFAULT)) {
      out.writeBytes(bytes, bytes.length);
    }
    CorruptIndexException e = assertThrows(CorruptIndexException.class, this::read);
    assertTrue(e.getMessage().contains(file) && e.getMessage().contains("checksum failed"), e.getMessage());
  }
}
