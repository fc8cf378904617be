/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.elasticsearch.EngineSnapshotRepository;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Elasticsearch 9.6's codec on real segments: no 9.6 node runs here, so the segments of the Elasticsearch 9.1 fixture
 * are renamed to {@code Elasticsearch96} with the stored-fields mode 9.6 records ({@code es.stored_fields.mode}), every
 * byte of every data file kept as the node wrote it. The mode picks the reader: a {@code best_compression} shard's
 * zstd chunks as {@code ZSTD_BEST_COMPRESSION}, a standard shard's Lucene chunks as {@code LUCENE} or with no mode at
 * all (what the codec read by name wrote before the attribute); a mode that does not match the bytes or is unknown
 * fails, naming the segment.
 */
class Elasticsearch96CodecTest {
  @TempDir static Path tmp;
  static Path repo;
  static EngineSnapshotRepository repository;

  @BeforeAll
  static void fixture() throws Exception {
    repo = EngineFixture.ELASTICSEARCH_9.ensure().resolve("repo");
    repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(repo, false));
  }

  @Test
  void theCodecIsRegisteredByItsName() {
    Codec codec = Codec.forName("Elasticsearch96");
    assertInstanceOf(Elasticsearch96Codec.class, codec);
    assertInstanceOf(SegmentModeStoredFieldsFormat.class, codec.storedFieldsFormat());
  }

  @Test
  void zstdModeReadsABestCompressionShardsStoredFields() throws Exception {
    assertSameDocuments("logs-best", "ZSTD_BEST_COMPRESSION");
  }

  @Test
  void luceneModeReadsAStandardShardsStoredFields() throws Exception {
    assertSameDocuments("logs-a", "LUCENE");
  }

  @Test
  void aSegmentWithoutTheModeIsReadAsLucenes() throws Exception {
    assertSameDocuments("logs-a", null);
  }

  @Test
  void aModeThatDoesNotMatchTheBytesFails() throws Exception {
    Path dir = renamed("logs-a", "ZSTD_BEST_COMPRESSION", "mismatch");
    try (Directory d = FSDirectory.open(dir)) {
      // Lucene's stored fields under a zstd mode: the file's header names another format
      assertThrows(CorruptIndexException.class, () -> DirectoryReader.open(d).close());
    }
  }

  @Test
  void anUnknownModeFailsNamingTheSegmentAndTheMode() throws Exception {
    Path dir = renamed("logs-a", "BROTLI", "unknown");
    try (Directory d = FSDirectory.open(dir)) {
      CorruptIndexException e = assertThrows(CorruptIndexException.class, () -> DirectoryReader.open(d).close());
      assertTrue(e.getMessage().contains("es.stored_fields.mode=BROTLI") && e.getMessage().matches("(?s).*segment _\\w+.*"),
          e.getMessage());
    }
  }

  /** The shard as the node wrote it and renamed to Elasticsearch96: the same documents, every file intact. */
  private static void assertSameDocuments(String index, String mode) throws Exception {
    Path original = shardFiles(index, index + "-original-" + mode);
    Path renamed = renamed(index, mode, index + "-" + mode);
    try (Directory od = FSDirectory.open(original); Directory rd = FSDirectory.open(renamed);
        DirectoryReader o = DirectoryReader.open(od); DirectoryReader r = DirectoryReader.open(rd)) {
      assertEquals(o.maxDoc(), r.maxDoc());
      assertTrue(r.maxDoc() > 0);
      int compared = 0;
      for (LeafReaderContext leaf : r.leaves()) {
        SegmentReader segment = (SegmentReader) leaf.reader();
        assertEquals("Elasticsearch96", segment.getSegmentInfo().info.getCodec().getName());
        segment.checkIntegrity();
        StoredFields expected = o.leaves().get(leaf.ord).reader().storedFields();
        StoredFields actual = segment.storedFields();
        for (int doc = 0; doc < segment.maxDoc(); doc++) {
          assertEquals(describe(expected.document(doc)), describe(actual.document(doc)), index + " doc " + doc);
          compared++;
        }
      }
      assertEquals(o.maxDoc(), compared);
    }
  }

  private static String describe(Document d) {
    StringBuilder s = new StringBuilder();
    for (IndexableField f : d) {
      s.append(f.name()).append('=');
      s.append(f.binaryValue() != null ? f.binaryValue().toString() : String.valueOf(f.stringValue() != null
          ? f.stringValue() : f.numericValue()));
      s.append('\n');
    }
    return s.toString();
  }

  /** The files of shard 0 of {@code index} at snap-2, as the node wrote them, in a directory of their own. */
  private static Path shardFiles(String index, String name) throws Exception {
    String shard = EngineSnapshotRepository.shard("snap-2", index, 0);
    SnapshotManifest manifest = repository.parseManifest(shard, repository.readManifestBytes(shard));
    Path dir = Files.createDirectories(tmp.resolve(name));
    for (FileEntry f : manifest.files()) {
      byte[] bytes = f.isKeptWhole() ? f.wholeBytes() : Files.readAllBytes(repo.resolve(f.blobName()));
      assertEquals(f.length(), bytes.length, f.name());
      Files.write(dir.resolve(f.name()), bytes);
    }
    return dir;
  }

  /**
   * The shard's files with each segment's codec renamed to Elasticsearch96 and its stored-fields mode set (none if
   * null): a new {@code .si} and commit, every other file untouched.
   */
  private static Path renamed(String index, String mode, String name) throws Exception {
    Path dir = shardFiles(index, name);
    Codec es96 = Codec.forName("Elasticsearch96");
    try (Directory d = FSDirectory.open(dir)) {
      SegmentInfos infos = SegmentInfos.readLatestCommit(d);
      String oldCommit = infos.getSegmentsFileName();
      SegmentInfos next = infos.clone();
      next.clear();
      for (SegmentCommitInfo sci : infos) {
        SegmentInfo old = sci.info;
        Map<String, String> attributes = new HashMap<>(old.getAttributes());
        if (mode != null) {
          attributes.put(SegmentModeStoredFieldsFormat.MODE, mode);
        }
        SegmentInfo si = new SegmentInfo(d, old.getVersion(), old.getMinVersion(), old.name, old.maxDoc(),
            old.getUseCompoundFile(), old.getHasBlocks(), es96, old.getDiagnostics(), old.getId(), attributes,
            old.getIndexSort());
        si.setFiles(old.files());
        d.deleteFile(old.name + ".si");
        es96.segmentInfoFormat().write(d, si, IOContext.DEFAULT);
        SegmentCommitInfo renamed = new SegmentCommitInfo(si, sci.getDelCount(), sci.getSoftDelCount(),
            sci.getDelGen(), sci.getFieldInfosGen(), sci.getDocValuesGen(), sci.getId());
        renamed.setFieldInfosFiles(sci.getFieldInfosFiles());
        renamed.setDocValuesUpdatesFiles(sci.getDocValuesUpdatesFiles());
        next.add(renamed);
      }
      next.commit(d);
      d.deleteFile(oldCommit);
    }
    return dir;
  }
}
