/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import com.github.luben.zstd.Zstd;
import dev.permafrost.elasticsearch.DocumentId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesConsumer;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.FieldsConsumer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.NormsProducer;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.codecs.StoredFieldsFormat;
import org.apache.lucene.codecs.compressing.CompressionMode;
import org.apache.lucene.codecs.compressing.Compressor;
import org.apache.lucene.codecs.compressing.Decompressor;
import org.apache.lucene.codecs.lucene90.compressing.Lucene90CompressingStoredFieldsFormat;
import org.apache.lucene.codecs.perfield.PerFieldDocValuesFormat;
import org.apache.lucene.codecs.perfield.PerFieldPostingsFormat;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.Fields;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.DataOutput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BytesRef;

/**
 * Writes time_series segments as Elasticsearch 9.4/9.5 lay out synthetic ids, in Lucene's own formats, for the tests
 * to read back with the codecs under test: {@code _tsid} SORTED, {@code @timestamp} SORTED_NUMERIC,
 * {@code _ts_routing_hash} SORTED (the indexed form of the base64 id of the hash's 4 little-endian bytes), {@code _id}
 * indexed under a postings format named {@code TSDBSyntheticId} that writes nothing and with BINARY doc values under a
 * format named {@code ES94BloomFilterDocValuesFormat} that writes the two filter files (bits not computed), sorted by
 * {@code _tsid} ascending and {@code @timestamp} descending. The writing codec bears the name of the codec under test,
 * so that Lucene reads the segment back through that one (by SPI). Plus a stored field {@code key} and an indexed
 * {@code key} to delete by. Test-only: nothing here is Elasticsearch's code.
 */
final class SyntheticIdTestSegment {
  static final Sort INDEX_SORT = new Sort(new SortField("_tsid", SortField.Type.STRING),
      new SortedNumericSortField("@timestamp", SortField.Type.LONG, true));
  /** Bits of the test filters. */
  static final int FILTER_BITS = 1024;

  private SyntheticIdTestSegment() {}

  /** The {@code _id} of a document, computed as §4.3 of the format notes says, independently of the code under test. */
  static String expectedId(byte[] tsid, long timestamp, int routingHash) {
    ByteBuffer b = ByteBuffer.allocate(tsid.length + 12).order(ByteOrder.BIG_ENDIAN);
    b.put(tsid).putLong(Long.MAX_VALUE - timestamp).putInt(routingHash);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  /** The {@code _ts_routing_hash} term of {@code hash}. */
  static BytesRef routingTerm(int hash) {
    byte[] le = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(hash).array();
    return DocumentId.encode(Base64.getUrlEncoder().withoutPadding().encodeToString(le));
  }

  /** A time series document; {@code _tsid} with a skip index if {@code skipper}. */
  static Document document(String key, byte[] tsid, long timestamp, int routingHash, boolean skipper) {
    Document d = new Document();
    BytesRef t = new BytesRef(tsid);
    d.add(skipper ? SortedDocValuesField.indexedField("_tsid", t) : new SortedDocValuesField("_tsid", t));
    d.add(new SortedNumericDocValuesField("@timestamp", timestamp));
    d.add(new SortedDocValuesField("_ts_routing_hash", routingTerm(routingHash)));
    d.add(new StringField("_id", DocumentId.encode(expectedId(tsid, timestamp, routingHash)), Field.Store.NO));
    d.add(new BinaryDocValuesField("_id", new BytesRef(new byte[] {1})));
    d.add(new StringField("key", key, Field.Store.YES));
    return d;
  }

  /** A document without a series (a tombstone): no {@code _id}. */
  static Document tombstone(String key) {
    Document d = new Document();
    d.add(new StringField("key", key, Field.Store.YES));
    return d;
  }

  /**
   * A codec that writes such segments under {@code name}; stored fields in zstd chunks ({@code ZstdStoredFields814},
   * a VInt length and a frame each) if {@code zstd}, else Lucene's own.
   */
  static FilterCodec writingCodec(String name, boolean zstd) {
    return new FilterCodec(name, LuceneDelegate.newest()) {
      private final PostingsFormat postings = new PerFieldPostingsFormat() {
        @Override
        public PostingsFormat getPostingsFormatForField(String field) {
          return field.equals("_id") ? new NothingWritten()
              : ((PerFieldPostingsFormat) delegate.postingsFormat()).getPostingsFormatForField(field);
        }
      };
      private final DocValuesFormat docValues = new PerFieldDocValuesFormat() {
        @Override
        public DocValuesFormat getDocValuesFormatForField(String field) {
          return field.equals("_id") ? new BloomWriter()
              : ((PerFieldDocValuesFormat) delegate.docValuesFormat()).getDocValuesFormatForField(field);
        }
      };
      private final StoredFieldsFormat stored = zstd ? new Lucene90CompressingStoredFieldsFormat("ZstdStoredFields814",
          new ZstdWriting(), 240 * 1024, 2048, 10) : delegate.storedFieldsFormat();

      @Override
      public PostingsFormat postingsFormat() {
        return postings;
      }

      @Override
      public DocValuesFormat docValuesFormat() {
        return docValues;
      }

      @Override
      public StoredFieldsFormat storedFieldsFormat() {
        return stored;
      }
    };
  }

  /** {@code TSDBSyntheticId}'s writer: nothing on disk. */
  static final class NothingWritten extends PostingsFormat {
    NothingWritten() {
      super(TSDBSyntheticIdPostingsFormat.NAME);
    }

    @Override
    public FieldsConsumer fieldsConsumer(SegmentWriteState state) {
      return new FieldsConsumer() {
        @Override
        public void write(Fields fields, NormsProducer norms) {}

        @Override
        public void close() {}
      };
    }

    @Override
    public FieldsProducer fieldsProducer(SegmentReadState state) {
      throw new UnsupportedOperationException("write-only");
    }
  }

  /** The bloom filter format's files, with a fixed pattern for bits. */
  static final class BloomWriter extends DocValuesFormat {
    BloomWriter() {
      super(ES94BloomFilterDocValuesFormat.NAME);
    }

    @Override
    public DocValuesConsumer fieldsConsumer(SegmentWriteState state) {
      return new DocValuesConsumer() {
        @Override
        public void addBinaryField(FieldInfo field, DocValuesProducer values) throws IOException {
          BinaryDocValues dv = values.getBinary(field);
          while (dv.nextDoc() != BinaryDocValues.NO_MORE_DOCS) {
            assert dv.binaryValue() != null;
          }
        }

        @Override
        public void addNumericField(FieldInfo field, DocValuesProducer values) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void addSortedField(FieldInfo field, DocValuesProducer values) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void addSortedNumericField(FieldInfo field, DocValuesProducer values) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void addSortedSetField(FieldInfo field, DocValuesProducer values) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void close() throws IOException {
          String name = ES94BloomFilterDocValuesFormat.NAME;
          String data = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "sfbf");
          String meta = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "sfbfm");
          long offset;
          try (IndexOutput out = state.directory.createOutput(data, state.context)) {
            CodecUtil.writeIndexHeader(out, name, 0, state.segmentInfo.getId(), state.segmentSuffix);
            offset = out.getFilePointer();
            for (int i = 0; i < FILTER_BITS / 8; i++) {
              out.writeByte((byte) (i * 37));
            }
            CodecUtil.writeFooter(out);
          }
          try (IndexOutput out = state.directory.createOutput(meta, state.context)) {
            CodecUtil.writeIndexHeader(out, name, 0, state.segmentInfo.getId(), state.segmentSuffix);
            out.writeVLong(offset);
            out.writeVInt(FILTER_BITS);
            out.writeVInt(4);
            CodecUtil.writeFooter(out);
          }
        }
      };
    }

    @Override
    public DocValuesProducer fieldsProducer(SegmentReadState state) {
      throw new UnsupportedOperationException("write-only");
    }
  }

  /** Zstd chunks as Elasticsearch writes them: a VInt length and one frame. */
  private static final class ZstdWriting extends CompressionMode {
    @Override
    public Compressor newCompressor() {
      return new Compressor() {
        @Override
        public void compress(ByteBuffersDataInput in, DataOutput out) throws IOException {
          int length = (int) in.length();
          if (length == 0) {
            return;
          }
          byte[] bytes = new byte[length];
          in.readBytes(bytes, 0, length);
          byte[] frame = Zstd.compress(bytes, 3);
          out.writeVInt(frame.length);
          out.writeBytes(frame, frame.length);
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public Decompressor newDecompressor() {
      return ZstdStoredFieldsFormat.CHUNKS.newDecompressor();
    }
  }
}
