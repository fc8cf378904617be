/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import org.apache.lucene.codecs.StoredFieldsWriter;
import org.apache.lucene.codecs.compressing.CompressionMode;
import org.apache.lucene.codecs.compressing.Compressor;
import org.apache.lucene.codecs.compressing.Decompressor;
import org.apache.lucene.codecs.lucene90.compressing.Lucene90CompressingStoredFieldsFormat;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.store.DataInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.util.ArrayUtil;
import org.apache.lucene.util.BytesRef;

/**
 * Reads the stored fields of Elasticsearch's own codecs ({@code index.codec: best_compression}, logsdb, and its
 * default from 8.14 where its codec is named): Lucene's compressing stored-fields container
 * ({@link Lucene90CompressingStoredFieldsFormat}, format name {@code ZstdStoredFields814}) whose chunks are each a
 * VInt length and one zstd frame of that length, no dictionary; an empty chunk has neither. Both of Elasticsearch's
 * levels (speed and compression) are read alike: the container records its chunk sizes. Decompressed with zstd-jni.
 * Elasticsearch's frames carry no checksum of their own: as with Lucene's LZ4 and DEFLATE chunks, a damaged byte
 * inside a frame is caught by the file's checksum ({@code checkIntegrity}), a damaged frame header or length here.
 */
final class ZstdStoredFieldsFormat extends Lucene90CompressingStoredFieldsFormat {
  /** How the chunks are compressed: one zstd frame each. */
  static final CompressionMode CHUNKS = new ZstdChunks();
  static final ZstdStoredFieldsFormat INSTANCE = new ZstdStoredFieldsFormat();

  private ZstdStoredFieldsFormat() {
    // the chunk size, documents per chunk and block shift matter only to a writer
    super("ZstdStoredFields814", CHUNKS, 240 * 1024, 2048, 10);
  }

  @Override
  public StoredFieldsWriter fieldsWriter(Directory directory, SegmentInfo si, IOContext context) {
    throw new UnsupportedOperationException("ZstdStoredFields814 is read-only here: Permafrost never writes an engine's"
        + " segments");
  }

  /** Chunks as one zstd frame each. */
  private static final class ZstdChunks extends CompressionMode {
    @Override
    public Compressor newCompressor() {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public Decompressor newDecompressor() {
      return new ZstdDecompressor();
    }

    @Override
    public String toString() {
      return "ZSTD";
    }
  }

  private static final class ZstdDecompressor extends Decompressor {
    private byte[] compressed = new byte[0];

    @Override
    public void decompress(DataInput in, int originalLength, int offset, int length, BytesRef bytes) throws IOException {
      assert offset + length <= originalLength;
      if (originalLength == 0) {
        bytes.offset = 0;
        bytes.length = 0;
        return;
      }
      int compressedLength = in.readVInt();
      if (compressedLength <= 0) {
        throw new CorruptIndexException("a zstd chunk of " + compressedLength + " bytes for " + originalLength
            + " bytes of stored fields", in);
      }
      compressed = ArrayUtil.growNoCopy(compressed, compressedLength);
      in.readBytes(compressed, 0, compressedLength);
      bytes.bytes = ArrayUtil.growNoCopy(bytes.bytes, originalLength);
      long n;
      try {
        n = Zstd.decompressByteArray(bytes.bytes, 0, originalLength, compressed, 0, compressedLength);
      } catch (ZstdException e) {
        throw new CorruptIndexException("a zstd chunk of " + compressedLength + " bytes does not decompress to "
            + originalLength + ": " + e.getMessage(), in, e);
      }
      if (Zstd.isError(n)) {
        throw new CorruptIndexException("a zstd chunk of " + compressedLength + " bytes does not decompress: "
            + Zstd.getErrorName(n), in);
      }
      if (n != originalLength) {
        throw new CorruptIndexException("a zstd chunk decompressed to " + n + " bytes, the container recorded "
            + originalLength, in);
      }
      bytes.offset = offset;
      bytes.length = length;
    }

    @Override
    public Decompressor clone() {
      return new ZstdDecompressor();
    }
  }
}
