/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Test;

/**
 * A shard whose segments name a codec Lucene does not know (as a newer Elasticsearch's codec is, until it is read here)
 * fails to mount naming the blob and the codec, what is read and the newest releases read, instead of failing later inside Lucene; a known codec is read.
 */
class UnknownCodecTest {
  /** A codec no SPI registers: written by name, never found when read. */
  private static final class UnregisteredCodec extends FilterCodec {
    UnregisteredCodec(String name) {
      super(name, Codec.getDefault());
    }
  }

  private static List<FileEntry> commitFiles(Codec codec) throws Exception {
    List<FileEntry> files = new ArrayList<>();
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setCodec(codec).setUseCompoundFile(true))) {
        Document doc = new Document();
        doc.add(new StringField("host", "web-01", Field.Store.NO));
        w.addDocument(doc);
      }
      for (String name : dir.listAll()) {
        if (name.startsWith("segments_") || name.endsWith(".si")) {
          try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
            byte[] bytes = new byte[(int) in.length()];
            in.readBytes(bytes, 0, bytes.length);
            files.add(FileEntry.keptWhole(name, 0, bytes));
          }
        }
      }
    }
    return files;
  }

  @Test
  void anUnknownCodecFailsNamingItAndTheBlob() throws Exception {
    List<FileEntry> files = commitFiles(new UnregisteredCodec("Elasticsearch97"));
    String segments = files.stream().map(FileEntry::name).filter(n -> n.startsWith("segments_")).findFirst().orElseThrow();
    SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> EngineSnapshotRepository.readCommit(files, segments, "blob indices/x/0/snap-y.dat in test"));
    // the codec, the blob, what is read (from the SPI, so never behind it) and the newest releases read
    assertTrue(e.getMessage().contains("Elasticsearch97") && e.getMessage().contains("snap-y.dat")
        && e.getMessage().contains("Elasticsearch92Lucene103") && e.getMessage().contains("Elasticsearch96")
        && e.getMessage().contains("ES812Postings") && e.getMessage().contains(EngineSnapshotRepository.NEWEST_READ),
        e.getMessage());
  }

  /**
   * A newer Lucene's codec (what Lucene 10.3 meets in OpenSearch 3.9's segments, and this Lucene in a later engine's):
   * Lucene wraps the error guessing at a missing backward-codecs jar; the refusal still names the codec, the blob and
   * the Lucene read.
   */
  @Test
  void aNewerLucenesCodecFailsNamingItAndTheLuceneRead() throws Exception {
    List<FileEntry> files = commitFiles(new UnregisteredCodec("Lucene999"));
    String segments = files.stream().map(FileEntry::name).filter(n -> n.startsWith("segments_")).findFirst().orElseThrow();
    SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> EngineSnapshotRepository.readCommit(files, segments, "blob indices/x/0/snap-y.dat in test"));
    assertTrue(e.getMessage().contains("'Lucene999' does not exist") && e.getMessage().contains("snap-y.dat")
        && e.getMessage().contains("up to " + Version.LATEST), e.getMessage());
  }

  @Test
  void aKnownCodecIsRead() throws Exception {
    List<FileEntry> files = commitFiles(Codec.getDefault());
    String segments = files.stream().map(FileEntry::name).filter(n -> n.startsWith("segments_")).findFirst().orElseThrow();
    SegmentInfos commit = EngineSnapshotRepository.readCommit(files, segments, "test");
    assertNotNull(commit);
    assertEquals(1, commit.totalMaxDoc());
  }
}
