/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.IOUtils;

/**
 * What a clean close writes down beside the cache file ({@value #FILE_NAME}), so that the next start keeps the
 * cache's contents: the layout, and for every slot that holds a region, which blob and region, which of its units
 * are filled, and the CRC32C each was verified against (or computed from, once verified). Framed by Lucene's
 * {@link CodecUtil} header and checksummed footer, written to a temporary file, synced and renamed into place.
 *
 * <p>The record is read once, at start, and deleted at once (the deletion synced before the cache file is written),
 * so that a run which does not close cleanly leaves no record behind for the next one: a record is only ever the
 * last clean close's. A record of another format, a damaged one, or one written for another layout is not used.
 */
final class CacheRecord {
  static final String FILE_NAME = "permafrost-regions.record";
  private static final String TEMP_NAME = FILE_NAME + ".tmp";
  static final String CODEC = "PermafrostCacheRecord";
  static final int VERSION = 1;

  private CacheRecord() {}

  /** What must not have changed for recorded slots to mean the same thing: sizes, and so every region's place. */
  record Layout(long sizeInBytes, int regionSize, int tailRegionSize, int minSlotSize, int pageSize) {}

  /** A blob some recorded slot holds a region of: its key in the cache, and the facts its regions are cut by. */
  record BlobFacts(String key, String blobName, int chunkSize, String fileName, long length, long checksum, int wholeCrc32c) {}

  /**
   * One slot holding region {@code index} of blob {@code blob} (an index into the blobs), with the units set in
   * {@code units} (a bitmap) filled, each of {@code unit} bytes with its CRC32C in {@code crcs}.
   */
  record SlotState(int blob, int index, long cacheOffset, int size, int unit, long[] units, int[] crcs, int frequency) {}

  /**
   * A record read at start: its layout (null if it was not read), blobs and slots, or, when it cannot be used, why
   * the cache starts cold.
   */
  record Loaded(Layout layout, List<BlobFacts> blobs, List<SlotState> slots, String coldReason) {
    static Loaded cold(String reason) {
      return new Loaded(null, List.of(), List.of(), reason);
    }
  }

  /** Writes the record of a clean close, atomically: a temporary file, synced, renamed, the directory synced. */
  static void write(Path dir, Layout layout, List<BlobFacts> blobs, List<SlotState> slots) throws IOException {
    ByteBuffersDataOutput data = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(data, "cache record", FILE_NAME)) {
      CodecUtil.writeHeader(out, CODEC, VERSION);
      out.writeVLong(layout.sizeInBytes());
      out.writeVInt(layout.regionSize());
      out.writeVInt(layout.tailRegionSize());
      out.writeVInt(layout.minSlotSize());
      out.writeVInt(layout.pageSize());
      out.writeVInt(blobs.size());
      for (BlobFacts b : blobs) {
        out.writeString(b.key());
        out.writeString(b.blobName());
        out.writeInt(b.chunkSize());
        out.writeString(b.fileName());
        out.writeVLong(b.length());
        out.writeLong(b.checksum());
        out.writeInt(b.wholeCrc32c());
      }
      out.writeVInt(slots.size());
      for (SlotState s : slots) {
        out.writeVInt(s.blob());
        out.writeVInt(s.index());
        out.writeVLong(s.cacheOffset());
        out.writeVInt(s.size());
        out.writeVInt(s.unit());
        out.writeByte((byte) s.frequency());
        out.writeVInt(s.crcs().length);
        for (long word : s.units()) {
          out.writeLong(word);
        }
        for (int crc : s.crcs()) {
          out.writeInt(crc);
        }
      }
      CodecUtil.writeFooter(out);
    }
    Path temp = dir.resolve(TEMP_NAME);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE)) {
      for (ByteBuffer buffer : data.toBufferList()) {
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
      channel.force(true);
    }
    Files.move(temp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    IOUtils.fsync(dir, true);
  }

  /**
   * Reads the record in {@code dir} and deletes it (and any half-written one), the deletion synced; the caller holds
   * the directory's lock and has not written the cache file yet.
   */
  static Loaded load(Path dir, Layout expected) throws IOException {
    String tempProblem = remove(dir.resolve(TEMP_NAME)); // a close that did not finish
    Path file = dir.resolve(FILE_NAME);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Loaded.cold("no record of a clean close (a new cache, or the last run did not close it)"
          + (tempProblem == null ? "" : "; " + tempProblem));
    } catch (IOException e) {
      // not a file we can read (a directory, no permission): the cache file is still usable, from cold
      String problem = remove(file);
      return Loaded.cold("the record of the last close, " + file + ", cannot be read (" + e + ")"
          + (problem == null ? "; it was removed" : "; " + problem));
    }
    Files.delete(file);
    IOUtils.fsync(dir, true);
    try {
      return parse(bytes, expected);
    } catch (IndexFormatTooOldException | IndexFormatTooNewException e) {
      return Loaded.cold("the record of the last close is of another format (" + e.getMessage() + ")");
    } catch (IOException | RuntimeException e) {
      return Loaded.cold("the record of the last close is damaged (" + e.getMessage() + ")");
    }
  }

  /**
   * Removes {@code path} if it is there; says what is wrong if it cannot be removed (a directory with files in it),
   * in which case the next clean close cannot write its record until someone removes it.
   */
  private static String remove(Path path) {
    try {
      Files.deleteIfExists(path);
      return null;
    } catch (IOException e) {
      return path + " is in the way and cannot be removed (" + e + "): remove it, or the next clean close cannot"
          + " record what the cache holds";
    }
  }

  /**
   * Reads the record in {@code dir} as it is, whatever layout it was written for, and leaves it in place: no lock is
   * taken and nothing is written, so that a cache directory can be looked into ({@link CacheSummary}) whether or not
   * a cache has it open. A missing, damaged or other-format record comes back cold, saying why.
   */
  static Loaded peek(Path dir) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(FILE_NAME));
    } catch (NoSuchFileException e) {
      return Loaded.cold("no record of a clean close (a new cache, one open now, or one whose last run did not close it)");
    } catch (IOException e) {
      return Loaded.cold("the record of the last close, " + dir.resolve(FILE_NAME) + ", cannot be read (" + e + ")");
    }
    try {
      return parse(bytes, null);
    } catch (IndexFormatTooOldException | IndexFormatTooNewException e) {
      return Loaded.cold("the record of the last close is of another format (" + e.getMessage() + ")");
    } catch (IOException | RuntimeException e) {
      return Loaded.cold("the record of the last close is damaged (" + e.getMessage() + ")");
    }
  }

  /** Parses a record; one written for another layout than {@code expected} (null: any) comes back cold. */
  private static Loaded parse(byte[] bytes, Layout expected) throws IOException {
    try (IndexInput in = new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), FILE_NAME)) {
      CodecUtil.checkHeader(in, CODEC, VERSION, VERSION); // before the checksum: another version says so
      CodecUtil.checksumEntireFile(in);
      in.seek(CodecUtil.headerLength(CODEC));
      Layout layout = new Layout(in.readVLong(), in.readVInt(), in.readVInt(), in.readVInt(), in.readVInt());
      if (expected != null && !layout.equals(expected)) {
        return Loaded.cold("the layout changed since the last close (then " + describe(layout) + ", now "
            + describe(expected) + ")");
      }
      int blobCount = in.readVInt();
      List<BlobFacts> blobs = new ArrayList<>(blobCount);
      for (int i = 0; i < blobCount; i++) {
        blobs.add(new BlobFacts(in.readString(), in.readString(), in.readInt(), in.readString(), in.readVLong(),
            in.readLong(), in.readInt()));
      }
      int slotCount = in.readVInt();
      List<SlotState> slots = new ArrayList<>(slotCount);
      for (int i = 0; i < slotCount; i++) {
        int blob = in.readVInt();
        int index = in.readVInt();
        long offset = in.readVLong();
        int size = in.readVInt();
        int unit = in.readVInt();
        int frequency = in.readByte();
        int units = in.readVInt();
        if (blob >= blobCount || units < 0 || units > layout.regionSize()) {
          throw new CorruptIndexException("slot " + i + " names blob " + blob + " of " + blobCount + " with " + units
              + " units", in);
        }
        long[] bitmap = new long[(units + 63) >>> 6];
        for (int w = 0; w < bitmap.length; w++) {
          bitmap[w] = in.readLong();
        }
        int[] crcs = new int[units];
        for (int u = 0; u < units; u++) {
          crcs[u] = in.readInt();
        }
        slots.add(new SlotState(blob, index, offset, size, unit, bitmap, crcs, frequency));
      }
      if (in.getFilePointer() != in.length() - CodecUtil.footerLength()) {
        throw new CorruptIndexException("the record has " + (in.length() - CodecUtil.footerLength() - in.getFilePointer())
            + " bytes after its last slot", in);
      }
      return new Loaded(layout, blobs, slots, null);
    }
  }

  private static String describe(Layout l) {
    return l.sizeInBytes() + " bytes, regions of " + l.regionSize() + ", tails of " + l.tailRegionSize()
        + ", slots from " + l.minSlotSize() + ", pages of " + l.pageSize();
  }
}
