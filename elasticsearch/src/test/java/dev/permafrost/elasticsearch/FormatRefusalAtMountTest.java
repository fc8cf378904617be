/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.blob.FileSystemBlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.fixture.EngineFixture;
import dev.permafrost.fixture.UpgradeFixture;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A format version this build does not read fails the mount, not a search: on a copy of the snapshot a real
 * Elasticsearch 9.3.3 node wrote, the header of one doc-values metadata file of a shard is given a version past every
 * reader's (its own footer, its compound file's and the snapshot's recorded checksum made to agree, so that only the
 * version is wrong), and mounting that index is refused naming the index, snapshot, shard, segment, file, format and
 * version, with nothing mounted (a shard mounted before the refused one is taken back); the same index of the
 * untouched copy mounts.
 */
class FormatRefusalAtMountTest {
  private static final int TOO_NEW = 99;
  @TempDir Path tmp;

  @Test
  void aDocValuesVersionPastThisBuildsIsRefusedAtMount() throws Exception {
    EngineFixture engine = EngineFixture.ELASTICSEARCH_93;
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(engine.luceneVersion())),
        "Lucene " + Version.LATEST + " does not read what " + engine + " wrote");
    Path fixture = engine.ensure();
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("cache")).size(32 << 20)
            .regionSize(1 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      // Lucene's own doc values (a standard index) and Elasticsearch's ES819TSDB (a logsdb index)
      for (Map.Entry<String, String> c : Map.of("logs-a", "Lucene90DocValuesMetadata",
          "logs-db", "ES819TSDBDocValuesMetadata").entrySet()) {
        String index = c.getKey();
        String codec = c.getValue();
        Path copy = copyOf(fixture.resolve("repo"), tmp.resolve("copy-" + index));
        EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(copy, false));
        // logs-a has two shards: its second is the one damaged, so that the first, mounted before it, must be taken back
        int damagedShard = index.equals("logs-a") ? 1 : 0;
        String shard = EngineSnapshotRepository.shard("snap-1", index, damagedShard);
        String file = bumpDocValuesMetadataVersion(copy, repository, shard, codec);

        SnapshotException.UnsupportedFormat refused = assertThrows(SnapshotException.UnsupportedFormat.class,
            () -> repository.mount(catalog, "bumped-" + index, "snap-1", index));
        String message = refused.getMessage();
        String segment = file.substring(0, file.indexOf('_', 1));
        for (String named : new String[] {"index '" + index + "'", "snapshot 'snap-1'", "shard ", "segment " + segment
            + ",", "file " + file, "format " + codec, "version " + TOO_NEW + ", newer than this build reads",
            "Lucene " + Version.LATEST}) {
          assertTrue(message.contains(named), "names " + named + ": " + message);
        }
        assertTrue(message.matches("(?s).*blob indices/[^ ]+/" + damagedShard + "/snap-[^ ]+\\.dat.*"), message);
        assertTrue(catalog.list("bumped-*").isEmpty(), "nothing of a refused index is mounted, no shard before it");

        EngineSnapshotRepository untouched = EngineSnapshotRepository.open(
            FileSystemBlobStore.open(fixture.resolve("repo"), false));
        for (var shardMounted : untouched.mount(catalog, "untouched-" + index, "snap-1", index)) {
          catalog.unmount(shardMounted.name());
        }
      }
    }
  }

  /**
   * An index created on Elasticsearch 9.3.3 and written on 9.5.3 ({@link UpgradeFixture}, {@code snap-2}) holds files
   * Lucene 10.5 wrote inside 9.3.3's segments (9.5.3's soft deletes, as {@code Lucene90} doc-values updates at
   * version 2, and field infos beside them) and segments of its own: on a Lucene that reads them (10.5 and later) each
   * shard mounts; on an older one, such as the floor the library supports (10.3, whose {@code Lucene90} doc values
   * read version 0 only), the mount is refused naming what it cannot read, and nothing is mounted. Never a search.
   */
  @Test
  void anIndexUpgradedInPlaceMountsOnlyWhereLuceneReadsWhatTheNewerNodeWrote() throws Exception {
    Path fixture = UpgradeFixture.ensure();
    boolean reads = Version.LATEST.onOrAfter(Version.parse(UpgradeFixture.WRITTEN_BY.luceneVersion()));
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("upgraded-cache")).size(32 << 20)
            .regionSize(1 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      EngineSnapshotRepository repository = EngineSnapshotRepository.open(
          FileSystemBlobStore.open(fixture.resolve("repo"), false));
      for (String index : new String[] {"logs-up", "metrics-up"}) {
        if (reads) {
          assertEquals(1, repository.mount(catalog, "up-" + index, "snap-2", index).size(), index);
          continue;
        }
        SnapshotException.UnsupportedFormat refused = assertThrows(SnapshotException.UnsupportedFormat.class,
            () -> repository.mount(catalog, "up-" + index, "snap-2", index), index);
        String message = refused.getMessage();
        assertTrue(message.contains("index '" + index + "' in snapshot 'snap-2'"), message);
        // a file of a version too new, named with its segment and format, or a codec or format this Lucene lacks
        assertTrue(message.matches("(?s).*(segment _[0-9a-z]+, file _[0-9a-z_A-Za-z]+\\.[a-z]+, format [A-Za-z0-9]+, version"
            + " \\d+, newer than this build reads|codec or format this reader does not have).*"), message);
        System.out.printf("Lucene %s refuses %s of the upgraded fixture at mount: %s%n", Version.LATEST, index, message);
      }
      assertEquals(reads ? 2 : 0, catalog.list("up-*").size());
    }
  }

  /**
   * What a newer Elasticsearch may add to {@code ES95TSDB} fails the mount, never a search: on a copy of the snapshot a
   * real 9.5.3 node wrote, the first stage id of {@code cpu}'s pipeline in {@code metrics-ts}'s {@code .dvm}
   * ({@code 05}, ALP, in its descriptor {@code 01 05 09 01 05 01 02 03 a1}) is made {@code 06}, a stage 9.5 does not
   * have (every checksum made to agree); the mount fails naming the field, the file and the id, nothing mounted.
   */
  @Test
  void anES95StageIdThisReaderDoesNotKnowIsRefusedAtMount() throws Exception {
    EngineFixture engine = EngineFixture.ELASTICSEARCH_95;
    Assumptions.assumeTrue(Version.LATEST.onOrAfter(Version.parse(engine.luceneVersion())),
        "Lucene " + Version.LATEST + " does not read what " + engine + " wrote");
    Path copy = copyOf(engine.ensure().resolve("repo"), tmp.resolve("copy-es95"));
    EngineSnapshotRepository repository = EngineSnapshotRepository.open(FileSystemBlobStore.open(copy, false));
    byte[] descriptor = {0x10, 0, 0, 0, 0x01, 0x05, 0x09, 0x01, 0x05, 0x01, 0x02, 0x03, (byte) 0xa1};
    String file = patchDocValuesMetadata(copy, repository, EngineSnapshotRepository.shard("snap-2", "metrics-ts", 0),
        "ES95TSDBDocValuesMetadata", (bytes, start, length) -> {
          int at = -1;
          for (int i = start; i + descriptor.length <= start + length && at < 0; i++) {
            if (java.util.Arrays.equals(bytes, i, i + descriptor.length, descriptor, 0, descriptor.length)) {
              at = i;
            }
          }
          assertTrue(at >= 0, "cpu's descriptor, after its block index's shift 16");
          bytes[at + 8] = 0x06;
        });
    assertTrue(file.endsWith("_ES95TSDB_0.dvm"), file);
    try (SharedRegionCache cache = SharedRegionCache.builder().path(tmp.resolve("es95-cache")).size(32 << 20)
            .regionSize(1 << 20).build();
        Catalog catalog = Catalog.builder(cache).build()) {
      IOException refused = assertThrows(IOException.class,
          () -> repository.mount(catalog, "newer-metrics-ts", "snap-2", "metrics-ts"));
      String message = refused.getMessage();
      String segment = file.substring(0, file.indexOf('_', 1));
      for (String named : new String[] {"stage id 0x06", "field 'cpu' of " + segment + "_ES95TSDB_0.dvd", file}) {
        assertTrue(message.contains(named), "names " + named + ": " + message);
      }
      assertTrue(catalog.list("newer-*").isEmpty(), "nothing of a refused index is mounted");
      System.out.printf("An unknown ES95TSDB stage id is refused at mount: %s: %s%n", refused.getClass().getName(),
          message);
    }
  }

  /**
   * Sets the header version of the first doc-values metadata file of {@code codec} in {@code shard} to
   * {@link #TOO_NEW}, inside its compound file if it has one, and makes every checksum over it agree again: the file's
   * footer, the compound file's footer, and the checksum the snapshot's metadata records for the blob. Returns the
   * file's name.
   */
  private static String bumpDocValuesMetadataVersion(Path copy, EngineSnapshotRepository repository, String shard,
      String codec) throws IOException {
    return patchDocValuesMetadata(copy, repository, shard, codec,
        (bytes, start, length) -> ByteBuffer.wrap(bytes, start + 4 + 1 + codec.length(), 4).putInt(TOO_NEW));
  }

  /** Changes the bytes of a file inside a compound file: {@code [start, start + length)} of {@code bytes}. */
  private interface Patch {
    void apply(byte[] bytes, int start, int length);
  }

  /**
   * Patches the first doc-values metadata file of {@code codec} in {@code shard}, inside its compound file, and makes
   * every checksum over it agree again: the file's footer, the compound file's footer, and the checksum the snapshot's
   * metadata records for the blob. Returns the file's name.
   */
  private static String patchDocValuesMetadata(Path copy, EngineSnapshotRepository repository, String shard,
      String codec, Patch patch) throws IOException {
    byte[] manifestBytes = repository.readManifestBytes(shard);
    SnapshotManifest manifest = repository.parseManifest(shard, manifestBytes);
    for (FileEntry cfe : manifest.files()) {
      if (!cfe.name().endsWith(".cfe")) {
        continue;
      }
      String segment = cfe.name().substring(0, cfe.name().length() - ".cfe".length());
      FileEntry cfs = manifest.files().stream().filter(f -> f.name().equals(segment + ".cfs")).findFirst().orElseThrow();
      for (CompoundEntries.Entry e : CompoundEntries.parse(Files.readAllBytes(copy.resolve(cfe.blobName())))) {
        if (!e.suffix().endsWith(".dvm")) {
          continue;
        }
        Path blob = copy.resolve(cfs.blobName());
        byte[] bytes = Files.readAllBytes(blob);
        int start = Math.toIntExact(e.start());
        int length = Math.toIntExact(e.length());
        String name = headerCodec(bytes, start);
        if (!name.equals(codec)) {
          continue;
        }
        patch.apply(bytes, start, length); // a version: after the magic, the name's VInt length (one byte), the name
        refoot(bytes, start, length);
        refoot(bytes, 0, bytes.length);
        Files.write(blob, bytes);
        rewriteChecksum(copy.resolve(manifest.ref().blobName()), cfs.name(), footerChecksum(bytes, 0, bytes.length));
        return e.fileName(segment);
      }
    }
    throw new AssertionError("no " + codec + " file in a compound file of " + shard);
  }

  private static String headerCodec(byte[] bytes, int start) {
    assert ByteBuffer.wrap(bytes, start, 4).getInt() == CodecUtil.CODEC_MAGIC;
    int length = bytes[start + 4];
    return new String(bytes, start + 5, length, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Writes the CRC32 of {@code [start, start + length - 8)} into the footer's last 8 bytes. */
  private static void refoot(byte[] bytes, int start, int length) {
    ByteBuffer.wrap(bytes, start + length - Long.BYTES, Long.BYTES).putLong(footerChecksum(bytes, start, length));
  }

  private static long footerChecksum(byte[] bytes, int start, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, start, length - Long.BYTES);
    return crc.getValue();
  }

  /** Rewrites the shard's snapshot metadata blob with {@code checksum} recorded for {@code physicalName}. */
  private static void rewriteChecksum(Path metadataBlob, String physicalName, long checksum) throws IOException {
    JsonNode tree = MetadataBlob.read(Files.readAllBytes(metadataBlob), EngineSnapshotRepository.SNAPSHOT_CODEC,
        metadataBlob.toString());
    boolean found = false;
    for (JsonNode f : tree.path("files")) {
      if (physicalName.equals(f.path("physical_name").asText())) {
        ((ObjectNode) f).put("checksum", Long.toString(checksum, Character.MAX_RADIX));
        found = true;
      }
    }
    assertTrue(found, physicalName + " in " + metadataBlob);
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    try (IndexOutput blob = new org.apache.lucene.store.ByteBuffersIndexOutput(out, "metadata", "metadata")) {
      CodecUtil.writeHeader(blob, EngineSnapshotRepository.SNAPSHOT_CODEC, 1);
      byte[] json = MetadataBlob.JSON.writeValueAsBytes(tree);
      blob.writeBytes(json, json.length);
      CodecUtil.writeFooter(blob);
    }
    Files.write(metadataBlob, out.toArrayCopy());
  }

  private static Path copyOf(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return to;
  }
}
