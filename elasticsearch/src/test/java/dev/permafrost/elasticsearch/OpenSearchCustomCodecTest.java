/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.store.SharedRegionCache;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OpenSearch's custom codecs (the custom-codecs plugin: {@code index.codec: zstd}, {@code zstd_no_dict} and the QAT
 * ones) are refused at mount, naming the codec, the index and the shard's blob. No node here can write them (the
 * plugin is not in the package registry), so the refusals are tested on copies of the real snapshot the OpenSearch
 * 3.9 node wrote ({@link EngineFixture#OPENSEARCH_3_9}): its index metadata rewritten as the node writes it
 * (checksummed SMILE) to say {@code index.codec: zstd}; and the shard's file list pointed at a segment Lucene's own
 * {@link IndexWriter} wrote under a codec named {@code ZSTD104}, as the plugin's codec records itself. The blobs are
 * rewritten by a writer that gives back the node's own bytes for an unchanged blob. Nothing of a custom codec is
 * read, so nothing here is tested against bytes this project wrote for itself to read.
 */
class OpenSearchCustomCodecTest {
  @TempDir static Path tmp;
  static Path fixture;
  static SharedRegionCache cache;
  static Catalog catalog;
  /** OpenSearch's SMILE: Jackson's, binary written raw (OpenSearch turns off Jackson's 7-bit encoding). */
  static final ObjectMapper OPENSEARCH_SMILE = new ObjectMapper(new SmileFactory()
      .configure(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT, false));
  static final byte[] DEFLATE_MARKER = {'D', 'F', 'L', 0};

  @BeforeAll
  static void openCache() throws Exception {
    fixture = EngineFixture.OPENSEARCH_3_9.ensure();
    cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(16 << 20).regionSize(1 << 20).build();
    catalog = Catalog.builder(cache).build();
  }

  @AfterAll
  static void close() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
    if (cache != null) {
      cache.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "zstd_no_dict", "qat_lz4", "qat_deflate", "qat_zstd", "ZSTD104"})
  void anIndexWhoseSettingsNameACustomCodecIsRefusedAtMount(String codec) throws Exception {
    Path copy = copyOfRepository("settings-" + codec);
    String indexId = indexId(copy, "logs-merged");
    try (var metas = Files.list(copy.resolve("indices/" + indexId))) {
      Path meta = metas.filter(p -> p.getFileName().toString().startsWith("meta-")).findFirst().orElseThrow();
      rewrite(meta, EngineSnapshotRepository.INDEX_METADATA_CODEC, tree -> {
        ObjectNode settings = (ObjectNode) tree.path("logs-merged").path("settings");
        Map<String, JsonNode> sorted = new TreeMap<>(); // OpenSearch writes settings flat and sorted
        settings.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
        sorted.put("index.codec", settings.textNode(codec));
        settings.removeAll();
        sorted.forEach(settings::set);
      });
    }
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(copy, false));
    assertEquals(codec, repository.indexMetadata("snap-2", "logs-merged").settings().get("index.codec"),
        "the rewritten metadata reads back");
    SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> repository.mount(catalog, "settings-" + codec, "snap-2", "logs-merged"));
    assertTrue(e.getMessage().contains("index.codec '" + codec + "'") && e.getMessage().contains("index 'logs-merged'")
        && e.getMessage().contains("custom-codecs")
        && e.getMessage().matches("(?s).*blob indices/" + indexId + "/0/snap-[^ ]+\\.dat.*"), e.getMessage());
    assertTrue(catalog.list("settings-" + codec + "*").isEmpty(), "nothing of the refused index is mounted");
    // only that index: the others of the same snapshot mount (where this Lucene reads 3.9's segments: not on the
    // Lucene floor, 10.3, which refuses them for their Lucene104 codec, not for a custom one)
    if (EngineFixtureSnapshotsTest.readable().anyMatch(EngineFixture.OPENSEARCH_3_9::equals)) {
      repository.mount(catalog, "settings-" + codec + "-other", "snap-2", "logs-best");
      catalog.unmount("settings-" + codec + "-other.0");
    } else {
      SnapshotException.UnsupportedFormat other = assertThrows(SnapshotException.UnsupportedFormat.class,
          () -> repository.mount(catalog, "settings-" + codec + "-other", "snap-2", "logs-best"));
      assertTrue(other.getMessage().contains("Lucene104") && !other.getMessage().contains("custom-codecs"),
          other.getMessage());
    }
  }

  @Test
  void aShardWhoseSegmentsNameZstd104IsRefusedAtMount() throws Exception {
    Path copy = copyOfRepository("segments");
    String indexId = indexId(copy, "logs-merged");
    Path shardDir = copy.resolve("indices/" + indexId + "/0");
    Path snapBlob;
    try (var blobs = Files.list(shardDir)) {
      snapBlob = blobs.filter(p -> p.getFileName().toString().matches("snap-.*\\.dat")).findFirst().orElseThrow();
    }
    // the segment's files as the node lists them: segments_N and .si kept in the metadata, the rest as blobs
    record Listed(String physical, String blobName, byte[] bytes, long checksum, boolean inlined) {}
    List<Listed> listed = new ArrayList<>();
    Random ids = new Random(7);
    for (Map.Entry<String, byte[]> f : zstd104Segment().entrySet()) {
      boolean inlined = f.getKey().startsWith("segments_") || f.getKey().endsWith(".si");
      byte[] uuid = new byte[16];
      ids.nextBytes(uuid);
      String blobName = (inlined ? EngineSnapshotRepository.VIRTUAL_PREFIX : "__")
          + Base64.getUrlEncoder().withoutPadding().encodeToString(uuid);
      if (!inlined) {
        Files.write(shardDir.resolve(blobName), f.getValue());
      }
      listed.add(new Listed(f.getKey(), blobName, f.getValue(), checksum(f.getValue()), inlined));
    }
    rewrite(snapBlob, EngineSnapshotRepository.SNAPSHOT_CODEC, tree -> {
      ArrayNode files = (ArrayNode) tree.get("files");
      ObjectNode template = (ObjectNode) files.get(0);
      files.removeAll();
      long total = 0;
      for (Listed f : listed) {
        ObjectNode entry = template.deepCopy(); // the node's own fields and part size
        entry.put("name", f.blobName());
        entry.put("physical_name", f.physical());
        entry.put("length", f.bytes().length);
        entry.put("checksum", Long.toString(f.checksum(), Character.MAX_RADIX));
        entry.put("written_by", Version.LATEST.toString());
        entry.remove("meta_hash");
        if (f.inlined()) {
          entry.put("meta_hash", f.bytes());
        }
        files.add(entry);
        total += f.bytes().length;
      }
      ((ObjectNode) tree).put("number_of_files", listed.size());
      ((ObjectNode) tree).put("total_size", total);
    });
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(copy, false));
    SnapshotException.UnsupportedFormat e = assertThrows(SnapshotException.UnsupportedFormat.class,
        () -> repository.mount(catalog, "segments-zstd", "snap-2", "logs-merged"));
    assertTrue(e.getMessage().contains("codec ZSTD104") && e.getMessage().contains("index.codec 'zstd'")
        && e.getMessage().contains("index 'logs-merged'") && e.getMessage().contains("custom-codecs")
        && e.getMessage().contains(copy.relativize(snapBlob).toString()), e.getMessage());
    assertTrue(catalog.list("segments-zstd*").isEmpty(), "nothing of the refused index is mounted");
  }

  /** The test's writer of metadata blobs writes what the node wrote: unchanged, a blob comes out byte for byte. */
  @Test
  void rewritingABlobUnchangedGivesTheNodesBytes() throws Exception {
    Path copy = copyOfRepository("unchanged");
    String indexId = indexId(copy, "logs-merged");
    List<Path> blobs;
    try (var paths = Files.walk(copy.resolve("indices/" + indexId))) {
      blobs = paths.filter(p -> p.getFileName().toString().matches("(meta|snap)-.*\\.dat")).toList();
    }
    assertEquals(2, blobs.size(), blobs.toString());
    for (Path blob : blobs) {
      byte[] node = Files.readAllBytes(blob);
      rewrite(blob, blob.getFileName().toString().startsWith("meta-") ? EngineSnapshotRepository.INDEX_METADATA_CODEC
          : EngineSnapshotRepository.SNAPSHOT_CODEC, tree -> { });
      HexFormat hex = HexFormat.of();
      assertEquals(hex.formatHex(node), hex.formatHex(Files.readAllBytes(blob)), blob.toString());
    }
  }

  /** The plugin's segment codec names (its {@code META-INF/services}) and setting values, and some that are not. */
  @Test
  void knowsThePluginsCodecNamesAndNoOthers() {
    for (String name : List.of("ZSTD104", "ZSTDNODICT104", "QATLZ4104", "QATDEFLATE104", "QATZSTD104", "ZSTD103",
        "ZSTDNODICT103", "QATZSTD103", "ZSTD101", "ZSTDNODICT101", "QATLZ4101", "ZSTD912", "ZSTDNODICT912",
        "QATDEFLATE912", "QATLZ4912", "ZSTD99", "ZSTDNODICT99", "QATLZ499", "QATDEFLATE99", "ZSTD", "ZSTDNODICT",
        "Lucene95CustomCodec")) {
      assertTrue(OpenSearchCustomCodec.ofSegmentCodec(name).isPresent(), name);
      assertTrue(OpenSearchCustomCodec.ofSetting(name).isPresent(), name);
    }
    assertEquals(OpenSearchCustomCodec.ZSTD_NO_DICT,
        OpenSearchCustomCodec.ofSegmentCodec("ZSTDNODICT104").orElseThrow());
    assertEquals(OpenSearchCustomCodec.QAT_ZSTD, OpenSearchCustomCodec.ofSegmentCodec("QATZSTD104").orElseThrow());
    for (String name : List.of("Lucene104", "Lucene912", "Elasticsearch900Lucene101", "Elasticsearch92Lucene103",
        "ZSTDX104", "QAT104", "zstd104")) {
      assertFalse(OpenSearchCustomCodec.ofSegmentCodec(name).isPresent(), name);
    }
    for (String value : List.of("zstd", "zstd_no_dict", "qat_lz4", "qat_deflate", "qat_zstd")) {
      assertEquals(value, OpenSearchCustomCodec.ofSetting(value).orElseThrow().setting);
    }
    for (String value : List.of("default", "lz4", "best_compression", "zlib", "lucene_default", "Lucene104")) {
      assertFalse(OpenSearchCustomCodec.ofSetting(value).isPresent(), value);
    }
  }

  /** A segment Lucene's own writer wrote under the name the plugin's zstd codec of OpenSearch 3.6-3.9 gives itself. */
  private static Map<String, byte[]> zstd104Segment() throws Exception {
    Codec named = new FilterCodec("ZSTD104", Codec.getDefault()) {}; // registered by no SPI: written, never found
    Map<String, byte[]> files = new TreeMap<>();
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setCodec(named).setUseCompoundFile(true))) {
        Document doc = new Document();
        doc.add(new StringField("host", "web-01", Field.Store.YES));
        w.addDocument(doc);
      }
      for (String name : dir.listAll()) {
        try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
          byte[] bytes = new byte[(int) in.length()];
          in.readBytes(bytes, 0, bytes.length);
          files.put(name, bytes);
        }
      }
    }
    return files;
  }

  /** The index id the repository data gives {@code index}. */
  private static String indexId(Path repo, String index) throws Exception {
    long generation = ByteBuffer.wrap(Files.readAllBytes(repo.resolve("index.latest"))).getLong();
    JsonNode data = new ObjectMapper().readTree(repo.resolve("index-" + generation).toFile());
    return data.path("indices").path(index).path("id").asText();
  }

  private static Path copyOfRepository(String name) throws Exception {
    Path from = fixture.resolve("repo");
    Path copy = tmp.resolve(name);
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path to = copy.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    return copy;
  }

  /**
   * Rewrites a checksummed metadata blob as the engine writes one: the codec header, the content as SMILE (behind
   * {@code DFL\0}, DEFLATE-compressed, if it was), a Lucene footer over the rest.
   */
  private static void rewrite(Path blob, String codec, Consumer<JsonNode> change) throws Exception {
    byte[] old = Files.readAllBytes(blob);
    JsonNode tree = MetadataBlob.read(old, codec, blob.toString());
    int header = CodecUtil.headerLength(codec);
    boolean deflated = MetadataBlob.startsWith(Arrays.copyOfRange(old, header, old.length), DEFLATE_MARKER);
    change.accept(tree);
    byte[] content = OPENSEARCH_SMILE.writeValueAsBytes(tree);
    if (deflated) {
      ByteArrayOutputStream compressed = new ByteArrayOutputStream();
      compressed.write(DEFLATE_MARKER);
      try (DeflaterOutputStream out = new DeflaterOutputStream(compressed, new Deflater(Deflater.DEFAULT_COMPRESSION,
          true))) {
        out.write(content);
      }
      content = compressed.toByteArray();
    }
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexOutput out = dir.createOutput("blob", IOContext.DEFAULT)) {
        CodecUtil.writeHeader(out, codec, 1);
        out.writeBytes(content, content.length);
        CodecUtil.writeFooter(out);
      }
      try (IndexInput in = dir.openInput("blob", IOContext.READONCE)) {
        byte[] bytes = new byte[(int) in.length()];
        in.readBytes(bytes, 0, bytes.length);
        Files.write(blob, bytes);
      }
    }
  }

  /** The CRC32 a Lucene file's footer records. */
  private static long checksum(byte[] file) throws Exception {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexOutput out = dir.createOutput("f", IOContext.DEFAULT)) {
        out.writeBytes(file, file.length);
      }
      try (IndexInput in = dir.openInput("f", IOContext.READONCE)) {
        return CodecUtil.retrieveChecksum(in);
      }
    }
  }
}
