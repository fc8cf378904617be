/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.Test;

/**
 * {@code ES94BloomFilterDocValuesFormat} opens the two filter files of a segment written as the format notes say,
 * reads {@code _id} as BINARY with no values, and fails naming the file for a damaged byte (by {@code checkIntegrity}
 * in the bits, at opening in the metadata), a newer version, a size that is not a power of two or a data file of
 * another length than the metadata says.
 */
class ES94BloomFilterDocValuesFormatTest {
  private static final String SUFFIX = ES94BloomFilterDocValuesFormat.NAME + "_0";

  private record Segment(SegmentInfo info, FieldInfos fields) {}

  private static Segment write(Directory dir) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig()
        .setCodec(SyntheticIdTestSegment.writingCodec("ES93TSDBDefaultCompressionLucene103Codec", false))
        .setIndexSort(SyntheticIdTestSegment.INDEX_SORT).setUseCompoundFile(false);
    try (IndexWriter w = new IndexWriter(dir, config)) {
      w.addDocument(SyntheticIdTestSegment.document("a", new byte[] {1, 2, 3}, 1000, 7, true));
      w.addDocument(SyntheticIdTestSegment.document("b", new byte[] {1, 2, 3}, 2000, 7, true));
    }
    SegmentInfo si = SegmentInfos.readLatestCommit(dir).info(0).info;
    return new Segment(si, si.getCodec().fieldInfosFormat().read(dir, si, "", IOContext.DEFAULT));
  }

  private static ES94BloomFilterDocValuesFormat.Producer open(Directory dir, Segment s) throws IOException {
    DocValuesFormat format = DocValuesFormat.forName(ES94BloomFilterDocValuesFormat.NAME);
    return (ES94BloomFilterDocValuesFormat.Producer) format.fieldsProducer(
        new SegmentReadState(dir, s.info(), s.fields(), IOContext.DEFAULT, SUFFIX));
  }

  private static String file(Segment s, String extension) {
    return s.info().name + "_" + SUFFIX + "." + extension;
  }

  private static byte[] read(Directory dir, String name) throws IOException {
    try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
      byte[] b = new byte[(int) in.length()];
      in.readBytes(b, 0, b.length);
      return b;
    }
  }

  private static void replace(Directory dir, String name, byte[] bytes) throws IOException {
    dir.deleteFile(name);
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      out.writeBytes(bytes, bytes.length);
    }
  }

  @Test
  void opensTheFilterAndReadsNoValues() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      Segment s = write(dir);
      try (var p = open(dir, s)) {
        assertEquals(SyntheticIdTestSegment.FILTER_BITS, p.sizeInBits);
        assertEquals(4, p.hashFunctions);
        p.checkIntegrity();
        BinaryDocValues dv = p.getBinary(s.fields().fieldInfo("_id"));
        assertEquals(DocIdSetIterator.NO_MORE_DOCS, dv.nextDoc());
        assertThrows(IllegalStateException.class, () -> p.getSorted(s.fields().fieldInfo("_id")));
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        BinaryDocValues dv = reader.leaves().get(0).reader().getBinaryDocValues("_id");
        assertEquals(DocIdSetIterator.NO_MORE_DOCS, dv.nextDoc());
      }
    }
  }

  @Test
  void aDamagedBitIsCaughtByTheChecksumNamingTheFile() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      Segment s = write(dir);
      String data = file(s, "sfbf");
      byte[] b = read(dir, data);
      b[b.length - CodecUtil.footerLength() - 3] ^= 0x04;
      replace(dir, data, b);
      try (var p = open(dir, s)) {
        CorruptIndexException e = assertThrows(CorruptIndexException.class, p::checkIntegrity);
        assertTrue(e.getMessage().contains(data), e.getMessage());
      }
    }
  }

  @Test
  void damagedMetadataFailsAtOpening() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      Segment s = write(dir);
      String meta = file(s, "sfbfm");
      byte[] original = read(dir, meta);
      int afterHeader = CodecUtil.indexHeaderLength(ES94BloomFilterDocValuesFormat.NAME, SUFFIX);

      byte[] b = original.clone();
      b[afterHeader + 1] ^= 0x01; // the size's VInt: a checksum mismatch
      replace(dir, meta, b);
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> open(dir, s));
      assertTrue(e.getMessage().contains(meta), e.getMessage());

      dir.deleteFile(meta); // a newer version, with a right checksum
      try (IndexOutput out = dir.createOutput(meta, IOContext.DEFAULT)) {
        CodecUtil.writeIndexHeader(out, ES94BloomFilterDocValuesFormat.NAME, 1, s.info().getId(), SUFFIX);
        out.writeBytes(original, afterHeader, original.length - afterHeader - CodecUtil.footerLength());
        CodecUtil.writeFooter(out);
      }
      assertThrows(IndexFormatTooNewException.class, () -> open(dir, s));
    }
  }

  @Test
  void aSizeThatIsNotAPowerOfTwoOrAFileOfAnotherLengthIsRefused() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      Segment s = write(dir);
      String meta = file(s, "sfbfm");
      for (int bits : new int[] {1000, 2048}) {
        dir.deleteFile(meta);
        try (IndexOutput out = dir.createOutput(meta, IOContext.DEFAULT)) {
          CodecUtil.writeIndexHeader(out, ES94BloomFilterDocValuesFormat.NAME, 0, s.info().getId(), SUFFIX);
          out.writeVLong(CodecUtil.indexHeaderLength(ES94BloomFilterDocValuesFormat.NAME, SUFFIX));
          out.writeVInt(bits);
          out.writeVInt(4);
          CodecUtil.writeFooter(out);
        }
        CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> open(dir, s));
        String expected = bits == 1000 ? "not a power of two" : "a bloom filter file of";
        assertTrue(e.getMessage().contains(expected), e.getMessage());
      }
    }
  }
}
