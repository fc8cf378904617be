/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.StringHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A repository of Lucene index snapshots in a {@link BlobStore}.
 *
 * <p>Layout under the store's root: {@code snapshots/<name>.manifest} holds each snapshot's manifest, and
 * {@code blobs/<address>} each index file, content-addressed (by file name, length, Lucene checksum and header,
 * which carries the segment's unique id), so that a later snapshot of the same index uploads only the files that
 * are new. The manifest keeps each file's {@link ChunkTable}: the checksum of every chunk, against which every range
 * read from the store is verified (snapshots of format 2 kept it in a blob beside the file's,
 * {@code blobs/<address>.crc32c-32k}, which are still read, kept while such a snapshot uses them, and deleted with
 * it: {@link SnapshotManifest#chunkTableBlob}). A snapshot exists once its manifest is written, which happens last;
 * deleting one removes its manifest, then the blobs no remaining snapshot uses.
 *
 * <p>A repository has one writer at a time: two processes taking or deleting snapshots in the same repository at
 * once are not coordinated. Any number of readers may mount snapshots while it is written.
 */
public final class SnapshotRepository implements SnapshotSource {
  private static final Logger log = LoggerFactory.getLogger(SnapshotRepository.class);
  static final String SNAPSHOTS_PREFIX = "snapshots/";
  static final String MANIFEST_SUFFIX = ".manifest";
  static final String BLOBS_PREFIX = "blobs/";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");
  private static final int ADDRESS_HEADER_BYTES = 512;
  private static final Set<String> METADATA_EXTENSIONS =
      Set.of("si", "fnm", "cfe", "tmd", "kdm", "dvm", "nvm", "fdm", "vem", "vemf", "vemq", "psm", "liv");

  private final BlobStore store;

  private SnapshotRepository(BlobStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * A repository at the root of {@code store}. Touches nothing until used. A store without a {@link StorePolicy}
   * (one built with a backend's builder rather than {@link dev.permafrost.blob.BlobStores#open}) gets
   * {@link StorePolicy#DEFAULT}: deadlines, retries and request limits.
   */
  public static SnapshotRepository open(BlobStore store) {
    Objects.requireNonNull(store, "store");
    return new SnapshotRepository(StorePolicy.of(store) != null ? store : StorePolicy.DEFAULT.apply(store));
  }

  /**
   * A repository at the root of {@code store}, reading and writing it under {@code policy}.
   *
   * @throws IllegalArgumentException if {@code store} already has a policy
   */
  public static SnapshotRepository open(BlobStore store, StorePolicy policy) {
    return new SnapshotRepository(policy.apply(Objects.requireNonNull(store, "store")));
  }

  /** The store, with its {@link StorePolicy} around it. */
  @Override
  public BlobStore store() {
    return store;
  }

  /** Throws if {@code name} is not a valid snapshot name: 1-200 of letters, digits, '.', '_' and '-', not starting with a symbol. */
  public static String validateName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("snapshot name must not be empty");
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid snapshot name '" + name + "': use 1 to 200 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return name;
  }

  /** The blob, in a repository's store, that holds the manifest of the snapshot named {@code name}. */
  public static String manifestBlob(String name) {
    return SNAPSHOTS_PREFIX + name + MANIFEST_SUFFIX;
  }

  /** Takes a snapshot of the latest commit in {@code directory}, with default options. */
  public SnapshotInfo createSnapshot(String name, Directory directory) throws IOException {
    return createSnapshot(name, directory, SnapshotOptions.DEFAULTS);
  }

  /** Takes a snapshot of the latest commit in {@code directory}. */
  public SnapshotInfo createSnapshot(String name, Directory directory, SnapshotOptions options) throws IOException {
    validateName(name);
    IndexCommit latest;
    try {
      List<IndexCommit> commits = DirectoryReader.listCommits(directory);
      latest = commits.getLast();
    } catch (IndexNotFoundException e) {
      throw new IndexNotFoundException(
          "cannot take snapshot '" + name + "': " + directory + " holds no Lucene index (no segments_N file)");
    }
    return createSnapshot(name, latest, options);
  }

  /** Takes a snapshot of {@code commit}, with default options. */
  public SnapshotInfo createSnapshot(String name, IndexCommit commit) throws IOException {
    return createSnapshot(name, commit, SnapshotOptions.DEFAULTS);
  }

  /**
   * Takes a snapshot of {@code commit}: uploads the files the repository does not have yet (in parallel,
   * verifying each file's checksum while streaming it), then writes the manifest. If anything fails no manifest
   * is written, so the snapshot does not exist; blobs already uploaded are reused by the next attempt.
   *
   * @throws SnapshotException.AlreadyExists if a snapshot of that name exists
   * @throws CorruptIndexException if an index file is corrupt (its checksum does not match its footer)
   */
  public SnapshotInfo createSnapshot(String name, IndexCommit commit, SnapshotOptions options) throws IOException {
    validateName(name);
    Objects.requireNonNull(commit, "commit");
    if (store.exists(manifestBlob(name))) {
      throw new SnapshotException.AlreadyExists(
          "snapshot '" + name + "' already exists in " + store.describe() + "; snapshots are immutable, choose another name");
    }
    Map<String, FileEntry> earlier = checksumsOfEarlier(name, options);
    Directory dir = commit.getDirectory();
    ReadRecordingDirectory recording = new ReadRecordingDirectory(dir);
    SegmentInfos segmentInfos;
    long maxDoc;
    long numDocs;
    Map<String, PointRange> points = new LinkedHashMap<>();
    ReadRecordingDirectory.Reads openReads;
    Map<String, List<long[]>> warmRanges;
    try (DirectoryReader reader = DirectoryReader.open(new RecordingCommit(commit, recording))) {
      openReads = recording.stopRecording();
      warmRanges = warmRanges(name, reader, recording, options);
      segmentInfos = ((StandardDirectoryReader) reader).getSegmentInfos();
      maxDoc = reader.maxDoc();
      numDocs = reader.numDocs();
      for (String field : options.pointFields()) {
        PointRange range = PointRange.of(reader, field);
        if (range != null) {
          points.put(field, range);
        }
      }
    } catch (IndexNotFoundException e) {
      throw new IndexNotFoundException("cannot take snapshot '" + name + "': " + e.getMessage());
    }

    List<String> fileNames = new ArrayList<>(new TreeSet<>(commit.getFileNames()));
    List<FileEntry> entries = new ArrayList<>(fileNames.size());
    for (String file : fileNames) {
      entries.add(describeFile(dir, file, openReads, warmRanges.getOrDefault(file, List.of()), options));
    }

    entries = upload(name, dir, entries, options, earlier);

    long totalBytes = entries.stream().mapToLong(FileEntry::length).sum();
    SnapshotInfo info =
        new SnapshotInfo(
            name,
            Instant.ofEpochMilli(System.currentTimeMillis()),
            segmentInfos.getCommitLuceneVersion() == null ? "" : segmentInfos.getCommitLuceneVersion().toString(),
            commit.getGeneration(),
            commit.getSegmentCount(),
            maxDoc,
            numDocs,
            entries.size(),
            totalBytes,
            Map.copyOf(commit.getUserData()),
            Collections.unmodifiableMap(points));
    SnapshotManifest manifest = new SnapshotManifest(info, commit.getSegmentsFileName(), options.chunkSize(), entries, true);
    byte[] bytes = manifest.toBytes();
    if (store.exists(manifestBlob(name))) {
      throw new SnapshotException.AlreadyExists(
          "snapshot '" + name + "' was created in " + store.describe() + " while this one was being taken");
    }
    store.write(manifestBlob(name), new ByteArrayInputStream(bytes), bytes.length);
    log.info("snapshot '{}' written to {}: {} files, {} bytes", name, store.describe(), entries.size(), totalBytes);
    return info;
  }

  /** Whether the manifest keeps {@code file} whole (so no range of it is worth a share of a byte budget). */
  private static boolean keptWhole(String file, long length, SnapshotOptions options) {
    return length <= options.keepWholeLimit() || (isMetadata(file) && length <= options.metadataKeepWholeLimit());
  }

  private static boolean isMetadata(String file) {
    if (file.startsWith("segments_")) {
      return true;
    }
    int dot = file.lastIndexOf('.');
    return dot >= 0 && METADATA_EXTENSIONS.contains(file.substring(dot + 1));
  }

  /**
   * Runs the warm searches over {@code reader} and returns what they read that the snapshot keeps, by file: the
   * smallest ranges first (the heads of terms blocks and postings lists, a column's dictionary; not a scan) until
   * {@link SnapshotOptions#warmBytesLimit()}.
   */
  private static Map<String, List<long[]>> warmRanges(String name, DirectoryReader reader,
      ReadRecordingDirectory recording, SnapshotOptions options) throws IOException {
    if (options.warmSearches().isEmpty()) {
      return Map.of();
    }
    recording.record();
    ReadRecordingDirectory.Reads reads;
    try {
      IndexSearcher searcher = new IndexSearcher(reader);
      for (int i = 0; i < options.warmSearches().size(); i++) {
        try {
          options.warmSearches().get(i).run(searcher);
        } catch (IOException | RuntimeException e) {
          throw new IOException("warm search " + (i + 1) + " of " + options.warmSearches().size() + " failed while "
              + "taking snapshot '" + name + "': " + e.getMessage(), e);
        }
      }
    } finally {
      reads = recording.stopRecording();
    }
    List<RecordedRange> all = new ArrayList<>();
    for (String file : reads.files()) {
      if (keptWhole(file, reader.directory().fileLength(file), options)) {
        continue; // in the manifest whole anyway
      }
      for (long[] r : reads.rangesOf(file, 64)) {
        all.add(new RecordedRange(file, r[0], r[1]));
      }
    }
    all.sort(Comparator.comparingLong(r -> r.end - r.start));
    Map<String, List<long[]>> kept = new HashMap<>();
    long budget = options.warmBytesLimit();
    for (RecordedRange r : all) {
      if (r.end - r.start > budget) {
        break; // every range after this one is as long or longer
      }
      budget -= r.end - r.start;
      kept.computeIfAbsent(r.file, k -> new ArrayList<>()).add(new long[] {r.start, r.end});
    }
    return kept;
  }

  private record RecordedRange(String file, long start, long end) {}

  private FileEntry describeFile(Directory dir, String file, ReadRecordingDirectory.Reads openReads,
      List<long[]> warm, SnapshotOptions options) throws IOException {
    try (IndexInput in = dir.openInput(file, IOContext.DEFAULT)) {
      long length = in.length();
      long checksum = CodecUtil.retrieveChecksum(in); // checks the footer's magic and algorithm
      if (keptWhole(file, length, options)) {
        byte[] bytes = new byte[(int) length];
        in.seek(0);
        in.readBytes(bytes, 0, bytes.length);
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, bytes.length - Long.BYTES);
        if (crc.getValue() != checksum) {
          throw new CorruptIndexException(
              "checksum failed: the footer says " + Long.toHexString(checksum) + " but the bytes have "
                  + Long.toHexString(crc.getValue()) + " (the local file is corrupt)",
              in);
        }
        return new FileEntry(file, length, checksum, null, bytes, List.of());
      }
      List<long[]> ranges = new ArrayList<>();
      ranges.add(new long[] {0, Math.min(length, headerLength(in))});
      ranges.add(new long[] {length - CodecUtil.footerLength(), length});
      long budget = options.warmBytesPerFile();
      for (long[] r : openReads.rangesOf(file, 0)) {
        long end = Math.min(r[1], length);
        if (end - r[0] > budget) {
          continue;
        }
        budget -= end - r[0];
        ranges.add(new long[] {r[0], end});
      }
      for (long[] r : warm) {
        ranges.add(new long[] {r[0], Math.min(r[1], length)});
      }
      List<FileEntry.WarmRange> kept = new ArrayList<>();
      for (long[] r : merge(ranges)) {
        byte[] bytes = new byte[(int) (r[1] - r[0])];
        in.seek(r[0]);
        in.readBytes(bytes, 0, bytes.length);
        kept.add(new FileEntry.WarmRange(r[0], bytes));
      }
      return new FileEntry(file, length, checksum, BLOBS_PREFIX + address(in, file, length, checksum), null, kept);
    }
  }

  private static List<long[]> merge(List<long[]> ranges) {
    ranges.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] r : ranges) {
      if (r[1] <= r[0]) {
        continue;
      }
      if (!merged.isEmpty() && r[0] <= merged.getLast()[1] + 64) {
        merged.getLast()[1] = Math.max(merged.getLast()[1], r[1]);
      } else {
        merged.add(new long[] {r[0], r[1]});
      }
    }
    return merged;
  }

  /** The length of a Lucene index header ({@link CodecUtil#writeIndexHeader}), or 0 if the file has none. */
  private static long headerLength(IndexInput in) {
    try {
      in.seek(0);
      if (CodecUtil.readBEInt(in) != CodecUtil.CODEC_MAGIC) {
        return 0;
      }
      in.readString();
      CodecUtil.readBEInt(in);
      in.skipBytes(StringHelper.ID_LENGTH);
      int suffixLength = in.readByte() & 0xFF;
      in.skipBytes(suffixLength);
      return in.getFilePointer();
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static String address(IndexInput in, String file, long length, long checksum) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    sha.update((file + '\n' + length + '\n' + checksum + '\n').getBytes(StandardCharsets.UTF_8));
    byte[] head = new byte[(int) Math.min(length, ADDRESS_HEADER_BYTES)];
    in.seek(0);
    in.readBytes(head, 0, head.length);
    sha.update(head);
    return HexFormat.of().formatHex(sha.digest(), 0, 20);
  }

  /**
   * The files of the snapshot {@code options} names as this one's base ({@link SnapshotOptions#withBasedOn}), by blob,
   * with the chunk checksums its manifest keeps; empty without one, or where its checksums cannot serve (another chunk
   * size, or tables kept as blobs before format 3: said once in the log).
   *
   * @throws SnapshotException.NotFound naming the base if the repository has no such snapshot
   */
  private Map<String, FileEntry> checksumsOfEarlier(String name, SnapshotOptions options) throws IOException {
    String base = options.basedOn();
    if (base == null) {
      return Map.of();
    }
    validateName(base);
    SnapshotManifest manifest;
    try {
      manifest = readManifest(base);
    } catch (SnapshotException.NotFound e) {
      throw new SnapshotException.NotFound("cannot take snapshot '" + name + "' based on '" + base + "': "
          + e.getMessage(), e);
    }
    if (manifest.chunkSize() != options.chunkSize() || !manifest.tablesInManifest()) {
      log.warn("snapshot '{}' is based on '{}', whose manifest keeps {}: every file of '{}' is read for its checksums",
          name, base, manifest.tablesInManifest() ? "chunks of " + manifest.chunkSize() + " bytes, not "
              + options.chunkSize() : "no chunk tables (written before format 3)", name);
      return Map.of();
    }
    Map<String, FileEntry> byBlob = new HashMap<>();
    for (FileEntry f : manifest.files()) {
      if (f.blobName() != null) {
        byBlob.put(f.blobName(), f);
      }
    }
    return byBlob;
  }

  /**
   * Uploads the file blobs the repository lacks of {@code entries}, and reads every other file (not kept whole) once,
   * locally, for its checksums, unless {@code earlier} (the base snapshot's files by blob) has them. Returns the entries
   * with those checksums: the {@link ChunkTable} of each file of more than one chunk, the CRC32C of each file of at
   * most one.
   */
  private List<FileEntry> upload(String name, Directory dir, List<FileEntry> entries, SnapshotOptions options,
      Map<String, FileEntry> earlier) throws IOException {
    Set<String> existing = new HashSet<>();
    for (BlobMetadata blob : store.list(BLOBS_PREFIX)) {
      existing.add(blob.name());
    }
    Progress progress = new Progress(name, entries, options.listener());
    List<Runnable> skipped = new ArrayList<>();
    List<Upload> uploads = new ArrayList<>();
    Set<String> scheduled = new HashSet<>();
    Map<String, FileEntry> reused = new HashMap<>();
    for (FileEntry e : entries) {
      if (e.isKeptWhole() || !scheduled.add(e.blobName())) {
        skipped.add(() -> progress.done(e, false));
        continue;
      }
      FileEntry before = earlier.get(e.blobName());
      if (before != null && existing.contains(e.blobName()) && before.length() == e.length()
          && before.checksum() == e.checksum()
          && (before.chunkTable() != null || !ChunkTable.hasTable(e.length(), options.chunkSize()))) {
        reused.put(e.blobName(), before); // its blob's checksums, as the base snapshot recorded them
        skipped.add(() -> progress.done(e, false));
        continue;
      }
      // a blob the repository has is read locally all the same: its checksums go into this manifest
      uploads.add(new Upload(e, !existing.contains(e.blobName()), options.chunkSize()));
    }
    skipped.forEach(Runnable::run);
    if (uploads.isEmpty() && reused.isEmpty()) {
      return entries;
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(Math.max(1, Math.min(options.uploadThreads(), uploads.size())), r -> {
          Thread t = new Thread(r, "permafrost-snapshot-upload-" + name);
          t.setDaemon(true);
          return t;
        });
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Upload u : uploads) {
        futures.add(executor.submit(() -> {
          u.run(dir);
          progress.done(u.entry, u.data);
          return null;
        }));
      }
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException ex) {
          for (Future<?> other : futures) {
            other.cancel(true);
          }
          Throwable cause = ex.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          throw new IOException(cause);
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while taking snapshot '" + name + "'");
        }
      }
    } finally {
      executor.shutdownNow();
    }
    Map<String, Upload> byBlob = new HashMap<>();
    for (Upload u : uploads) {
      byBlob.put(u.entry.blobName(), u);
    }
    List<FileEntry> result = new ArrayList<>(entries.size());
    for (FileEntry e : entries) {
      Upload u = e.isKeptWhole() ? null : byBlob.get(e.blobName());
      FileEntry before = e.isKeptWhole() ? null : reused.get(e.blobName());
      if (u != null) {
        result.add(u.withChecksums(e));
      } else if (before != null) {
        result.add(ChunkTable.hasTable(e.length(), options.chunkSize()) ? e.withChunkTable(before.chunkTable())
            : e.withWholeCrc32c(before.wholeCrc32c()));
      } else {
        result.add(e);
      }
    }
    return result;
  }

  /**
   * One file not kept whole: read once, its Lucene checksum verified on the way, its chunks' checksums computed from
   * the same pass, and its bytes uploaded if the repository lacks its blob.
   */
  private final class Upload {
    final FileEntry entry;
    /** Whether the blob is uploaded (the repository lacks it). */
    final boolean data;
    final int chunkSize;
    ChunkTable table;

    Upload(FileEntry entry, boolean data, int chunkSize) {
      this.entry = entry;
      this.data = data;
      this.chunkSize = chunkSize;
    }

    void run(Directory dir) throws IOException {
      try (IndexInput in = dir.openInput(entry.name(), IOContext.READONCE)) {
        ChecksumVerifyingStream stream = new ChecksumVerifyingStream(in, entry.checksum(), chunkSize);
        try {
          if (data) {
            store.write(entry.blobName(), stream, entry.length());
          } else {
            stream.drain();
          }
        } catch (IOException e) {
          if (stream.failure() != null) {
            throw stream.failure();
          }
          throw e;
        }
        table = stream.table();
      }
    }

    /** {@code e} (this file's entry) with the checksums computed: its chunk table, or its whole CRC32C if it has none. */
    FileEntry withChecksums(FileEntry e) {
      assert e.blobName().equals(entry.blobName()) && table.fileLength() == e.length();
      return ChunkTable.hasTable(e.length(), chunkSize) ? e.withChunkTable(table) : e.withWholeCrc32c(table.checksum(0));
    }
  }

  /** Names of the snapshots in the repository (those whose manifest was written), sorted. */
  public List<String> listSnapshots() throws IOException {
    List<String> names = new ArrayList<>();
    for (BlobMetadata blob : store.list(SNAPSHOTS_PREFIX)) {
      String rest = blob.name().substring(SNAPSHOTS_PREFIX.length());
      if (rest.endsWith(MANIFEST_SUFFIX) && rest.indexOf('/') < 0) {
        names.add(rest.substring(0, rest.length() - MANIFEST_SUFFIX.length()));
      }
    }
    return names;
  }

  /** What the named snapshot is. @throws SnapshotException.NotFound if there is no such snapshot */
  public SnapshotInfo snapshotInfo(String name) throws IOException {
    return readManifest(name).info();
  }

  /**
   * Reads and checks the named snapshot's manifest: one blob read.
   *
   * @throws SnapshotException.NotFound if there is no such snapshot
   * @throws SnapshotException.CorruptManifest if the manifest is truncated or corrupt
   */
  public SnapshotManifest readManifest(String name) throws IOException {
    return parseManifest(name, readManifestBytes(name));
  }

  /**
   * The named snapshot's manifest as the store holds it (one blob read), not yet checked: see
   * {@link #parseManifest}. For keeping it elsewhere, such as a cache.
   *
   * @throws SnapshotException.NotFound if there is no such snapshot
   */
  @Override
  public byte[] readManifestBytes(String name) throws IOException {
    validateName(name);
    String blob = manifestBlob(name);
    try (InputStream in = store.read(blob)) {
      return in.readAllBytes();
    } catch (BlobNotFoundException e) {
      throw new SnapshotException.NotFound(
          "no snapshot '" + name + "' in " + store.describe() + " (no manifest " + blob + ")", e);
    } catch (IOException e) {
      throw new SnapshotException("cannot read the manifest of snapshot '" + name + "' (blob " + blob + " in "
          + store.describe() + "): " + e.getMessage(), e);
    }
  }

  /**
   * Parses and checks the bytes of the named snapshot's manifest (from {@link #readManifestBytes} or a copy of
   * them): its header, structure, footer checksum and name.
   *
   * @throws SnapshotException.CorruptManifest if the bytes are truncated or corrupt, or describe another snapshot
   * @throws SnapshotException.UnsupportedFormat if a newer Permafrost wrote them
   */
  @Override
  public SnapshotManifest parseManifest(String name, byte[] bytes) throws SnapshotException {
    String blob = manifestBlob(name);
    SnapshotManifest manifest = SnapshotManifest.fromBytes(bytes, blob, store.describe() + " blob " + blob);
    if (!manifest.name().equals(name)) {
      throw new SnapshotException.CorruptManifest(
          "manifest " + blob + " in " + store.describe() + " describes snapshot '" + manifest.name() + "', not '" + name + "'",
          null);
    }
    return manifest;
  }

  /**
   * Deletes a snapshot: its manifest, then every blob that no remaining snapshot uses. Every other manifest is
   * read first; if one cannot be read, nothing is deleted (a blob it may use must not be lost).
   *
   * @throws SnapshotException.NotFound if there is no such snapshot
   */
  public void deleteSnapshot(String name) throws IOException {
    SnapshotManifest target = readManifest(name);
    Set<String> stillUsed = new HashSet<>();
    for (String other : listSnapshots()) {
      if (!other.equals(name)) {
        stillUsed.addAll(blobsOf(readManifest(other)));
      }
    }
    store.delete(manifestBlob(name));
    Set<String> unused = new TreeSet<>(blobsOf(target));
    unused.removeAll(stillUsed);
    store.deleteAll(unused);
    log.info("snapshot '{}' deleted from {}: {} blobs removed", name, store.describe(), unused.size());
  }

  /**
   * Deletes blobs that no snapshot uses, such as those left by a snapshot that failed part way. Do not run it
   * while a snapshot is being taken.
   *
   * @return the number of blobs deleted
   */
  public int deleteUnreferencedBlobs() throws IOException {
    Set<String> used = new HashSet<>();
    for (String snapshot : listSnapshots()) {
      used.addAll(blobsOf(readManifest(snapshot)));
    }
    List<String> unused = new ArrayList<>();
    for (BlobMetadata blob : store.list(BLOBS_PREFIX)) {
      if (!used.contains(blob.name())) {
        unused.add(blob.name());
      }
    }
    store.deleteAll(unused);
    return unused.size();
  }

  /** Every blob a snapshot uses: its files' blobs and their chunk tables. */
  private static Set<String> blobsOf(SnapshotManifest manifest) {
    Set<String> blobs = new HashSet<>();
    for (FileEntry f : manifest.files()) {
      if (f.blobName() != null) {
        blobs.add(f.blobName());
        String table = manifest.chunkTableBlob(f);
        if (table != null) {
          blobs.add(table);
        }
      }
    }
    return blobs;
  }

  @Override
  public String toString() {
    return "SnapshotRepository(" + store.describe() + ")";
  }

  /** Counts finished files and reports progress, one report at a time. */
  private static final class Progress {
    private final String snapshot;
    private final int filesTotal;
    private final long bytesTotal;
    private final SnapshotProgress.Listener listener;
    private int filesDone;
    private long bytesDone;
    private int filesUploaded;
    private long bytesUploaded;

    Progress(String snapshot, Collection<FileEntry> entries, SnapshotProgress.Listener listener) {
      this.snapshot = snapshot;
      this.filesTotal = entries.size();
      this.bytesTotal = entries.stream().mapToLong(FileEntry::length).sum();
      this.listener = listener;
    }

    synchronized void done(FileEntry entry, boolean uploaded) {
      filesDone++;
      bytesDone += entry.length();
      if (uploaded) {
        filesUploaded++;
        bytesUploaded += entry.length();
      }
      listener.onProgress(
          new SnapshotProgress(snapshot, filesDone, filesTotal, bytesDone, bytesTotal, filesUploaded, bytesUploaded));
    }
  }

  /** The commit, seen through the recording directory. */
  private static final class RecordingCommit extends IndexCommit {
    private final IndexCommit in;
    private final Directory directory;

    RecordingCommit(IndexCommit in, Directory directory) {
      this.in = in;
      this.directory = directory;
    }

    @Override
    public String getSegmentsFileName() {
      return in.getSegmentsFileName();
    }

    @Override
    public Collection<String> getFileNames() throws IOException {
      return in.getFileNames();
    }

    @Override
    public Directory getDirectory() {
      return directory;
    }

    @Override
    public void delete() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isDeleted() {
      return in.isDeleted();
    }

    @Override
    public int getSegmentCount() {
      return in.getSegmentCount();
    }

    @Override
    public long getGeneration() {
      return in.getGeneration();
    }

    @Override
    public Map<String, String> getUserData() throws IOException {
      return in.getUserData();
    }
  }

}
