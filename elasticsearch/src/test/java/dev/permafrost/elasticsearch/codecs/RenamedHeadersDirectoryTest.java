/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.StringHelper;
import org.junit.jupiter.api.Test;

/**
 * A file whose header names one codec reads as the other through the view, by plain and by checksumming inputs, with
 * its checksum intact; every other string and byte is the file's own; outside the view the header is checked as
 * written.
 */
class RenamedHeadersDirectoryTest {
  @Test
  void aHeaderReadsUnderTheOtherNameAndNothingElseChanges() throws Exception {
    byte[] id = StringHelper.randomId();
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexOutput out = dir.createOutput("_0_x.doc", IOContext.DEFAULT)) {
        CodecUtil.writeIndexHeader(out, "ES812PostingsWriterDoc", 0, id, "x");
        out.writeString("ES812PostingsWriterDocs"); // not a key: read as written
        out.writeLong(42L);
        CodecUtil.writeFooter(out);
      }
      var view = new RenamedHeadersDirectory(dir, ES812PostingsFormat.LUCENE90_NAMES);
      try (IndexInput in = view.openInput("_0_x.doc", IOContext.DEFAULT)) {
        CodecUtil.checkIndexHeader(in, "Lucene90PostingsWriterDoc", 0, 0, id, "x");
        assertEquals("ES812PostingsWriterDocs", in.readString());
        IndexInput clone = in.clone();
        assertEquals(42L, in.readLong());
        assertEquals(42L, clone.readLong());
        assertEquals(CodecUtil.checksumEntireFile(dir.openInput("_0_x.doc", IOContext.READONCE)),
            CodecUtil.retrieveChecksum(in));
      }
      try (ChecksumIndexInput in = view.openChecksumInput("_0_x.doc")) {
        CodecUtil.checkIndexHeader(in, "Lucene90PostingsWriterDoc", 0, 0, id, "x");
        in.readString();
        in.readLong();
        CodecUtil.checkFooter(in); // the checksum is the file's bytes', renamed or not
      }
      try (IndexInput raw = dir.openInput("_0_x.doc", IOContext.DEFAULT)) {
        assertThrows(CorruptIndexException.class,
            () -> CodecUtil.checkIndexHeader(raw, "Lucene90PostingsWriterDoc", 0, 0, id, "x"));
      }
    }
  }
}
