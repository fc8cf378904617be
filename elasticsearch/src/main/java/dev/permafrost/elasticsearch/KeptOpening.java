/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ReadRecordingDirectory;
import dev.permafrost.snapshot.SnapshotException;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.store.BlobDirectory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * What opening a shard's commit reads, kept with its mount so that the shard opens later with no request, however
 * empty the cache: an engine's snapshot keeps only {@code segments_N} and the {@code .si} files, so the rest
 * (compound entry tables, every file's header and footer, the metadata files Lucene reads whole) is recorded as the
 * mount opens the shard, then read back, verified and kept in the mount's manifest as ranges of its files
 * ({@link FileEntry#withWarmRanges}).
 *
 * <p>Only verified bytes are kept; a recorded byte no check covers is read through the cache as before. A file (or a
 * compound file's entry) read whole is checked against its CRC32: the one the shard's snapshot records, or, for an
 * entry of a compound file, the one in its own footer. Of a file read in part, its footer is checked against the
 * snapshot's checksum, and its header's magic and segment id against the commit's; so is each compound entry's header,
 * and its footer's magic and algorithm (the snapshot records no checksum of an entry, so the checksum in an entry's
 * footer is checked only as Lucene checks it on open: that it is one; it is data to no search, only to a full
 * integrity check). Lucene's own checks of each header run again on every open. A file or entry of which opening reads
 * more than its header and footer (the soft deletes' and primary terms' doc values) is checked whole against its CRC32
 * if it is at most {@link #WHOLE_CHECK_BYTES} long (what {@link OpeningReads} fetched whole); of a longer one those
 * reads are not kept, and opening reads them through the cache. A byte that fails a check refuses the
 * mount, naming the shard, the file and its blob. At most {@link #LIMIT_BYTES} are kept, the smallest pieces first.
 */
final class KeptOpening {
  /** At most this many bytes of a shard's opening are kept with its mount; past it, the largest pieces are not. */
  static final long LIMIT_BYTES = 1 << 20;
  private static final int FOOTER_BYTES = CodecUtil.footerLength();
  /** The extensions of Lucene's compound files (Lucene90CompoundFormat's): the data, and the table of its entries. */
  private static final String COMPOUND_DATA = "cfs";
  private static final String COMPOUND_ENTRIES = "cfe";
  /**
   * A file (or compound entry) of which opening reads more than its header and footer (soft deletes' doc values, say)
   * is read whole, from the cache, to check those bytes against its CRC32, if it is at most this long: what
   * {@link OpeningReads} fetched whole, so the check costs the mount no request. Of a longer one only its header and
   * footer are kept, and what else opening reads of it is read through the cache when the shard opens.
   */
  static final long WHOLE_CHECK_BYTES = OpeningReads.WHOLE_FILE_BYTES;
  /** Recorded ranges closer than this are read back as one. */
  private static final long GAP = 0;

  private KeptOpening() {}

  /** Whether the manifest of the shard open in {@code directory} keeps what opening reads. */
  static boolean isKept(Directory directory) {
    return FilterDirectory.unwrap(directory) instanceof BlobDirectory blobs
        && blobs.manifest().files().stream().anyMatch(f -> !f.warmRanges().isEmpty());
  }

  /**
   * {@code manifest} with the bytes of {@code reads} (the reads of opening its commit) kept, read back from
   * {@code directory} and verified; unchanged if there is nothing to keep.
   *
   * @param where the shard, for messages
   * @throws SnapshotException.CorruptManifest naming the shard, file and blob if a byte read is not what it must be
   */
  static SnapshotManifest keep(SnapshotManifest manifest, ReadRecordingDirectory.Reads reads, Directory directory,
      String where) throws IOException {
    SegmentInfos commit = SegmentInfos.readCommit(directory, manifest.segmentsFileName());
    Map<String, byte[]> segmentIds = new HashMap<>();
    for (SegmentCommitInfo segment : commit) {
      segmentIds.put(segment.info.name, segment.info.getId());
    }
    List<Piece> pieces = new ArrayList<>();
    for (FileEntry file : manifest.files()) {
      if (file.isKeptWhole() || !reads.files().contains(file.name())) {
        continue;
      }
      Recorded recorded = Recorded.read(directory, file, reads.rangesOf(file.name(), GAP));
      new FileCheck(file, recorded, segmentIds.get(IndexFileNames.parseSegmentName(file.name())), where)
          .verifiedPieces(directory, manifest, pieces);
    }
    if (pieces.isEmpty()) {
      return manifest;
    }
    pieces.sort(Comparator.comparingInt(p -> p.bytes.length));
    long total = 0;
    Map<String, List<FileEntry.WarmRange>> kept = new HashMap<>();
    for (Piece p : pieces) {
      if (total + p.bytes.length > LIMIT_BYTES) {
        break;
      }
      total += p.bytes.length;
      kept.computeIfAbsent(p.file, k -> new ArrayList<>()).add(new FileEntry.WarmRange(p.offset, p.bytes));
    }
    List<FileEntry> files = new ArrayList<>(manifest.files().size());
    for (FileEntry f : manifest.files()) {
      List<FileEntry.WarmRange> ranges = kept.get(f.name());
      files.add(ranges == null ? f : f.withWarmRanges(merged(ranges)));
    }
    return SnapshotManifest.of(manifest.info(), manifest.segmentsFileName(), files, manifest.ref());
  }

  /** Sorted, with adjacent pieces joined (pieces never overlap: each is a distinct part of its file). */
  private static List<FileEntry.WarmRange> merged(List<FileEntry.WarmRange> ranges) {
    ranges.sort(Comparator.comparingLong(FileEntry.WarmRange::offset));
    List<FileEntry.WarmRange> out = new ArrayList<>();
    for (FileEntry.WarmRange r : ranges) {
      if (!out.isEmpty() && out.getLast().end() == r.offset()) {
        FileEntry.WarmRange last = out.removeLast();
        byte[] joined = Arrays.copyOf(last.bytes(), last.bytes().length + r.bytes().length);
        System.arraycopy(r.bytes(), 0, joined, last.bytes().length, r.bytes().length);
        out.add(new FileEntry.WarmRange(last.offset(), joined));
      } else {
        assert out.isEmpty() || out.getLast().end() < r.offset() : "overlapping pieces " + out.getLast() + " " + r;
        out.add(r);
      }
    }
    return out;
  }

  /** A verified piece of a file, to keep. */
  private record Piece(String file, long offset, byte[] bytes) {}

  /**
   * The recorded ranges of one file, read back: sorted, disjoint [start, end) with their bytes. A range longer than
   * {@link #LIMIT_BYTES} (a column opening read whole, nested documents' primary terms) is not read back: none of it
   * could be kept.
   */
  private record Recorded(long[] starts, long[] ends, byte[][] bytes) {
    static Recorded read(Directory directory, FileEntry file, List<long[]> recorded) throws IOException {
      List<long[]> ranges = recorded.stream().filter(r -> r[1] - r[0] <= LIMIT_BYTES).toList();
      long[] starts = new long[ranges.size()];
      long[] ends = new long[ranges.size()];
      byte[][] bytes = new byte[ranges.size()][];
      try (IndexInput in = directory.openInput(file.name(), IOContext.DEFAULT)) {
        for (int i = 0; i < ranges.size(); i++) {
          starts[i] = ranges.get(i)[0];
          ends[i] = Math.min(ranges.get(i)[1], file.length());
          bytes[i] = new byte[Math.toIntExact(ends[i] - starts[i])];
          in.seek(starts[i]);
          in.readBytes(bytes[i], 0, bytes[i].length);
        }
      }
      return new Recorded(starts, ends, bytes);
    }

    /** The bytes of [from, to) if one recorded range holds all of them, else null. */
    byte[] slice(long from, long to) {
      for (int i = 0; i < starts.length; i++) {
        if (starts[i] <= from && to <= ends[i]) {
          int at = Math.toIntExact(from - starts[i]);
          return Arrays.copyOfRange(bytes[i], at, at + Math.toIntExact(to - from));
        }
      }
      return null;
    }

    /** The recorded ranges clipped to [from, to), as [start, end) pairs. */
    List<long[]> within(long from, long to) {
      List<long[]> out = new ArrayList<>();
      for (int i = 0; i < starts.length; i++) {
        long s = Math.max(starts[i], from);
        long e = Math.min(ends[i], to);
        if (s < e) {
          out.add(new long[] {s, e});
        }
      }
      return out;
    }

    /** The bytes from {@code from} to the end of the recorded range holding it, or null if none does. */
    byte[] from(long from) {
      for (int i = 0; i < starts.length; i++) {
        if (starts[i] <= from && from < ends[i]) {
          int at = Math.toIntExact(from - starts[i]);
          return Arrays.copyOfRange(bytes[i], at, bytes[i].length);
        }
      }
      return null;
    }
  }

  /** The checks of one file's recorded bytes: which parts can be verified, and verifying them. */
  private record FileCheck(FileEntry file, Recorded recorded, byte[] segmentId, String where) {
    void verifiedPieces(Directory directory, SnapshotManifest manifest, List<Piece> out) throws IOException {
      boolean compound = file.name().endsWith("." + COMPOUND_DATA);
      // a compound file's own bytes are its header and footer; each of its entries is a Lucene file of its own
      unit(directory, file.name(), 0, file.length(), file.checksum(), !compound, out);
      if (compound) {
        for (Entry e : entries(directory, manifest)) {
          unit(directory, e.name + " in " + file.name(), e.start, e.length, -1, true, out);
        }
      }
    }

    /**
     * The verified pieces of what was recorded of the Lucene file at [start, start + length) of this one (itself, or
     * an entry of it, a compound file): all of it if it was read whole, checked against its CRC32; else its header
     * and footer; and, if opening read more of it and it is at most {@link #WHOLE_CHECK_BYTES} long, what it read,
     * once the whole file (read through the cache) is checked against its CRC32.
     *
     * @param checksum its CRC32 as the snapshot records it, or -1: the one its own footer holds
     * @param data whether its bytes past its header and footer are its own (a compound file's are its entries')
     */
    private void unit(Directory directory, String name, long start, long length, long checksum, boolean data,
        List<Piece> out) throws IOException {
      long end = start + length;
      List<long[]> inside = recorded.within(start, end);
      if (inside.isEmpty() || length < FOOTER_BYTES) {
        return; // not read, or not a Lucene file: nothing checks it
      }
      byte[] whole = recorded.slice(start, end);
      if (whole != null) {
        checkWhole(whole, crcOf(whole, checksum, name), name);
        out.add(new Piece(file.name(), start, whole));
        return;
      }
      List<Piece> edges = new ArrayList<>();
      long headerEnd = header(start, name, edges);
      byte[] footer = recorded.slice(end - FOOTER_BYTES, end);
      if (footer != null && headerEnd <= end - FOOTER_BYTES) {
        long inFooter = checkFooter(footer, name);
        if (checksum >= 0 && inFooter != checksum) {
          throw damaged(name, "its footer's checksum is " + Long.toString(inFooter, Character.MAX_RADIX)
              + ", the snapshot recorded " + Long.toString(checksum, Character.MAX_RADIX));
        }
        edges.add(new Piece(file.name(), end - FOOTER_BYTES, footer));
      }
      long read = inside.stream().mapToLong(r -> r[1] - r[0]).sum();
      long edgeBytes = edges.stream().mapToLong(p -> p.bytes.length).sum();
      if (data && read > edgeBytes && length <= WHOLE_CHECK_BYTES) {
        whole = new byte[Math.toIntExact(length)];
        try (IndexInput in = directory.openInput(file.name(), IOContext.READONCE)) {
          in.seek(start);
          in.readBytes(whole, 0, whole.length);
        }
        checkWhole(whole, crcOf(whole, checksum, name), name);
        for (long[] r : inside) {
          out.add(new Piece(file.name(), r[0], Arrays.copyOfRange(whole, Math.toIntExact(r[0] - start),
              Math.toIntExact(r[1] - start))));
        }
        return;
      }
      out.addAll(edges);
    }

    /** {@code checksum}, or, if it is -1, the checksum in the footer of {@code whole}, a whole file. */
    private long crcOf(byte[] whole, long checksum, String name) throws SnapshotException {
      return checksum >= 0 ? checksum : checkFooter(Arrays.copyOfRange(whole, whole.length - FOOTER_BYTES, whole.length),
          name);
    }

    /**
     * The Lucene index header at {@code at}, if recorded: its magic, and its object id the segment's. Returns where it
     * ends, or {@code at} if it is not kept.
     */
    private long header(long at, String name, List<Piece> out) throws SnapshotException {
      byte[] rest = recorded.from(at);
      if (rest == null || segmentId == null) {
        return at; // not read, or of no segment whose id is known: not kept
      }
      ByteArrayDataInput in = new ByteArrayDataInput(rest);
      int headerLength;
      int magic;
      byte[] id = new byte[16];
      try {
        magic = CodecUtil.readBEInt(in);
        in.readString(); // the codec's name, which Lucene checks on every open
        CodecUtil.readBEInt(in); // its version, likewise
        in.readBytes(id, 0, id.length);
        int suffix = in.readByte() & 0xff;
        in.skipBytes(suffix);
        headerLength = in.getPosition();
      } catch (RuntimeException | IOException e) {
        return at; // the header runs past what opening read: not kept
      }
      if (magic != CodecUtil.CODEC_MAGIC) {
        throw damaged(name, "its header starts with " + Integer.toHexString(magic) + ", not Lucene's magic "
            + Integer.toHexString(CodecUtil.CODEC_MAGIC));
      }
      if (!Arrays.equals(id, segmentId)) {
        throw damaged(name, "its header's segment id is not the commit's");
      }
      out.add(new Piece(file.name(), at, Arrays.copyOf(rest, headerLength)));
      return at + headerLength;
    }

    /** Checks a Lucene footer's magic, algorithm and form; returns its checksum. */
    private long checkFooter(byte[] footer, String name) throws SnapshotException {
      ByteBuffer in = ByteBuffer.wrap(footer); // big-endian, as CodecUtil writes footers
      int magic = in.getInt();
      int algorithm = in.getInt();
      long checksum = in.getLong();
      if (magic != CodecUtil.FOOTER_MAGIC || algorithm != 0 || (checksum & 0xFFFFFFFF00000000L) != 0) {
        throw damaged(name, "its footer is not a Lucene footer (magic " + Integer.toHexString(magic) + ", algorithm "
            + algorithm + ", checksum " + Long.toHexString(checksum) + ")");
      }
      return checksum;
    }

    /** Bytes of a whole file (or compound entry): the CRC32 of all but the last 8 is {@code checksum}, and so are those. */
    private void checkWhole(byte[] bytes, long checksum, String name) throws SnapshotException {
      if (bytes.length < FOOTER_BYTES) {
        throw damaged(name, "it has " + bytes.length + " bytes, no room for a Lucene footer");
      }
      CRC32 crc = new CRC32();
      crc.update(bytes, 0, bytes.length - Long.BYTES);
      long footer = ByteBuffer.wrap(bytes, bytes.length - Long.BYTES, Long.BYTES).getLong();
      if (crc.getValue() != checksum || footer != checksum) {
        throw damaged(name, "its CRC32 is " + Long.toString(crc.getValue(), Character.MAX_RADIX) + ", its footer says "
            + Long.toString(footer, Character.MAX_RADIX) + ", it must be " + Long.toString(checksum, Character.MAX_RADIX));
      }
    }

    /** The entries of this compound file, from its entry table (a file read whole, verified here first). */
    private List<Entry> entries(Directory directory, SnapshotManifest manifest) throws IOException {
      String table = IndexFileNames.segmentFileName(IndexFileNames.parseSegmentName(file.name()), "",
          COMPOUND_ENTRIES);
      FileEntry entries = manifest.file(table);
      if (entries == null) {
        return List.of();
      }
      byte[] bytes;
      if (entries.isKeptWhole()) {
        bytes = entries.wholeBytes();
      } else {
        bytes = new byte[Math.toIntExact(entries.length())];
        try (IndexInput in = directory.openInput(table, IOContext.READONCE)) {
          in.readBytes(bytes, 0, bytes.length);
        }
      }
      checkWhole(bytes, entries.checksum(), table);
      String segment = IndexFileNames.parseSegmentName(file.name());
      List<Entry> out = new ArrayList<>();
      try {
        for (CompoundEntries.Entry e : CompoundEntries.parse(bytes)) {
          if (e.start() < 0 || e.length() < 0 || e.start() + e.length() > file.length()) {
            throw damaged(table, "it lists entry " + e.suffix() + " at [" + e.start() + ", " + (e.start() + e.length())
                + "), outside " + file.name() + "'s " + file.length() + " bytes");
          }
          out.add(new Entry(e.fileName(segment), e.start(), e.length()));
        }
      } catch (SnapshotException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        throw damaged(table, "its entry table does not parse: " + e);
      }
      return out;
    }

    private SnapshotException.CorruptManifest damaged(String name, String why) {
      return new SnapshotException.CorruptManifest(where + ": file " + name + " (blob " + file.blobName()
          + "), read when the shard was mounted to keep what opening it reads, is damaged: " + why, null);
    }
  }

  /** An entry of a compound file: its name and where it is in the compound file. */
  private record Entry(String name, long start, long length) {}
}
