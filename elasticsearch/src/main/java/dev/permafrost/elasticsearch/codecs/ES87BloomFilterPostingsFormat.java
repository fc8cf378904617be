/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.FieldsConsumer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.Terms;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.IOUtils;

/**
 * Reads Elasticsearch's {@code ES87BloomFilter}, the postings format of {@code _id} from 8.7: a wrapper that writes
 * its fields' postings with another format and a bloom filter of their terms beside them. Its metadata file
 * ({@code .bfm}: an index header {@code ES87BloomFilter} version 0; the groups of fields, each the name of the
 * postings format that wrote them, that format's segment suffix and the field numbers; the bloom filters' places in
 * the {@code .bfi} file; the {@code .bfi} file's length; a footer) is read and checked whole before any delegate is
 * opened. The bloom filter only saves a lookup that finds nothing, so the {@code .bfi} file is not read to search:
 * {@link FieldsProducer#checkIntegrity()} verifies it.
 */
public final class ES87BloomFilterPostingsFormat extends PostingsFormat {
  static final String NAME = "ES87BloomFilter";
  private static final int VERSION = 0;

  /** The name segments record: {@code ES87BloomFilter}. Called by Lucene's SPI. */
  public ES87BloomFilterPostingsFormat() {
    super(NAME);
  }

  @Override
  public FieldsConsumer fieldsConsumer(SegmentWriteState state) {
    throw new UnsupportedOperationException(NAME + " is read-only here: Permafrost never writes an engine's segments");
  }

  @Override
  public FieldsProducer fieldsProducer(SegmentReadState state) throws IOException {
    String metaName = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "bfm");
    record Group(String format, String suffix, List<String> fields) {}
    List<Group> groups = new ArrayList<>();
    try (ChecksumIndexInput meta = state.directory.openChecksumInput(metaName)) {
      Throwable failure = null;
      try {
        CodecUtil.checkIndexHeader(meta, NAME, VERSION, VERSION, state.segmentInfo.getId(), state.segmentSuffix);
        int groupCount = meta.readVInt();
        for (int g = 0; g < groupCount; g++) {
          String format = meta.readString();
          String suffix = meta.readString();
          int fieldCount = meta.readVInt();
          List<String> fields = new ArrayList<>(fieldCount);
          for (int f = 0; f < fieldCount; f++) {
            fields.add(field(state, meta.readVInt(), meta));
          }
          groups.add(new Group(format, suffix, fields));
        }
        int filters = meta.readVInt();
        for (int f = 0; f < filters; f++) { // where each field's bloom bits are in the .bfi file: not needed to search
          field(state, meta.readVInt(), meta);
          meta.readVLong();
          meta.readVInt();
        }
        meta.readVLong(); // the .bfi file's length
      } catch (Throwable t) {
        failure = t;
      } finally {
        try {
          CodecUtil.checkFooter(meta, failure);
        } catch (CorruptIndexException e) {
          throw new CorruptIndexException("the " + NAME + " metadata " + metaName + " (the postings of "
              + "Elasticsearch's _id field) is damaged: " + e.getOriginalMessage(), e.getResourceDescription(), e);
        }
      }
    }
    List<FieldsProducer> producers = new ArrayList<>();
    Map<String, FieldsProducer> byField = new TreeMap<>();
    boolean opened = false;
    try {
      for (Group group : groups) {
        PostingsFormat format;
        try {
          format = PostingsFormat.forName(group.format());
        } catch (IllegalArgumentException e) {
          throw new CorruptIndexException(NAME + " wraps postings format '" + group.format() + "', which does not"
              + " exist here (fields " + group.fields() + ")", metaName, e);
        }
        FieldsProducer producer = format.fieldsProducer(new SegmentReadState(state, group.suffix()));
        producers.add(producer);
        for (String field : group.fields()) {
          byField.put(field, producer);
        }
      }
      opened = true;
    } finally {
      if (!opened) {
        IOUtils.closeWhileHandlingException(producers);
      }
    }
    return new Wrapped(state, byField, producers);
  }

  private static String field(SegmentReadState state, int number, IndexInput meta) throws CorruptIndexException {
    FieldInfo info = state.fieldInfos.fieldInfo(number);
    if (info == null) {
      throw new CorruptIndexException("field number " + number + " is not a field of the segment", meta);
    }
    return info.name;
  }

  /** The wrapped formats' fields, each read by the producer of its group. */
  private static final class Wrapped extends FieldsProducer {
    private final SegmentReadState state;
    private final Map<String, FieldsProducer> byField;
    private final List<FieldsProducer> producers;

    Wrapped(SegmentReadState state, Map<String, FieldsProducer> byField, List<FieldsProducer> producers) {
      this.state = state;
      this.byField = byField;
      this.producers = producers;
    }

    @Override
    public Iterator<String> iterator() {
      return Collections.unmodifiableSet(byField.keySet()).iterator();
    }

    @Override
    public Terms terms(String field) throws IOException {
      FieldsProducer producer = byField.get(field);
      return producer == null ? null : producer.terms(field);
    }

    @Override
    public int size() {
      return byField.size();
    }

    @Override
    public void checkIntegrity() throws IOException {
      for (FieldsProducer producer : producers) {
        producer.checkIntegrity();
      }
      String bfi = IndexFileNames.segmentFileName(state.segmentInfo.name, state.segmentSuffix, "bfi");
      try (IndexInput in = state.directory.openInput(bfi, IOContext.READONCE)) {
        CodecUtil.checkIndexHeader(in, NAME, VERSION, VERSION, state.segmentInfo.getId(), state.segmentSuffix);
        CodecUtil.checksumEntireFile(in);
      }
    }

    @Override
    public void close() throws IOException {
      IOUtils.close(producers);
    }

    @Override
    public String toString() {
      return NAME + "(" + producers + ")";
    }
  }
}
