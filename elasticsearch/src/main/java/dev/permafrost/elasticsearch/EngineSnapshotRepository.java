/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.catalog.Catalog;
import dev.permafrost.catalog.MountInfo;
import dev.permafrost.catalog.MountMode;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.PointRange;
import dev.permafrost.snapshot.ReadRecordingDirectory;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotInfo;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.IOConsumer;
import org.apache.lucene.util.IOSupplier;
import org.apache.lucene.util.Version;

/**
 * A snapshot repository written by Elasticsearch (8.x, 9.x) or OpenSearch (2.x, 3.x), read in place through any
 * Permafrost {@link BlobStore}: its snapshots, their indices and mappings, and each shard of each index as a
 * {@link SnapshotSource} snapshot that a {@link Catalog} mounts like a Permafrost one.
 *
 * <p>Opening reads the repository's root metadata ({@code index.latest}, then {@code index-N}: two requests). A
 * shard is named {@code <snapshot>/<index>/<shard>} ({@link #shard}); mounting it reads its {@code snap-<uuid>.dat}
 * (one request, kept in the shared cache), whose list of files becomes the mount's manifest: each Lucene file is the
 * engine's blob {@code __<uuid>} in the shard's directory, and the small files the engine keeps inside that list
 * ({@code segments_N}, {@code .si}) are kept in memory. Shard directories are found as the repository records them:
 * {@code indices/<index-id>/<shard>/}, or, where OpenSearch hashed them ({@code shard_path_type} 1 or 2), the paths
 * listed in {@code snapshot_shard_paths/}, read once per index. A repository written with a {@code base_path} whose
 * shards are hashed has them at its container's root, outside the base path: read it through a store at the
 * container's root ({@link #open(BlobStore, String)}).
 *
 * <p>What is verified: every metadata blob's checksum before it is parsed; every file kept in the metadata against
 * the Lucene checksum the engine recorded; and each file fetched whole (a small one) against it. The engines record no
 * checksum per range, so a range of a large file read through the cache is not verified on its own: a damaged byte
 * there reaches Lucene, whose own checks on open and merge are all that stand guard.
 *
 * <p>Elasticsearch's own codecs and formats (its zstd {@code best_compression} codecs, {@code ES812Postings},
 * {@code ES87BloomFilter} for {@code _id}, the {@code ES819TSDB}, {@code ES8193TSDB} and {@code ES95TSDB} doc values
 * of its logsdb and time_series indices from 8.19 and 9.1, at every version to 9.5's) are read by
 * {@link dev.permafrost.elasticsearch.codecs}, and so are 9.4 and 9.5's scalar-quantized vectors of indexed
 * {@code dense_vector} fields ({@code ES94*ScalarQuantizedVectorsFormat}, Lucene's layouts). The indexed
 * {@code dense_vector} fields of indices created before 9.4 are written in formats this reader does not read, and
 * OpenSearch's custom codecs ({@code index.codec: zstd}, {@code zstd_no_dict}, {@code qat_*}) in chunk layouts
 * this reader does not read: mounting a
 * shard of such an index fails naming the index, the shard's blob and the fields, formats or codec. So does a shard
 * one of whose files is of a version of a format this build does not read: the mount opens the shard once
 * ({@link #checkAndKeep}), so that it fails there and never at a search. What that opening reads (compound entry
 * tables, headers and footers, metadata files) is verified and kept with the mount ({@link KeptOpening}, at most
 * 1 MiB a shard, counted in its heap), so that the shard opens later with no request, however empty the cache.
 * That opening also records the range of each date field's points (from the points' metadata, no read), which the
 * engine's snapshot does not: a catalog skips a shard a time range cannot match, and visits shards newest first for a
 * search sorted on time, as it does with a Permafrost snapshot's recorded ranges.
 *
 * <p>Searches see what the engine's searches see: soft-deleted documents are deleted and nested documents hidden
 * ({@link #openReader}). Fields are queried as the mappings define them with {@link MappedQueryParser}; hits'
 * {@code _id} and {@code _source} are decoded by {@link EngineDocuments}.
 */
public final class EngineSnapshotRepository implements SnapshotSource {
  static final String SNAPSHOT_CODEC = "snapshot";
  static final String INDEX_METADATA_CODEC = "index-metadata";
  static final String VIRTUAL_PREFIX = "v__";
  private static final int SUCCESS = 1;
  /** The name in Lucene's error for a codec or format its SPI does not have ({@code NamedSPILoader.lookup}'s). */
  private static final Pattern UNKNOWN_SPI_NAME = Pattern.compile("with name '([^']*)' does not exist");

  private final BlobStore store;
  private final String rootBlob;
  /** The repository's {@code base_path} in its container, with a trailing '/', or empty. */
  private final String base;
  private final JsonNode repositoryData;
  private final Map<String, Snapshot> snapshots = new LinkedHashMap<>();
  private final Map<String, IndexEntry> indices = new LinkedHashMap<>();
  /** Snapshots' start times read from their own metadata, by uuid. */
  private final Map<String, Long> startTimes = new ConcurrentHashMap<>();
  /** Each index's metadata, by its blob: read once however many of its shards are mounted. */
  private final Map<String, IndexMetadata> indexMetadata = new ConcurrentHashMap<>();
  /** Shard directories of indices whose layout is hashed, by index id, read on first use. */
  private final Map<String, Map<Integer, String>> hashedShardPaths = new ConcurrentHashMap<>();

  /** A snapshot as the repository data lists it; {@code startMillis} is -1 where it does not say (OpenSearch). */
  private record Snapshot(String name, String uuid, int state, Map<String, String> indexMetadataLookup, long startMillis) {}

  private record IndexEntry(String name, String id, int shardPathType, List<String> snapshotUuids) {}

  private EngineSnapshotRepository(BlobStore store, String base, String rootBlob, JsonNode data)
      throws SnapshotException {
    this.store = new PartedBlobStore(store);
    this.base = base;
    this.rootBlob = rootBlob;
    this.repositoryData = data;
    try {
      for (JsonNode s : data.path("snapshots")) {
        Map<String, String> lookup = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = s.path("index_metadata_lookup").fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          lookup.put(e.getKey(), e.getValue().asText());
        }
        Snapshot snapshot = new Snapshot(s.get("name").asText(), s.get("uuid").asText(), s.path("state").asInt(SUCCESS),
            lookup, s.path("start_time_millis").asLong(-1));
        snapshots.put(snapshot.name(), snapshot);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = data.path("indices").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        List<String> uuids = new ArrayList<>();
        e.getValue().path("snapshots").forEach(u -> uuids.add(u.asText()));
        indices.put(e.getKey(), new IndexEntry(e.getKey(), e.getValue().get("id").asText(),
            e.getValue().path("shard_path_type").asInt(0), uuids));
      }
    } catch (RuntimeException e) {
      throw new SnapshotException.CorruptManifest("repository data " + where(rootBlob) + " lacks what every engine"
          + " writes (snapshot names and uuids, index ids): " + e, e);
    }
  }

  /**
   * Opens the repository at the root of {@code store}: reads {@code index.latest} and the {@code index-N} it names
   * (or, without {@code index.latest}, the highest {@code index-N} listed).
   *
   * @throws SnapshotException.NotFound if the store holds no such repository
   */
  public static EngineSnapshotRepository open(BlobStore store) throws IOException {
    return open(store, "");
  }

  /**
   * Opens the repository written with {@code base_path} {@code basePath} into the container (bucket) at whose root
   * {@code store} is. OpenSearch's hashed shard paths ({@code shard_path_type} 1 and 2, which OpenSearch 3.2 writes by
   * default) put a shard's files at the container's root ({@code <hash>/<base_path>/indices/...}), outside the base
   * path, so a repository with a base path and hashed shards is read through a store at the container's root, its base
   * path given here; {@link #open(BlobStore)} is this with no base path.
   *
   * @throws SnapshotException.NotFound if there is no such repository
   */
  public static EngineSnapshotRepository open(BlobStore store, String basePath) throws IOException {
    String base = basePath == null || basePath.isEmpty() || basePath.equals("/") ? ""
        : (basePath.startsWith("/") ? basePath.substring(1) : basePath) + (basePath.endsWith("/") ? "" : "/");
    long generation;
    try (InputStream in = store.read(base + "index.latest")) {
      byte[] b = in.readAllBytes();
      if (b.length != Long.BYTES) {
        throw new SnapshotException.CorruptManifest(base + "index.latest in " + store.describe() + " has " + b.length
            + " bytes, not 8", null);
      }
      generation = ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN).getLong();
    } catch (BlobNotFoundException e) {
      generation = -1;
      for (BlobMetadata blob : store.list(base + "index-")) {
        String suffix = blob.name().substring(base.length() + "index-".length());
        if (suffix.chars().allMatch(Character::isDigit) && !suffix.isEmpty()) {
          generation = Math.max(generation, Long.parseLong(suffix));
        }
      }
      if (generation < 0) {
        throw new SnapshotException.NotFound("no Elasticsearch or OpenSearch snapshot repository in " + store.describe()
            + ": neither index.latest nor any index-N at " + (base.isEmpty() ? "its root" : base), e);
      }
    }
    String root = base + "index-" + generation;
    byte[] bytes;
    try (InputStream in = store.read(root)) {
      bytes = in.readAllBytes();
    } catch (BlobNotFoundException e) {
      throw new SnapshotException.NotFound("repository " + store.describe() + " names generation " + generation
          + " in index.latest, but there is no " + root, e);
    }
    JsonNode data;
    try {
      data = MetadataBlob.JSON.readTree(bytes);
    } catch (IOException e) {
      throw new SnapshotException.CorruptManifest(root + " in " + store.describe() + " is not the JSON repository data"
          + " an engine writes: " + e.getMessage(), e);
    }
    if (data == null || !data.isObject()) {
      throw new SnapshotException.CorruptManifest(root + " in " + store.describe() + " is not a JSON object", null);
    }
    return new EngineSnapshotRepository(store, base, root, data);
  }

  /** The store files are read from: the repository's, with files the engine cut into parts read as one. */
  @Override
  public BlobStore store() {
    return store;
  }

  /**
   * The names of the repository's snapshots that completed successfully, oldest first (by start time, then name).
   * Where the repository data does not record start times (OpenSearch's does not), each snapshot's
   * {@code snap-<uuid>.dat} is read for it, once, the first time.
   */
  public List<String> snapshots() throws IOException {
    List<Snapshot> done = new ArrayList<>();
    for (Snapshot s : snapshots.values()) {
      if (s.state() == SUCCESS) {
        done.add(s);
      }
    }
    Map<String, Long> start = new LinkedHashMap<>();
    for (Snapshot s : done) {
      start.put(s.name(), s.startMillis() >= 0 ? s.startMillis() : startMillis(s));
    }
    done.sort(Comparator.<Snapshot>comparingLong(s -> start.get(s.name())).thenComparing(Snapshot::name));
    return done.stream().map(Snapshot::name).toList();
  }

  /** When a snapshot started, from its {@code snap-<uuid>.dat} at the repository's root (read once). */
  private long startMillis(Snapshot s) throws IOException {
    Long known = startTimes.get(s.uuid());
    if (known == null) {
      String blob = base + "snap-" + s.uuid() + ".dat";
      JsonNode info = MetadataBlob.read(readBlob(blob, "snapshot '" + s.name() + "'"), SNAPSHOT_CODEC, where(blob));
      known = info.path("snapshot").path("start_time").asLong(0);
      startTimes.put(s.uuid(), known);
    }
    return known;
  }

  /** The indices in snapshot {@code snapshot}. @throws SnapshotException.NotFound if there is no such snapshot */
  public List<String> indices(String snapshot) throws SnapshotException {
    Snapshot s = snapshot(snapshot);
    List<String> names = new ArrayList<>();
    for (IndexEntry index : indices.values()) {
      if (index.snapshotUuids().contains(s.uuid())) {
        names.add(index.name());
      }
    }
    return names;
  }

  /**
   * An index's metadata in a snapshot (one request): its shard count, settings and mapping.
   *
   * @throws SnapshotException.NotFound if the snapshot or the index in it is not there
   */
  public IndexMetadata indexMetadata(String snapshot, String index) throws IOException {
    Snapshot s = snapshot(snapshot);
    IndexEntry entry = index(s, index);
    String identifier = s.indexMetadataLookup().get(entry.id());
    String blobId = identifier == null ? s.uuid() : repositoryData.path("index_metadata_identifiers").path(identifier).asText(null);
    if (blobId == null) {
      throw new SnapshotException.CorruptManifest(where(rootBlob) + " names no metadata blob for index '" + index
          + "' of snapshot '" + snapshot + "' (identifier " + identifier + ")", null);
    }
    String blob = base + "indices/" + entry.id() + "/meta-" + blobId + ".dat";
    IndexMetadata cached = indexMetadata.get(blob);
    if (cached != null) {
      return cached;
    }
    JsonNode tree = MetadataBlob.read(readBlob(blob, "the metadata of index '" + index + "'"), INDEX_METADATA_CODEC,
        where(blob));
    IndexMetadata metadata = IndexMetadata.of(index, tree, where(blob));
    indexMetadata.put(blob, metadata); // an engine never rewrites a metadata blob: its name is its content's
    return metadata;
  }

  /** The name of shard {@code shard} of {@code index} in {@code snapshot}, as this source mounts it. */
  public static String shard(String snapshot, String index, int shard) {
    return snapshot + "/" + index + "/" + shard;
  }

  /**
   * Mounts every shard of {@code index} in {@code snapshot} in {@code catalog}, each as {@code <name>.<shard>} (search
   * them all with the glob {@code <name>.*}): one index per shard, as the engine searches shards, so that the reader
   * pool opens and closes them one by one and their hits merge as the engine merges shards' hits. All or none: if a
   * shard cannot be mounted (a format it cannot read, a damaged file), those mounted before it are unmounted.
   *
   * @return what was mounted, shard by shard
   */
  public List<MountInfo> mount(Catalog catalog, String name, String snapshot, String index) throws IOException {
    IndexMetadata metadata = indexMetadata(snapshot, index);
    List<MountInfo> mounted = new ArrayList<>();
    try {
      for (int shard = 0; shard < metadata.shards(); shard++) {
        mounted.add(catalog.mount(name + "." + shard, this, shard(snapshot, index, shard), MountMode.SHARED_CACHE));
      }
    } catch (IOException | RuntimeException e) {
      // all of the index or none: a shard refused (a format it cannot read) takes back the shards mounted before it,
      // so that no search answers from part of the index as if it were all of it
      for (MountInfo m : mounted) {
        try {
          catalog.unmount(m.name());
        } catch (IOException | RuntimeException again) {
          e.addSuppressed(again);
        }
      }
      throw e;
    }
    return mounted;
  }

  /** A shard's {@code snap-<uuid>.dat} for snapshot {@code s} in the shard's directory {@code shardDir}. */
  private static String shardSnapshotBlob(Snapshot s, String shardDir) {
    return shardDir + "snap-" + s.uuid() + ".dat";
  }

  @Override
  public byte[] readManifestBytes(String shard) throws IOException {
    ShardName name = ShardName.parse(shard);
    Snapshot s = snapshot(name.snapshot());
    String blob = shardSnapshotBlob(s, shardPath(index(s, name.index()), name.shard()));
    return readBlob(blob, "shard " + name.shard() + " of index '" + name.index() + "' in snapshot '" + name.snapshot() + "'");
  }

  @Override
  public SnapshotManifest parseManifest(String shard, byte[] bytes) throws SnapshotException {
    ShardName name = ShardName.parse(shard);
    Snapshot s = snapshot(name.snapshot());
    String dir;
    try {
      dir = shardPath(index(s, name.index()), name.shard());
    } catch (SnapshotException e) {
      throw e;
    } catch (IOException e) {
      throw new SnapshotException("cannot find the directory of shard " + shard + " in " + store.describe() + ": "
          + e.getMessage(), e);
    }
    IndexMetadata metadata;
    try {
      metadata = indexMetadata(name.snapshot(), name.index());
    } catch (SnapshotException e) {
      throw e;
    } catch (IOException e) {
      throw new SnapshotException("cannot read the metadata of index '" + name.index() + "' in snapshot '"
          + name.snapshot() + "' of " + store.describe() + ": " + e.getMessage(), e);
    }
    String blob = shardSnapshotBlob(s, dir);
    String shardWhere = shardWhere(name, blob);
    refuseUnreadable(metadata, shardWhere);
    JsonNode tree = MetadataBlob.read(bytes, SNAPSHOT_CODEC, where(blob));
    List<FileEntry> files = new ArrayList<>();
    String segmentsFile = null;
    String luceneVersion = null;
    long total = 0;
    for (JsonNode f : tree.path("files")) {
      FileEntry entry = fileEntry(f, dir, blob);
      files.add(entry);
      total += entry.length();
      if (entry.name().startsWith("segments_")) {
        segmentsFile = entry.name();
        luceneVersion = f.path("written_by").asText();
      }
    }
    if (segmentsFile == null) {
      throw new SnapshotException.CorruptManifest(where(blob) + " lists no segments_N file", null);
    }
    SegmentInfos commit = readCommit(files, segmentsFile, shardWhere);
    long maxDoc = -1;
    long numDocs = -1;
    int segments = -1;
    Map<String, String> userData = Map.of();
    if (commit != null) {
      maxDoc = 0;
      numDocs = 0;
      for (SegmentCommitInfo info : commit) {
        maxDoc += info.info.maxDoc();
        numDocs += info.info.maxDoc() - info.getDelCount() - info.getSoftDelCount();
      }
      segments = commit.size();
      userData = Map.copyOf(commit.getUserData());
    }
    SnapshotInfo info = new SnapshotInfo(shard, Instant.ofEpochMilli(tree.path("start_time").asLong()), luceneVersion,
        SegmentInfos.generationFromSegmentsFileName(segmentsFile), segments, maxDoc, numDocs, files.size(), total,
        userData, Map.of());
    return SnapshotManifest.of(info, segmentsFile, files, ManifestRef.of(shard, blob, bytes));
  }

  /**
   * Opens a shard as the engine's own searches see it: soft-deleted documents deleted, nested documents hidden. A
   * mount keeps what opening reads ({@link #checkAndKeep}), so a mounted shard opens with no request; a directory
   * without those bytes has the reads opening makes started together first ({@link OpeningReads}), so that a cold open
   * costs two waves of requests, not one per file.
   */
  @Override
  public DirectoryReader openReader(Directory directory) throws IOException {
    return open(directory, directory.toString());
  }

  /**
   * Opens the shard once, through the shared cache, and closes it: an engine's shard names its formats only in its
   * segments' files, so this is where one this build cannot read (a codec or format it does not have, or a version of
   * one newer or older than it reads) fails, naming the index, snapshot, shard, segment, file, format and version,
   * instead of at the first search. The bytes read stay in the cache, so the first search opens the shard again
   * with no request.
   */
  @Override
  public void checkReadable(String shard, IOSupplier<Directory> directory) throws IOException {
    String where = shardWhere(shard);
    try (Directory dir = directory.get()) {
      openAndClose(dir, dir, where, reader -> { });
    }
  }

  /**
   * Checks the shard as {@link #checkReadable} does, recording what opening it reads, and returns its manifest with
   * those bytes kept ({@link KeptOpening}: verified, at most {@link KeptOpening#LIMIT_BYTES}), so that the mount opens
   * its reader later with no request, even on a cache emptied meanwhile: an engine's snapshot keeps none of them (but
   * {@code segments_N} and the {@code .si} files). Its info gains the point ranges of the index's date and date_nanos
   * fields outside nested objects, as the opened reader's points give them ({@link PointRange#of}: every segment,
   * deleted documents too), which the engine's metadata does not record.
   *
   * @throws SnapshotException.CorruptManifest naming the shard, file and blob if a byte to keep is not what it must be
   */
  @Override
  public SnapshotManifest checkAndKeep(String shard, SnapshotManifest manifest, IOSupplier<Directory> directory)
      throws IOException {
    String where = shardWhere(shard);
    ShardName name = ShardName.parse(shard);
    // no request once read: mount reads it before its first shard (a catalog's own mount of a shard reads it here)
    IndexMapping mapping = indexMetadata(name.snapshot(), name.index()).mapping();
    Map<String, PointRange> ranges = new TreeMap<>();
    try (Directory dir = directory.get()) {
      ReadRecordingDirectory recording = new ReadRecordingDirectory(dir);
      OpeningReads.start(dir); // the recording directory does not pass prefetches on
      openAndClose(recording, dir, where, reader -> {
        for (IndexMapping.Field field : mapping.fields().values()) {
          PointRange range = field.isDate() && field.nestedPath() == null ? PointRange.of(reader, field.path()) : null;
          if (range != null && range.numDimensions() == 1) {
            ranges.put(field.path(), range);
          }
        }
      });
      SnapshotManifest kept = KeptOpening.keep(manifest, recording.stopRecording(), dir, where);
      return ranges.isEmpty() ? kept : SnapshotManifest.of(kept.info().withPointRanges(ranges), kept.segmentsFileName(),
          kept.files(), kept.ref());
    }
  }

  /**
   * Opens the shard through {@code through} (a view of {@code dir}), shows the reader to {@code opened} and closes it,
   * refusing what it cannot read.
   */
  private static void openAndClose(Directory through, Directory dir, String where, IOConsumer<DirectoryReader> opened)
      throws IOException {
    try (DirectoryReader reader = open(through, where)) {
      opened.accept(reader);
    } catch (IndexFormatTooNewException | IndexFormatTooOldException e) {
      throw UnreadableFile.refusal(where, dir, e);
    }
  }

  /** How errors name the shard {@code shard} ({@code <snapshot>/<index>/<shard>}). */
  private String shardWhere(String shard) throws IOException {
    ShardName name = ShardName.parse(shard);
    Snapshot s = snapshot(name.snapshot());
    return shardWhere(name, shardSnapshotBlob(s, shardPath(index(s, name.index()), name.shard())));
  }

  /**
   * Opens the shard in {@code directory} as the engine's searches see it; an unknown format's error names {@code where}.
   * The reads opening makes are started together first ({@link OpeningReads}), unless the mount keeps them
   * ({@link KeptOpening}).
   */
  private static DirectoryReader open(Directory directory, String where) throws IOException {
    try {
      if (!KeptOpening.isKept(directory)) {
        OpeningReads.start(directory);
      }
      return EngineReader.openEngineView(directory);
    } catch (IllegalArgumentException | IndexFormatTooOldException e) {
      if (isUnknownFormat(e)) {
        throw unknownFormat(where, e);
      }
      throw e;
    }
  }

  /** How errors name a shard: its index, snapshot and metadata blob. */
  private String shardWhere(ShardName name, String blob) {
    return "index '" + name.index() + "' in snapshot '" + name.snapshot() + "' (shard " + where(blob) + ")";
  }

  private FileEntry fileEntry(JsonNode f, String dir, String blob) throws SnapshotException {
    String blobName = f.path("name").asText(null);
    String physical = f.path("physical_name").asText(null);
    long length = f.path("length").asLong(-1);
    String checksumText = f.path("checksum").asText(null);
    String writtenBy = f.path("written_by").asText("");
    if (blobName == null || physical == null || length < 0 || checksumText == null) {
      throw new SnapshotException.CorruptManifest(where(blob) + " lists a file without name, physical_name, length or"
          + " checksum: " + f, null);
    }
    int major = writtenBy.isEmpty() ? 0 : Integer.parseInt(writtenBy.substring(0, Math.max(1, writtenBy.indexOf('.'))));
    if (major < 9) {
      throw new SnapshotException.UnsupportedFormat(where(blob) + ": file " + physical + " was written by Lucene "
          + (writtenBy.isEmpty() ? "of an unknown version" : writtenBy) + " (Elasticsearch 7 or earlier wrote Lucene 8"
          + " segments); Lucene 10 reads segments of Lucene 9 and 10 only: reindex or force-merge the index in an engine"
          + " of version 8 or later and snapshot it again", null);
    }
    long checksum;
    try {
      checksum = Long.parseLong(checksumText, Character.MAX_RADIX);
    } catch (NumberFormatException e) {
      throw new SnapshotException.UnsupportedFormat(where(blob) + ": file " + physical + " has checksum '" + checksumText
          + "', not a Lucene CRC32", e);
    }
    if (blobName.startsWith(VIRTUAL_PREFIX)) {
      byte[] bytes = f.has("meta_hash") ? binary(f.get("meta_hash"), blob) : null;
      if (bytes == null || bytes.length != length) {
        throw new SnapshotException.CorruptManifest(where(blob) + ": file " + physical + " is kept in the metadata but"
            + " its bytes (meta_hash) are " + (bytes == null ? "missing" : bytes.length + " bytes, not " + length), null);
      }
      verifyWhole(bytes, checksum, physical, blob);
      return FileEntry.keptWhole(physical, checksum, bytes);
    }
    long partBytes = f.path("part_size").asLong(Long.MAX_VALUE);
    if (partBytes <= 0) {
      partBytes = Long.MAX_VALUE;
    }
    long parts = length == 0 ? 1 : 1 + (length - 1) / partBytes;
    return FileEntry.ofBlob(physical, length, checksum,
        parts > 1 ? PartedBlobStore.name(dir + blobName, partBytes, length) : dir + blobName);
  }

  private static byte[] binary(JsonNode node, String blob) throws SnapshotException {
    try {
      return node.binaryValue();
    } catch (IOException e) {
      throw new SnapshotException.CorruptManifest(blob + ": meta_hash is not binary: " + e.getMessage(), e);
    }
  }

  /** A file kept whole in the metadata must end with a Lucene footer whose CRC32 of the rest is the recorded checksum. */
  private void verifyWhole(byte[] bytes, long checksum, String physical, String blob) throws SnapshotException {
    if (bytes.length < 16) {
      throw new SnapshotException.CorruptManifest(where(blob) + ": file " + physical + " of " + bytes.length
          + " bytes has no Lucene footer", null);
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    long footer = ByteBuffer.wrap(bytes, bytes.length - Long.BYTES, Long.BYTES).getLong();
    if (crc.getValue() != checksum || footer != checksum) {
      throw new SnapshotException.CorruptManifest(where(blob) + ": file " + physical + " kept in the metadata is damaged:"
          + " its CRC32 is " + Long.toString(crc.getValue(), Character.MAX_RADIX) + ", its footer says "
          + Long.toString(footer, Character.MAX_RADIX) + ", the snapshot recorded " + Long.toString(checksum,
          Character.MAX_RADIX), null);
    }
  }

  /**
   * The commit, read from the files kept in memory; null if a file it needs is not among them.
   *
   * @throws SnapshotException.UnsupportedFormat if a segment was written with a codec this reader does not have
   */
  static SegmentInfos readCommit(List<FileEntry> files, String segmentsFile, String where) throws SnapshotException {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      for (FileEntry f : files) {
        if (f.isKeptWhole()) {
          try (IndexOutput out = dir.createOutput(f.name(), IOContext.DEFAULT)) {
            out.writeBytes(f.wholeBytes(), f.wholeBytes().length);
          }
        }
      }
      return SegmentInfos.readCommit(dir, segmentsFile);
    } catch (IllegalArgumentException | IndexFormatTooOldException e) {
      if (isUnknownFormat(e)) {
        throw unknownFormat(where, e);
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null; // a .si kept as a blob: the counts stay unknown until the index opens
    }
  }

  /**
   * Refuses, as each of its shards is mounted (by {@link #mount} or a catalog's own), an index whose fields
   * Elasticsearch writes in formats of its own this reader does not read: indexed {@code dense_vector} fields of
   * indices created before 9.4 (vectors in {@code ES813*} to {@code ES818*} and {@code ES93*} formats; 9.4 and
   * 9.5's {@code ES94*ScalarQuantizedVectorsFormat} are read, {@link #vectorsMayBeRead}); and an index whose
   * {@code index.codec} is one of OpenSearch's custom codecs ({@link OpenSearchCustomCodec}: zstd, QAT), whose stored
   * fields this reader does not read (segments that name such a codec are refused by {@link #unknownFormat}).
   * Otherwise Lucene would fail on the first search, naming neither the field nor the index.
   *
   * @param where the index, its snapshot and the shard's blob, for the message
   */
  private static void refuseUnreadable(IndexMetadata metadata, String where) throws SnapshotException {
    String codec = metadata.settings().get("index.codec");
    var custom = OpenSearchCustomCodec.ofSetting(codec);
    if (custom.isPresent()) {
      throw new SnapshotException.UnsupportedFormat(where + " has index.codec '" + codec + "': "
          + custom.get().why(), null);
    }
    if (!metadata.mapping().indexedVectorFields().isEmpty()
        && !vectorsMayBeRead(metadata.settings().get("index.version.created"))) {
      throw new SnapshotException.UnsupportedFormat(where + " has indexed dense_vector fields "
          + metadata.mapping().indexedVectorFields() + " of an index created by Elasticsearch index version "
          + metadata.settings().get("index.version.created") + ", before 9.4: Elasticsearch writes their vectors in"
          + " its own formats (ES813Int8FlatVectorFormat, ES814HnswScalarQuantizedVectorsFormat, ES815/ES816/ES818"
          + " bit and BBQ formats; from 9.2 generic ones such as ES93HnswScalarQuantizedVectorsFormat), whose layout"
          + " is not published, so this reader cannot read them (it reads 9.4 and 9.5's"
          + " ES94HnswScalarQuantizedVectorsFormat and ES94ScalarQuantizedVectorsFormat)", null);
    }
  }

  /** Elasticsearch's index version of 9.4 (9_094_0_00), from which indexed vectors may be in formats read. */
  static final int ES_9_4 = 9_094_0_00;

  /**
   * Whether an index created at {@code versionCreated} may hold indexed vectors in formats this reader reads: from 9.4
   * ({@code int8_hnsw}, {@code int4_hnsw} and their flat kinds in {@code ES94*ScalarQuantizedVectorsFormat}, Lucene's
   * layouts, {@code codecs.ES94VectorsFormat}). Other options' formats (BBQ, bit, bfloat16 elements) are refused
   * when a segment that names them opens at mount, by their names. An unknown version is refused.
   */
  static boolean vectorsMayBeRead(String versionCreated) {
    try {
      return Integer.parseInt(String.valueOf(versionCreated)) >= ES_9_4;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Whether Lucene's SPI found no codec or format of the name a segment records. */
  private static boolean isUnknownFormat(Exception e) {
    return spiMessage(e) != null;
  }

  /**
   * The message of Lucene's SPI that no codec or format of a name exists, in {@code e} or its causes; null if there is
   * none. For a codec named {@code Lucene*} Lucene wraps it, guessing at a missing backward-codecs jar (an
   * IllegalArgumentException up to 10.3, an IndexFormatTooOldException later), which a newer Lucene's codec is not.
   */
  private static String spiMessage(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("does not exist")) {
        return t.getMessage();
      }
    }
    return null;
  }

  /**
   * The newest engine releases whose snapshots this reader was checked against: on real nodes, or from the engines'
   * sources where no node runs here (docs/engine-snapshots.md has the table). Named by the error a newer engine's
   * segments meet.
   */
  static final String NEWEST_READ = "Elasticsearch 9.5 on a real node (9.6 from its sources) and OpenSearch 3.9 on a"
      + " real node";

  /**
   * The error for segments written with a codec or format Lucene does not have (Elasticsearch's own, or one of
   * OpenSearch's custom codecs, which are refused by name), naming {@code where}.
   */
  private static SnapshotException.UnsupportedFormat unknownFormat(String where, Exception e) {
    String spi = spiMessage(e);
    Matcher unknown = UNKNOWN_SPI_NAME.matcher(String.valueOf(spi));
    if (unknown.find()) {
      String codec = unknown.group(1);
      var custom = OpenSearchCustomCodec.ofSegmentCodec(codec);
      if (custom.isPresent()) {
        return new SnapshotException.UnsupportedFormat(where + " has segments written with codec " + codec
            + " (index.codec '" + custom.get().setting + "'): " + custom.get().why(), e);
      }
    }
    return new SnapshotException.UnsupportedFormat(where + " has segments written with a codec or format this reader"
        + " does not have (" + spi + "). Read are Lucene's own codecs (Lucene 9.x and 10.x, up to "
        + Version.LATEST + "), Elasticsearch's codecs " + EngineFormats.CODECS + " and its postings formats "
        + EngineFormats.POSTINGS + "; the newest releases read are " + NEWEST_READ + ". A snapshot of a newer release"
        + " needs a Permafrost that reads it (docs/engine-snapshots.md)", e);
  }

  private Snapshot snapshot(String name) throws SnapshotException {
    Snapshot s = snapshots.get(name);
    if (s == null) {
      throw new SnapshotException.NotFound("no snapshot '" + name + "' in " + where(rootBlob) + " (it has "
          + new TreeSet<>(snapshots.keySet()) + ")", null);
    }
    if (s.state() != SUCCESS) {
      throw new SnapshotException("snapshot '" + name + "' in " + where(rootBlob) + " did not complete (state "
          + s.state() + "): only successful snapshots are mounted");
    }
    return s;
  }

  private IndexEntry index(Snapshot s, String name) throws SnapshotException {
    IndexEntry index = indices.get(name);
    if (index == null || !index.snapshotUuids().contains(s.uuid())) {
      throw new SnapshotException.NotFound("snapshot '" + s.name() + "' in " + where(rootBlob) + " has no index '"
          + name + "'", null);
    }
    return index;
  }

  /** The directory of a shard's blobs, ending with '/'. */
  private String shardPath(IndexEntry index, int shard) throws IOException {
    if (index.shardPathType() == 0) {
      return base + "indices/" + index.id() + "/" + shard + "/";
    }
    if (index.shardPathType() != 1 && index.shardPathType() != 2) {
      throw new SnapshotException.UnsupportedFormat(where(rootBlob) + ": index '" + index.name() + "' has shard path"
          + " type " + index.shardPathType() + ", which this reader does not know (0, 1 and 2 are read)", null);
    }
    Map<Integer, String> paths = hashedShardPaths.get(index.id());
    if (paths == null) {
      paths = readShardPaths(index);
      hashedShardPaths.put(index.id(), paths);
    }
    String path = paths.get(shard);
    if (path == null) {
      throw new SnapshotException.NotFound("the shard paths of index '" + index.name() + "' in " + store.describe()
          + " list no shard " + shard + " (they list " + paths.keySet() + ")", null);
    }
    return path;
  }

  private Map<Integer, String> readShardPaths(IndexEntry index) throws IOException {
    String prefix = base + "snapshot_shard_paths/snapshot_path_" + index.id() + ".";
    List<BlobMetadata> blobs = store.list(prefix);
    if (blobs.isEmpty()) {
      throw new SnapshotException.NotFound("index '" + index.name() + "' has hashed shard paths (type "
          + index.shardPathType() + ") but " + store.describe() + " has no " + prefix + "*", null);
    }
    String blob = blobs.get(0).name();
    JsonNode tree = MetadataBlob.JSON.readTree(readBlob(blob, "the shard paths of index '" + index.name() + "'"));
    Map<Integer, String> paths = new ConcurrentHashMap<>();
    for (JsonNode p : tree.path("paths")) {
      String path = p.asText();
      String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
      String shard = trimmed.substring(trimmed.lastIndexOf('/') + 1);
      if (!trimmed.contains("/indices/") && !trimmed.startsWith("indices/") || !shard.chars().allMatch(Character::isDigit)) {
        throw new SnapshotException.CorruptManifest(where(blob) + " lists shard path '" + path + "', which does not end"
            + " with indices/.../<shard>", null);
      }
      paths.put(Integer.parseInt(shard), trimmed + "/");
    }
    return paths;
  }

  private byte[] readBlob(String blob, String what) throws IOException {
    try (InputStream in = store.read(blob)) {
      return in.readAllBytes();
    } catch (BlobNotFoundException e) {
      throw new SnapshotException.NotFound("no " + blob + " in " + store.describe() + " (" + what + ")", e);
    } catch (IOException e) {
      throw new SnapshotException("cannot read " + blob + " in " + store.describe() + " (" + what + "): "
          + e.getMessage(), e);
    }
  }

  private String where(String blob) {
    return "blob " + blob + " in " + store.describe();
  }

  @Override
  public String toString() {
    return "EngineSnapshotRepository(" + store.describe() + ", " + rootBlob + ", " + snapshots.size() + " snapshots)";
  }

  /** A shard's name as this source mounts it: {@code <snapshot>/<index>/<shard>}. */
  record ShardName(String snapshot, String index, int shard) {
    static ShardName parse(String name) throws SnapshotException {
      String[] parts = name.split("/", -1);
      if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || !parts[2].matches("\\d{1,5}")) {
        throw new SnapshotException.NotFound("'" + name + "' does not name a shard: use <snapshot>/<index>/<shard>,"
            + " e.g. " + EngineSnapshotRepository.shard("snap-1", "logs", 0), null);
      }
      return new ShardName(parts[0], parts[1], Integer.parseInt(parts[2]));
    }
  }
}
